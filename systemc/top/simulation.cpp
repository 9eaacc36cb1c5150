// SPDX-License-Identifier: Apache-2.0
#include "top/simulation.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "gpu/host.h"
#include "gpu/mechanism.h"
#include "sim/error.h"
#include "sim/guard.h"
#include "sim/output.h"
#include "sim/setup.h"
#include "sim/stats.h"
#include "sim/trace.h"
#include "sim/workload.h"
#include "top/gpu_top.h"
#include "top/report.h"

namespace fg {

namespace {

const Param<std::uint64_t> kSeed{"sim.seed", 1, "", "seed of every random choice in the model and workloads"};
const Param<double> kQuantum{
    "sim.quantum", 20.0, "ns", "TLM global quantum: how far an initiator runs ahead before it syncs", {{0.001}, {1e6}}};
const Param<double> kMaxTime{"sim.max_time",
                             1e9,
                             "ns",
                             "watchdog: a run still going at this simulated time is stopped as a fault (0 = none)",
                             {{0}, {1e15}}};
const Param<std::uint64_t> kMaxMemory{"sim.max_memory", 0, "B",
                                      "host memory a run may need, estimated before it starts (0 = half of this "
                                      "machine's memory)"};
const Param<double> kMaxHost{"sim.max_host_seconds",
                             0.0,
                             "s",
                             "host-time limit: a run still going after this much wall time stops (0 = none)",
                             {{0}, {1e9}}};
const Param<double> kStallSeconds{"sim.stall_seconds",
                                  60.0,
                                  "s",
                                  "livelock watchdog: a time slice still running this long after a SIGINT, a SIGTERM "
                                  "or sim.max_host_seconds ends the run as a fault (exit 3, no statistics)",
                                  {{0.1}, {1e9}}};
const Param<double> kTraceStart{"trace.start", 0.0, "ns", "trace window start (simulated time)", {{0}, {1e15}}};
const Param<double> kTraceEnd{"trace.end", 0.0, "ns", "trace window end (0 = end of run)", {{0}, {1e15}}};

// Runs the workload in a SystemC thread and records how it ended.
class HostAgent : public sc_core::sc_module {
 public:
  HostAgent(sc_core::sc_module_name n, Host& host, const WorkloadInfo& w) : sc_module(n), host_(host), w_(w) {
    SC_HAS_PROCESS(HostAgent);
    SC_THREAD(main);
  }
  bool done = false;

 private:
  void main() {
    run_guarded([&] {
      // The co-runners the configuration enables (sim/workload.h), each in its
      // own process beside the workload.
      std::vector<std::function<void()>> finish;
      for (const CoRunnerInfo& c : co_runners()) {
        CoRunner r = c.start(host_);
        if (!r.body) continue;
        sc_core::sc_spawn([body = r.body] { run_guarded(body); }, sc_core::sc_gen_unique_name(c.name.c_str()));
        if (r.finish) finish.push_back(r.finish);
      }
      w_.run(host_);
      for (auto& f : finish) f();
      done = true;
    });
    stop_simulation();
  }
  Host& host_;
  const WorkloadInfo& w_;
};

void check_readable(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw UserError(fmt::format("{}: {} does not exist", path, what));
  if (!std::filesystem::is_regular_file(path, ec))
    throw UserError(fmt::format("{}: {} is not a regular file", path, what));
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot read {}", path, what));
}

std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) b /= 1024, ++u;
  return fmt::format("{:.{}f} {}", b, u ? 1 : 0, units[u]);
}

// Before anything is built: the run's device memory against the modelled
// memory, and an estimate of the host memory against sim.max_memory. The
// estimate: the device memory twice (the device's sparse backing store and
// the host's copies) plus a fixed 256 MiB for the simulator itself.
void check_resources(const WorkloadInfo& w, const Config& cfg) {
  const std::uint64_t dev = device_bytes_estimate(w, cfg);
  const std::uint64_t mem = std::get<std::uint64_t>(cfg.value("gpu.mem.size"));
  if (dev > mem)
    throw UserError(
        fmt::format("gpu.mem.size: workload '{}' needs about {} of device memory, more than gpu.mem.size "
                    "= {}",
                    w.name, bytes_text(double(dev)), bytes_text(double(mem))));
  std::uint64_t limit = kMaxMemory.get(cfg);
  const bool automatic = limit == 0;
  if (automatic) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    limit = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 2 : ~0ull;
  }
  const std::uint64_t need = 2 * dev + (256ull << 20);
  if (need > limit)
    throw UserError(
        fmt::format("sim.max_memory: workload '{}' needs about {} of host memory ({} of buffers, twice, "
                    "and the simulator), above the limit of {}{}",
                    w.name, bytes_text(double(need)), bytes_text(double(dev)), bytes_text(double(limit)),
                    automatic ? " (half of this machine's memory; set sim.max_memory to change it)" : ""));
}

}  // namespace

