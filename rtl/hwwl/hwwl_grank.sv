// SPDX-License-Identifier: Apache-2.0
// Global ranking of the global sorting-based redistribution scheme
// ("gsorting", Kim & Batten Sec. III-C, Fig. 6): the monolithic unit that
// ranks every bank of every core by its pull-side count and marks the fuller
// half globally greedy. A bank is globally greedy when its count is above the
// largest count of the lower half, ties going to the lower half (so equally
// full banks are never greedy), the golden model's rule (hwwl::global_greedy,
// models/hwwl). Computed here without sorting: bank b is greedy iff at least
// K = max(NumBanks/2, 1) banks hold strictly less than it. (With the counts
// ascending, s[0..N-1], the model's median is s[K-1]; count[b] > s[K-1] iff
// the K smallest are all below count[b].)
//
// One cycle, combinational: NumBanks * (NumBanks - 1) comparators and a
// population count per bank. This is the block the paper calls unrealistic
// for its size: it grows with the square of the banks of the whole GPU, where
// lsorting's per-core networks grow with the cores (docs/synthesis.md).
module hwwl_grank #(
  parameter int unsigned NumBanks = 64,  // banks of all cores (NumCores * Lanes), >= 1
  parameter int unsigned CntWidth = 6    // bits of a bank count
) (
  input  logic [NumBanks*CntWidth-1:0] counts_i,  // pull-side count of each bank (core-major)
  output logic [NumBanks-1:0]          greedy_o   // bank in the global upper half
);
  localparam int unsigned RankWidth = $clog2(NumBanks + 1);
  localparam int unsigned K = (NumBanks / 2 > 0) ? NumBanks / 2 : 1;

  for (genvar b = 0; b < NumBanks; b++) begin : gen_bank
    logic [NumBanks-1:0]  below;  // bank j holds less than bank b
    logic [RankWidth-1:0] n_below;
    always_comb begin
      for (int unsigned j = 0; j < NumBanks; j++) begin
        below[j] = counts_i[j*CntWidth +: CntWidth] < counts_i[b*CntWidth +: CntWidth];
      end
      n_below     = RankWidth'($countones(below));
      greedy_o[b] = n_below >= RankWidth'(K);
    end
  end
`ifndef SYNTHESIS
  initial begin
    assert (NumBanks >= 1) else $fatal(1, "hwwl_grank: NumBanks must be >= 1");
  end
`endif
endmodule
