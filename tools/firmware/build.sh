#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds the firmware steps and the harness for x86-64 (gcc, clang), AArch64 and RV64 (clang).
set -e
cd "$(dirname "$0")"
FW="-O2 -std=c11 -Wall -Wextra -mgeneral-regs-only"
H="-O2 -std=c11 -fno-builtin -fno-vectorize -fno-slp-vectorize"
A64="--target=aarch64-linux-gnu -mcpu=cortex-a55"
RV="--target=riscv64-linux-gnu -march=rv64ima -mabi=lp64"
mkdir -p build
gcc   $FW -fno-pie -c firmware_steps.c -o build/fs_x86gcc.o
gcc   -O2 -std=c11 -fno-builtin -fno-tree-vectorize -mgeneral-regs-only -fno-pie -DHOSTED -c harness.c -o build/h_x86gcc.o
gcc   -no-pie -o build/run_x86gcc build/fs_x86gcc.o build/h_x86gcc.o
clang $FW -fno-pie -c firmware_steps.c -o build/fs_x86clang.o
clang $H -mgeneral-regs-only -fno-pie -DHOSTED -c harness.c -o build/h_x86clang.o
clang -no-pie -o build/run_x86clang build/fs_x86clang.o build/h_x86clang.o
clang $A64 -ffreestanding -fno-pic $FW -c firmware_steps.c -o build/fs_a64.o
clang $A64 -ffreestanding -fno-pic $H -mgeneral-regs-only -c harness.c -o build/h_a64.o
ld.lld -static -e run_scenario -o build/run_a64 build/fs_a64.o build/h_a64.o
# rv64ima has no FP/vector registers: no -mgeneral-regs-only needed (clang ignores it for RISC-V)
clang $RV -ffreestanding -fno-pic -O2 -std=c11 -Wall -Wextra -c firmware_steps.c -o build/fs_rv64.o
clang $RV -ffreestanding -fno-pic $H -c harness.c -o build/h_rv64.o
ld.lld -static -e run_scenario -o build/run_rv64 build/fs_rv64.o build/h_rv64.o
# AArch64 at -Os (firmware is often built for size)
clang $A64 -ffreestanding -fno-pic $(echo $FW | sed 's/-O2/-Os/') -c firmware_steps.c -o build/fs_a64os.o
ld.lld -static -e run_scenario -o build/run_a64os build/fs_a64os.o build/h_a64.o
# disassembly of the firmware steps, for reading the counted code
objdump -d --no-show-raw-insn build/fs_x86gcc.o > build/fs_x86gcc.dis
objdump -d --no-show-raw-insn build/fs_x86clang.o > build/fs_x86clang.dis
for t in a64 a64os rv64; do llvm-objdump -d --no-show-raw-insn build/fs_$t.o > build/fs_$t.dis; done