std::uint64_t device_bytes_estimate(const WorkloadInfo& w, const Config& cfg) {
  // Flags, counters and the allocator's alignment, which the estimates of
  // the buffers leave out.
  constexpr std::uint64_t kSmall = 64 << 10;
  std::uint64_t bytes = kSmall + (w.device_bytes ? w.device_bytes(cfg) : 0);
  // The mechanisms the run will build (unknown names are GpuTop's to refuse).
  const auto& registry = MechanismRegistry::global();
  std::vector<std::string> names = w.mechanisms ? w.mechanisms(cfg) : std::vector<std::string>{};
  for (auto& m : extra_mechanisms(cfg))
    if (registry.find(m)) names.push_back(m);
  for (const MechanismInfo* m : registry.closure(names, "gpu.mechanisms"))
    if (m->device_bytes) bytes += m->device_bytes(cfg);
  return bytes;
}

void refuse_overwriting_inputs(const RunSpec& spec, const Config& cfg, const std::string& option,
                               const std::string& path) {
  const WorkloadInfo* w = WorkloadRegistry::global().find(spec.workload);
  std::vector<std::pair<std::string, std::string>> ins;  // (what, path)
  for (const auto& f : spec.config_files) ins.emplace_back("--config", f);
  if (w && !w->input_param.empty()) {
    auto in = std::get<std::string>(cfg.value(w->input_param));
    if (!in.empty()) ins.emplace_back(fmt::format("the input file ({})", w->input_param), in);
  }
  for (const auto& [what, in] : ins)
    if (same_file(path, in))
      throw UserError(fmt::format("{} {}: is {}: it would be overwritten", option, shown(path), what));
}

