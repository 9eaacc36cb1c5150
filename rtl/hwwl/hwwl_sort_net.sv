// SPDX-License-Identifier: Apache-2.0
// Sorting network of the work redistribution unit (Kim & Batten Sec. III-C,
// "local sorting"): ranks N banks by their work count, ascending.
//
// Bitonic sorter of compare-and-swap (CAS) cells: log2(N) merge phases, phase
// p (block 2^(p+1)) having p+1 layers of N/2 cells at distances 2^p ... 1, so
// L = log2(N)(log2(N)+1)/2 layers and N/2 cells per layer. Chosen over
// Batcher's odd-even merge sort (which needs fewer cells: 63 instead of 80 for
// N = 16) because every layer is the same N/2 cells with a regular wiring
// rule, which makes the Stages pipelining uniform and the generate code short.
//
//   N = 8, layers 0..5 (cell = (i, i^d), arrow = ascending/descending):
//   phase 0 (d=1):        (0,1)^ (2,3)v (4,5)^ (6,7)v
//   phase 1 (d=2, d=1):   (0,2)^ (1,3)^ (4,6)v (5,7)v | (0,1)^ (2,3)^ (4,5)v (6,7)v
//   phase 2 (d=4,2,1):    (0,4)^ (1,5)^ (2,6)^ (3,7)^ | (0,2)^ ... | (0,1)^ ...
//
// A CAS cell orders two elements {key, index}: the index (the input position)
// breaks ties, so the output order is total and equal to the golden model's.
//
// Stages pipeline registers are spread evenly over the L layers (0 =
// combinational): layer l belongs to segment floor(l * Stages / L), and a
// register closes every segment but the last. A valid bit travels with the
// data: en_i starts a sort, valid_o marks its result Stages cycles later.
// While a segment's valid bit is low its outputs are zero (operand isolation:
// the WRU needs a ranking only every Interval cycles, so the network does not
// toggle in between; the Verilated model skips the segment's evaluation).
module hwwl_sort_net #(
  parameter int unsigned N        = 16,  // inputs, a power of two >= 2
  parameter int unsigned KeyWidth = 6,   // bits per key (bank count)
  parameter int unsigned Stages   = 0,   // pipeline registers (0 .. L)
  localparam int unsigned IdxWidth  = $clog2(N),
  localparam int unsigned ElemWidth = KeyWidth + IdxWidth
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,  // synchronous reset, active low
  input  logic                  en_i,     // sort keys_i (result valid Stages cycles later)
  input  logic [N*KeyWidth-1:0] keys_i,   // key of input i at [i*KeyWidth +: KeyWidth]
  output logic                  valid_o,  // keys_o and perm_o hold a result (else zero)
  output logic [N*KeyWidth-1:0] keys_o,   // keys in ascending order (rank r at [r*KeyWidth +: ...])
  output logic [N*IdxWidth-1:0] perm_o    // input index of rank r at [r*IdxWidth +: IdxWidth]
);
  localparam int unsigned LogN   = $clog2(N);
  localparam int unsigned Layers = LogN * (LogN + 1) / 2;
  localparam int unsigned VecWidth = N * ElemWidth;

  // y = the layers of segment seg applied to x. Element i at [i*ElemWidth +: ElemWidth].
  // (A task, not a function: the Verilated model then evaluates it only where
  // it is called, inside the valid branches below.)
  task automatic run_segment(input logic [VecWidth-1:0] x, input int unsigned seg, output logic [VecWidth-1:0] y);
    logic [VecWidth-1:0]  v;
    logic [ElemWidth-1:0] a, b;
    logic                 asc, swap;
    v = x;
    for (int unsigned p = 0; p < LogN; p++) begin
      for (int unsigned q = 0; q <= p; q++) begin
        if (((p * (p + 1) / 2 + q) * Stages) / Layers == seg) begin  // layer in this segment
          for (int unsigned i = 0; i < N; i++) begin
            // CAS cell (i, i + d), d = 2^(p-q), ascending in even 2^(p+1) blocks.
            if ((i & (1 << (p - q))) == 0) begin
              a    = v[i*ElemWidth +: ElemWidth];
              b    = v[(i + (1 << (p - q)))*ElemWidth +: ElemWidth];
              asc  = ((i >> (p + 1)) & 1) == 0;
              swap = asc ? (a > b) : (a < b);
              v[i*ElemWidth +: ElemWidth]                  = swap ? b : a;
              v[(i + (1 << (p - q)))*ElemWidth +: ElemWidth] = swap ? a : b;
            end
          end
        end
      end
    end
    y = v;
  endtask

  // Elements {key, index} of the inputs.
  task automatic elements(input logic [N*KeyWidth-1:0] keys, output logic [VecWidth-1:0] e);
    for (int unsigned i = 0; i < N; i++) e[i*ElemWidth +: ElemWidth] = {keys[i*KeyWidth +: KeyWidth], IdxWidth'(i)};
  endtask

  logic [VecWidth-1:0] res;  // output of the last segment
  if (Stages == 0) begin : gen_comb
    always_comb begin
      logic [VecWidth-1:0] e;
      e   = '0;
      res = '0;
      if (en_i) begin
        elements(keys_i, e);
        run_segment(e, 0, res);
      end
    end
    assign valid_o = en_i;
  end else begin : gen_pipe
    // Register s (at [s*VecWidth +: VecWidth]) closes segment s.
    logic [Stages*VecWidth-1:0] pipe_d, pipe_q;
    logic [Stages-1:0]          v_q;
    always_comb begin
      logic [VecWidth-1:0] e;
      e      = '0;
      pipe_d = '0;
      res    = '0;
      if (en_i) begin
        elements(keys_i, e);
        run_segment(e, 0, pipe_d[0 +: VecWidth]);
      end
      for (int unsigned s = 1; s < Stages; s++) begin
        if (v_q[s-1]) run_segment(pipe_q[(s-1)*VecWidth +: VecWidth], s, pipe_d[s*VecWidth +: VecWidth]);
      end
      if (v_q[Stages-1]) run_segment(pipe_q[(Stages-1)*VecWidth +: VecWidth], Stages, res);
    end
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        pipe_q <= '0;
        v_q    <= '0;
      end else begin
        pipe_q <= pipe_d;
        v_q    <= Stages'({v_q, en_i});
      end
    end
    assign valid_o = v_q[Stages-1];
  end

  for (genvar r = 0; r < N; r++) begin : gen_out
    assign keys_o[r*KeyWidth +: KeyWidth] = res[r*ElemWidth + IdxWidth +: KeyWidth];
    assign perm_o[r*IdxWidth +: IdxWidth] = res[r*ElemWidth +: IdxWidth];
  end

`ifndef SYNTHESIS
  initial begin
    assert (N >= 2 && (N & (N - 1)) == 0) else $fatal(1, "hwwl_sort_net: N must be a power of two >= 2");
    assert (Stages <= Layers) else $fatal(1, "hwwl_sort_net: Stages must not exceed the layer count");
  end
`endif
endmodule
