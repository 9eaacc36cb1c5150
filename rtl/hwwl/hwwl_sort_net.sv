// Sorting network of the work redistribution unit (Kim & Batten Sec. III-C,
// "local sorting"): ranks N banks by their work count, ascending.
//
// Bitonic sorter built from hwwl_cas cells: log2(N) merge phases, phase p
// (block 2^(p+1)) having p+1 layers of N/2 cells at distances 2^p ... 1, so
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
// Elements are {key, index}; the index (the input position) breaks ties, so
// the output order is total and equal to the golden model's. Stages pipeline
// registers are spread evenly over the L layers (0 = combinational).
module hwwl_sort_net #(
  parameter int unsigned N        = 16,  // inputs, a power of two >= 2
  parameter int unsigned KeyWidth = 6,   // bits per key (bank count)
  parameter int unsigned Stages   = 0,   // pipeline registers (0 .. L)
  localparam int unsigned IdxWidth = $clog2(N),
  localparam int unsigned ElemWidth = KeyWidth + IdxWidth
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  input  logic [N*KeyWidth-1:0]    keys_i,   // key of input i at [i*KeyWidth +: KeyWidth]
  output logic [N*KeyWidth-1:0]    keys_o,   // keys in ascending order (rank r at [r*KeyWidth +: ...])
  output logic [N*IdxWidth-1:0]    perm_o    // input index of rank r at [r*IdxWidth +: IdxWidth]
);
  localparam int unsigned LogN = $clog2(N);
  localparam int unsigned Layers = LogN * (LogN + 1) / 2;

  // net[l] is the vector entering layer l; net[Layers] is the output.
  logic [(Layers+1)*N*ElemWidth-1:0] net;

  for (genvar i = 0; i < N; i++) begin : gen_in
    assign net[i*ElemWidth +: ElemWidth] = {keys_i[i*KeyWidth +: KeyWidth], IdxWidth'(i)};
  end

  for (genvar p = 0; p < LogN; p++) begin : gen_phase
    for (genvar q = 0; q <= p; q++) begin : gen_layer
      localparam int unsigned L = p * (p + 1) / 2 + q;  // layer index
      localparam int unsigned D = 1 << (p - q);           // compare distance
      localparam bit Reg = ((L + 1) * Stages / Layers) != (L * Stages / Layers);
      logic [N*ElemWidth-1:0] cmb;
      for (genvar i = 0; i < N; i++) begin : gen_cell
        if ((i & D) == 0) begin : gen_pair
          hwwl_cas #(.Width(ElemWidth)) u_cas (
            .a_i  (net[(L*N + i)*ElemWidth +: ElemWidth]),
            .b_i  (net[(L*N + i + D)*ElemWidth +: ElemWidth]),
            .asc_i(((i >> (p + 1)) & 1) == 0),
            .lo_o (cmb[i*ElemWidth +: ElemWidth]),
            .hi_o (cmb[(i + D)*ElemWidth +: ElemWidth])
          );
        end
      end
      if (Reg) begin : gen_reg
        logic [N*ElemWidth-1:0] q_q;
        always_ff @(posedge clk_i or negedge rst_ni) begin
          if (!rst_ni) q_q <= '0;
          else q_q <= cmb;
        end
        assign net[(L+1)*N*ElemWidth +: N*ElemWidth] = q_q;
      end else begin : gen_wire
        assign net[(L+1)*N*ElemWidth +: N*ElemWidth] = cmb;
      end
    end
  end

  for (genvar r = 0; r < N; r++) begin : gen_out
    assign keys_o[r*KeyWidth +: KeyWidth] = net[(Layers*N + r)*ElemWidth + IdxWidth +: KeyWidth];
    assign perm_o[r*IdxWidth +: IdxWidth] = net[(Layers*N + r)*ElemWidth +: IdxWidth];
  end

`ifndef SYNTHESIS
  initial begin
    assert (N >= 2 && (N & (N - 1)) == 0) else $fatal(1, "hwwl_sort_net: N must be a power of two >= 2");
    assert (Stages <= Layers) else $fatal(1, "hwwl_sort_net: Stages must not exceed the layer count");
  end
`endif
endmodule