namespace {
// Whether `path` can be written as a file written in place (not through a
// temporary file: the worklist's waveform), leaving it as it was: an
// existing file is opened without truncating it, a new one created and
// removed. A UserError naming `option` and the reason.
void probe_writable(const std::string& path, const char* option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UserError(fmt::format("{} {}: is a directory", option, shown(path)));
  const bool exists = std::filesystem::exists(path, ec);
  const int fd = ::open(path.c_str(), exists ? O_WRONLY | O_CLOEXEC : O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw UserError(fmt::format("{} {}: cannot write ({})", option, shown(path), std::strerror(errno)));
  ::close(fd);
  if (!exists) std::remove(path.c_str());
}
}  // namespace

Config resolve_config(const RunSpec& spec) {
  const WorkloadInfo* w = WorkloadRegistry::global().find(spec.workload);
  if (!w) throw UserError(fmt::format("unknown workload '{}' (see `fgsim list`)", shown(spec.workload)));
  Config cfg;
  if (!spec.preset.empty()) {
    auto it = presets().find(spec.preset);
    if (it == presets().end())
      throw UserError(fmt::format("--preset: unknown preset '{}' (see `fgsim list`)", shown(spec.preset)));
    cfg.apply_yaml(it->second.text, it->second.source, true);
  }
  for (const auto& f : spec.config_files) {
    check_readable(f, "config file");
    cfg.apply_yaml_file(f);
  }
  if (!spec.input.empty()) {
    if (w->input_param.empty())
      throw UserError(fmt::format("--input: workload '{}' takes no input file", spec.workload));
    cfg.set(w->input_param, spec.input, "--input");
  }
  for (const auto& s : spec.sets) cfg.apply_assignment(s);
  // An option and a --set of the parameter it sets: two values on one
  // command line, one of them would be dropped (--set after --set of one
  // key is the documented order: docs/usage.md).
  if (!spec.input.empty() && cfg.origin(w->input_param) != "--input")
    throw UserError(fmt::format("--input and {} both give the input file: give one", cfg.origin(w->input_param)));
  if (!spec.seed.empty() && cfg.origin("sim.seed").rfind("--set", 0) == 0)
    throw UserError(fmt::format("--seed and {} both give the seed: give one", cfg.origin("sim.seed")));
  if (!spec.seed.empty()) cfg.set("sim.seed", spec.seed, "--seed");
  // One rule (docs/reliability.md): another workload's parameter would be
  // ignored (its prefix is that workload's name, '-' written '_' or not).
  for (const auto& [name, other] : WorkloadRegistry::global().all()) {
    if (name == w->name) continue;
    std::string under = name;
    std::replace(under.begin(), under.end(), '-', '_');
    for (const auto& [key, info] : ParamRegistry::global().all())
      if ((key.rfind(name + ".", 0) == 0 || key.rfind(under + ".", 0) == 0) && cfg.set_by_user(key))
        throw UserError(
            fmt::format("{} (set by {}) does not apply: a parameter of workload '{}', and this run is of '{}'", key,
                        cfg.origin(key), name, w->name));
  }
  if (!w->input_param.empty()) {
    auto in = std::get<std::string>(cfg.value(w->input_param));
    if (!in.empty()) check_readable(in, "input file (" + w->input_param + ")");
  }
  check_resources(*w, cfg);
  // Two outputs in one file would corrupt both.
  const std::pair<const char*, const std::string*> outs[] = {{"--stats", &spec.stats_file},
                                                             {"--trace", &spec.trace_file},
                                                             {"--output", &spec.output_file},
                                                             {"--vcd", &spec.vcd_file}};
  // Only --stats takes "-" for standard output; --output - is a file named "-".
  auto file_of = [](const char* opt, const std::string& p) {
    return !p.empty() && !(p == "-" && std::string_view(opt) == "--stats");
  };
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = i + 1; j < 4; ++j) {
      const std::string &a = *outs[i].second, &b = *outs[j].second;
      if (file_of(outs[i].first, a) && file_of(outs[j].first, b) && same_file(a, b))
        throw UserError(fmt::format("{} and {} name the same file '{}'", outs[i].first, outs[j].first, a));
    }
  for (const auto& [opt, path] : outs)
    if (file_of(opt, *path)) refuse_overwriting_inputs(spec, cfg, opt, *path);
  double ts = kTraceStart.get(cfg), te = kTraceEnd.get(cfg);
  if (te > 0 && te <= ts) throw UserError(fmt::format("trace.end: {} ns is not after trace.start ({} ns)", te, ts));
  // One rule (docs/reliability.md): a setting that would be ignored is refused.
  if (spec.trace_file.empty())
    for (const std::string& k : {kTraceStart.name(), kTraceEnd.name()})
      if (cfg.set_by_user(k))
        throw UserError(fmt::format("{} (set by {}) does not apply: a trace window without a trace: give --trace FILE",
                                    k, cfg.origin(k)));
  return cfg;
}

