#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Reproduces results.md / results.json: builds the firmware steps for every
# ISA and counts every step dynamically (valgrind lackey for x86-64, the
# interpreter in fwcount.py for AArch64 and RV64). Needs gcc, clang/lld 14
# (with the AArch64 and RISC-V targets), llvm-objdump, valgrind, python3.
set -e
cd "$(dirname "$0")"
./build.sh
mkdir -p out
python3 count.py
