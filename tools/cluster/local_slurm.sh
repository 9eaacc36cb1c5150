#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Starts (or stops) a one-node Slurm cluster on localhost for the cluster test
# and for trying the experiment workflow's Slurm mode: munged, slurmctld and
# slurmd as root, state and logs under $FG_SLURM_DIR (default /tmp/fg-slurm).
#   tools/cluster/local_slurm.sh start|stop|status
# Needs Debian's slurmctld, slurmd, slurm-client and munge
# (tools/bootstrap.sh --cluster installs them). Exit 77 when they are absent
# or not root, so a test can skip.
set -euo pipefail
dir="${FG_SLURM_DIR:-/tmp/fg-slurm}"
conf=/etc/slurm/slurm.conf
cmd="${1:-status}"

need() { command -v "$1" >/dev/null || { echo "local_slurm: $1 not installed (tools/bootstrap.sh --cluster)"; exit 77; }; }

case "$cmd" in
  start)
    [[ $(id -u) -eq 0 ]] || { echo "local_slurm: must run as root"; exit 77; }
    need munged; need slurmctld; need slurmd; need sbatch
    # (Slurm's clients wait a long time for a controller that is not there, and
    # without a slurm.conf they look for one in DNS: guard both.)
    if [[ -f "$conf" ]] && timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE "idle|mixed|alloc"; then
      echo "local_slurm: already up"; exit 0
    fi
    mkdir -p "$dir"/{state,spool,log} /etc/slurm /run/munge /var/log/munge /var/lib/munge /etc/munge
    chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge 2>/dev/null || true
    if [[ ! -s /etc/munge/munge.key ]]; then
      dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
      chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
    fi
    munge_ok() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }
    if ! munge_ok; then
      pkill -x munged 2>/dev/null || true
      sleep 0.5
      runuser -u munge -- /usr/sbin/munged --force
      for _ in $(seq 50); do munge_ok && break; sleep 0.1; done
      munge_ok || { echo "local_slurm: munged does not answer"; exit 1; }
    fi
    cpus=$(nproc); mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
    host=$(hostname -s)
    cat > "$conf" <<CONF
# Written by tools/cluster/local_slurm.sh: a one-node cluster on localhost.
ClusterName=finegrain
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    pgrep -x slurmctld >/dev/null || slurmctld
    pgrep -x slurmd >/dev/null || slurmd
    for _ in $(seq 50); do
      if timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE "^(idle|mixed|allocated)"; then echo "local_slurm: up ($host, $cpus CPUs)"; exit 0; fi
      timeout 5 scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
      sleep 0.2
    done
    echo "local_slurm: the node did not come up; logs in $dir/log"; timeout 5 sinfo 2>&1 | head -5; exit 1
    ;;
  stop)
    pkill -x slurmd 2>/dev/null || true; pkill -x slurmctld 2>/dev/null || true
    for _ in $(seq 100); do pgrep -x slurmd >/dev/null || pgrep -x slurmctld >/dev/null || break; sleep 0.1; done
    echo "local_slurm: stopped"
    ;;
  status)
    timeout 5 sinfo 2>&1 | head -5
    ;;
  *) echo "usage: $0 start|stop|status"; exit 2 ;;
esac