namespace {
// Lock-free, so that the signal handler may set it and the stall watchdog's
// thread read it.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
// The first SIGINT or SIGTERM stops the run at the next slice; a second one
// ends the process at once (a run stuck inside a slice or in its setup).
extern "C" void on_signal(int sig) {
  if (g_signal) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}

// SIGINT and SIGTERM caught for the whole of simulate(): from before the
// first output file is created (a signal during the setup used to kill the
// process and leave its temporary files) until the outputs are committed.
// The run loop looks at g_signal first: a signal during the setup ends the
// run at 0 ns with the statistics (exit 130).
class SignalGuard {
 public:
  SignalGuard() {
    g_signal = 0;
    old_int_ = std::signal(SIGINT, on_signal);
    old_term_ = std::signal(SIGTERM, on_signal);
  }
  ~SignalGuard() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  void (*old_int_)(int) = SIG_DFL;
  void (*old_term_)(int) = SIG_DFL;
};

// The stall watchdog. The run loop stops between time slices; a slice in
// which the model loops without advancing simulated time (delta cycles
// without end, or a process that never waits) never returns, so neither a
// signal nor sim.max_host_seconds would stop it. A host thread watches the
// slices: when one is still running sim.stall_seconds after a SIGINT or
// SIGTERM arrived or the host-time limit passed, it prints the diagnosis,
// removes the outputs' temporary files (earlier files stay as they were) and
// ends the process with exit 3, writing no statistics: the SystemC kernel,
// stuck in its scheduler, cannot be stopped or read from outside it.
class SliceWatch {
 public:
  using Clock = std::chrono::steady_clock;
  SliceWatch(double max_host_s, double stall_s, Clock::time_point t0)
      : max_host_s_(max_host_s), stall_s_(stall_s), t0_(t0) {
    // The thread starts with SIGINT and SIGTERM blocked (they go to the
    // simulation's thread, as without the watchdog); a thread that cannot be
    // made (a process limit) leaves the run unwatched, as before the watchdog.
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    try {
      thread_ = std::thread([this] { watch(); });
    } catch (const std::system_error&) {
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  ~SliceWatch() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  SliceWatch(const SliceWatch&) = delete;
  SliceWatch& operator=(const SliceWatch&) = delete;

  // Around each sc_start: the slice's simulated span, for the diagnosis.
  void enter(double from_ns, double to_ns) {
    const std::lock_guard<std::mutex> lock(m_);
    in_slice_ = true, from_ns_ = from_ns, to_ns_ = to_ns, asked_ = false;
  }
  void leave() {
    const std::lock_guard<std::mutex> lock(m_);
    in_slice_ = false;
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(m_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (stop_ || !in_slice_) continue;
      const Clock::time_point now = Clock::now();
      const int sig = g_signal.load();
      const double host = std::chrono::duration<double>(now - t0_).count();
      if (!sig && !(max_host_s_ > 0 && host >= max_host_s_)) continue;
      if (!asked_) {
        asked_ = true, asked_at_ = now, asked_host_ = host, why_ = sig;
        continue;
      }
      if (std::chrono::duration<double>(now - asked_at_).count() < stall_s_) continue;
      const std::string cause = why_ ? fmt::format("{} arrived", why_ == SIGTERM ? "SIGTERM" : "SIGINT")
                                     : fmt::format("sim.max_host_seconds ({} s) passed", max_host_s_);
      const std::string msg = fmt::format(
          "fgsim: simulated fault: livelock: {} at {:.1f} s of host time, but the time slice from {} ns to {} ns "
          "was still running {:.1f} s later (sim.stall_seconds): the model loops without advancing simulated time "
          "(delta cycles without end, or a process that never waits), or the slice is slower than sim.stall_seconds "
          "allows; stopped without statistics or outputs\n",
          cause, asked_host_, from_ns_, to_ns_, std::chrono::duration<double>(now - asked_at_).count());
      remove_open_temp_files();
      std::fputs(isatty(fileno(stderr)) ? ("\n" + msg).c_str() : msg.c_str(), stderr);
      std::fflush(stderr);
      std::_Exit(kExitSimFault);
    }
  }
  const double max_host_s_, stall_s_;
  const Clock::time_point t0_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false, in_slice_ = false, asked_ = false;
  double from_ns_ = 0, to_ns_ = 0, asked_host_ = 0;
  int why_ = 0;
  Clock::time_point asked_at_;
  std::thread thread_;  // started in the constructor's body, once the members above are
};

// Runs SystemC in slices of simulated time so that a signal or the progress
// line is noticed between slices (slicing does not change the event order).
// Returns false when interrupted or stopped by the host-time limit
// (`host_limited` says which).
bool run_sliced(double max_ns, double max_host_s, double stall_s, bool progress,
                std::chrono::steady_clock::time_point t0, bool& host_limited) {
  host_limited = false;
  SliceWatch watch(max_host_s, stall_s, t0);
  // One slice: sc_start(span, ...) under the watchdog.
  const auto run_slice = [&](const sc_core::sc_time& span, sc_core::sc_starvation_policy policy) {
    const auto now = sc_core::sc_time_stamp().value();
    watch.enter(tick_to_ns(now), tick_to_ns(now + span.value()));
    sc_core::sc_start(span, policy);
    watch.leave();
  };
  using sc_core::sc_time;
  const sc_time slice(1, sc_core::SC_US);
  const sc_time limit = max_ns > 0 ? sc_time(max_ns, sc_core::SC_NS) : sc_core::SC_ZERO_TIME;
  auto last_report = t0;
  const bool tty = isatty(fileno(stderr));
  bool reported = false;
  run_slice(sc_core::SC_ZERO_TIME, sc_core::SC_RUN_TO_TIME);  // elaboration and the delta cycles at time 0
  for (;;) {
    if (g_signal || sc_core::sc_get_status() == sc_core::SC_STOPPED) break;
    if (!sc_core::sc_pending_activity()) break;  // finished, or nothing left to happen (deadlock)
    const sc_time next = sc_core::sc_time_to_pending_activity();
    sc_time step = std::max(slice, next);  // at least up to the next event: every slice makes progress
    if (max_ns > 0) {
      const sc_time left = limit - sc_core::sc_time_stamp();
      if (left <= sc_core::SC_ZERO_TIME) break;
      if (next > left) {  // nothing more before the watchdog: run up to it
        run_slice(left, sc_core::SC_RUN_TO_TIME);
        break;
      }
      step = std::min(step, left);
    }
    run_slice(step, sc_core::SC_EXIT_ON_STARVATION);
    if (max_host_s > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= max_host_s &&
        sc_core::sc_get_status() != sc_core::SC_STOPPED && sc_core::sc_pending_activity()) {
      host_limited = true;
      break;
    }
    if (progress || tty) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report >= std::chrono::seconds(2)) {
        last_report = now;
        const double host = std::chrono::duration<double>(now - t0).count();
        const double ns = tick_to_ns(sc_core::sc_time_stamp().value());
        std::fprintf(stderr, "%sfgsim: %.3f us simulated, %.1f s host, %.0f simulated ns/s%s", tty ? "\r" : "",
                     ns / 1000, host, host > 0 ? ns / host : 0.0, tty ? "" : "\n");
        reported = true;
      }
    }
  }
  if (reported && tty) std::fprintf(stderr, "\n");
  return !g_signal && !host_limited;
}
}  // namespace

