#!/usr/bin/env bash
# k-induction proof of the worklist bank's properties (rtl/hwwl/hwwl_bank.sv,
# `ifdef FORMAL`) with Yosys and yosys-smtbmc + z3: a base case (bounded model
# check of K steps from reset) and an induction step of K steps.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
depth="${DEPTH:-8}"
k="${K:-12}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
yosys -q -p "read_verilog -formal -DSYNTHESIS -sv $here/rtl/hwwl/hwwl_pkg.sv $here/rtl/hwwl/hwwl_bank.sv;
             chparam -set Depth $depth -set IdWidth 8 -set Threshold 3 hwwl_bank;
             prep -top hwwl_bank; memory_map; opt -fast; async2sync; dffunmap; write_smt2 -wires $work/bank.smt2"
echo "formal: hwwl_bank Depth=$depth IdWidth=8, k=$k"
yosys-smtbmc -s z3 --presat -t "$k" "$work/bank.smt2" | tail -2
yosys-smtbmc -s z3 --presat -i -t "$k" "$work/bank.smt2" | tail -2
echo "formal: base case and induction passed"