int simulate(const RunSpec& spec, const Config& cfg) {
  const WorkloadInfo& w = *WorkloadRegistry::global().find(spec.workload);
  const SignalGuard signals;  // before the outputs: destroyed after them
  setup_systemc(kQuantum.get(cfg));

  // Outputs go to temporary files that replace the targets only when complete
  // (sim/output.h): nothing is created or truncated before the run, and a run
  // that stops on an error before it starts leaves earlier files in place.
  std::unique_ptr<OutputFile> out_file, stats_out;
  std::ostream null_out(nullptr);
  std::ostream* out = &null_out;
  if (!spec.output_file.empty()) {
    out_file = std::make_unique<OutputFile>(spec.output_file, "--output");
    out = &out_file->stream();
  }
  const bool stats_to_stdout = spec.stats_file == "-";
  if (!spec.stats_file.empty() && !stats_to_stdout)
    stats_out = std::make_unique<OutputFile>(spec.stats_file, "--stats");
  struct TraceGuard {
    ~TraceGuard() { Trace::get().discard(); }
  } trace_guard;
  if (!spec.trace_file.empty()) {
    double te = kTraceEnd.get(cfg);
    Trace::get().open(spec.trace_file, ns_to_tick(kTraceStart.get(cfg)), te > 0 ? ns_to_tick(te) : ~Tick{0});
  }

  // The rtl worklist backend writes its waveform itself (as the RTL runs, so
  // that a run ending in a fault keeps it); checked writable here.
  if (!spec.vcd_file.empty()) {
    if (spec.vcd_file == "-") throw UserError("--vcd: the waveform needs a file, not standard output");
    probe_writable(spec.vcd_file, "--vcd");
  }
  GpuOptions opts;
  if (w.mechanisms) opts.mechanisms = w.mechanisms(cfg);
  opts.mechanisms_origin = fmt::format("workload '{}' with this configuration", w.name);
  opts.workload = w.name;
  opts.wave_file = spec.vcd_file;
  GpuTop top("gpu", cfg, std::move(opts));
  Host host(top, *out, kSeed.get(cfg));
  HostAgent agent("host", host, w);
  Reaper reaper("reaper");  // a run that stops early unwinds its threads (sim/guard.h)

  const double max_ns = kMaxTime.get(cfg);
  const auto t0 = std::chrono::steady_clock::now();
  bool host_limited = false;
  const bool finished = run_sliced(max_ns, kMaxHost.get(cfg), kStallSeconds.get(cfg), spec.progress, t0, host_limited);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::exception_ptr failure = first_failure();
  // The mechanisms' end-of-run checks, after a run that finished.
  if (!failure && finished && agent.done) {
    try {
      top.end_of_run();
    } catch (const SimFault&) {
      failure = std::current_exception();
    }
  }
  std::string status = "ok", message;
  if (host_limited && !failure) {
    status = "host time limit";
    message = fmt::format(
        "sim.max_host_seconds: stopped after {:.1f} s of host time at {} ns simulated; statistics "
        "so far",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
        tick_to_ns(sc_core::sc_time_stamp().value()));
  } else if (!finished && !failure) {
    status = "interrupted";
    message = fmt::format("{} at {} ns simulated; statistics so far", g_signal == SIGTERM ? "SIGTERM" : "SIGINT",
                          tick_to_ns(sc_core::sc_time_stamp().value()));
  } else if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const UserError& e) {
      status = "input error", message = e.what();
    } catch (const SimFault& e) {
      status = "fault", message = e.what();
    } catch (const std::exception& e) {
      status = "internal error", message = e.what();
    }
  } else if (!agent.done) {
    status = "fault";
    const bool timed_out = sc_core::sc_pending_activity();
    message = timed_out ? fmt::format("watchdog: workload '{}' still running at sim.max_time = {} ns; {}", w.name,
                                      max_ns, top.diagnose())
                        : fmt::format("deadlock: no more events at {} ns but workload '{}' has not finished; {}",
                                      tick_to_ns(sc_core::sc_time_stamp().value()), w.name, top.diagnose());
    failure = std::make_exception_ptr(SimFault(message));
  }
  // Every output is completed and checked; a write error is reported (exit 2)
  // without hiding a fault (which keeps exit 3, both messages printed).
  std::vector<std::string> write_errors;
  auto commit = [&](auto&& f) {
    try {
      f();
    } catch (const UserError& e) {
      write_errors.push_back(e.what());
    }
  };
  commit([] { Trace::get().close(); });  // a trace of a failed run is kept: it shows the way to the failure
  commit([&] { top.close_outputs(); });  // the --vcd waveform, written as the RTL ran

  RunReport report{spec, cfg, host, top, status, message, wall};
  if (stats_out) {
    stats_out->stream() << stats_json(report).dump(2) << "\n";
    commit([&] { stats_out->commit(); });
  } else if (stats_to_stdout) {
    std::cout << stats_json(report).dump(2) << "\n" << std::flush;
  }
  bool output_dropped = false;
  if (out_file) {
    if (status == "ok") {
      commit([&] { out_file->commit(); });
    } else {
      out_file->discard();
      output_dropped = true;
    }
  }
  // What happened, on standard error: the cause first (a script reads the
  // first line), then the outputs' write errors, then what was not written.
  int code = 0;
  std::string cause;
  if (failure) {
    std::tie(code, cause) = describe_error(failure);
  } else if (status == "host time limit") {
    code = kExitUserError, cause = "fgsim: error: " + message;
  } else if (status == "interrupted") {
    code = kExitInterrupted, cause = "fgsim: interrupted: " + message;
  }
  if (!write_errors.empty() && !failure) code = kExitUserError;
  if (!cause.empty()) std::fprintf(stderr, "%s\n", cause.c_str());
  for (const auto& e : write_errors) std::fprintf(stderr, "fgsim: error: %s\n", e.c_str());
  // Bad input is one line wherever it was found (docs/reliability.md): the
  // configuration checked before the run, or when the workload builds its
  // runtime, or an input file read by the host program; --output is never
  // written then, and saying so would be a second line.
  if (output_dropped && status != "input error")
    std::fprintf(stderr, "fgsim: --output %s not written: the run did not complete (%s)\n",
                 shown(spec.output_file, 200).c_str(), status.c_str());
  // With the stats on standard output the summary goes to standard error.
  // Bad input found inside the run (an input file's content, a key that
  // does not apply to the generator) is its line on standard error alone,
  // as bad input found before the run (docs/reliability.md); the stats, if
  // asked for, are still written.
  if (!spec.quiet && status != "input error") print_summary(stats_to_stdout ? std::cerr : std::cout, report);
  // Watchdog, deadlock, host-time limit, signal: the kernel is paused with
  // threads suspended; unwind them (a failure inside a process was reaped
  // when it happened). After the report: unwinding may free what it reads.
  reaper.reap();
  return code;
}

}  // namespace fg
