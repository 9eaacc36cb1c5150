// SPDX-License-Identifier: Apache-2.0
// Inter-core redistribution network (Kim & Batten Sec. III-C): a tree with a
// hub at its root. Cores are the leaves; a work ID takes two hops, core ->
// hub input register -> hub output register of the destination core.
//
//              +----------------- hub -----------------+
//   core 0 --> | in[0] --+                   +--> out[0] | --> core 0
//   core 1 --> | in[1] --+--- N x N match ---+--> out[1] | --> core 1
//     ...      |  ...                             ...    |     ...
//   core N-1-> | in[N-1]-+                   +--> out[N-1]| --> core N-1
//              +----------------------------------------+
//
// Each core can inject one work ID and receive one per cycle. Each cycle the
// hub moves input registers to free output registers of cores whose global
// greedy bit is clear (never back to the source core), scanning outputs and
// inputs from a round-robin pointer that advances every cycle. A work ID
// waits (backpressure) when no destination takes it; nothing is ever dropped.
// With more cores than one hub should serve, hubs would form deeper levels of
// the tree; this block is the single-level tree the paper's 4..16 cores use.
module hwwl_icrn #(
  parameter int unsigned NumCores = 4,   // cores (>= 1)
  parameter int unsigned IdWidth  = 24,  // bits per work ID
  localparam int unsigned IdxWidth = (NumCores > 1) ? $clog2(NumCores) : 1
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,  // synchronous reset, active low
  input  logic [NumCores-1:0]           greedy_i,        // core's global greedy bit
  input  logic [NumCores-1:0]           inject_valid_i,  // core offers a work ID
  input  logic [NumCores*IdWidth-1:0]   inject_id_i,     // the work ID of core c at [c*IdWidth +: IdWidth]
  output logic [NumCores-1:0]           inject_ready_o,  // hub input register free (or emptied this cycle)
  output logic [NumCores-1:0]           eject_valid_o,   // a work ID waits for core c
  output logic [NumCores*IdWidth-1:0]   eject_id_o,      // that work ID
  input  logic [NumCores-1:0]           eject_ready_i,   // core c takes it
  output logic                          busy_o           // some work ID is in the network
);
  logic [NumCores-1:0]         in_v_q, in_v_d, out_v_q, out_v_d;
  logic [NumCores*IdWidth-1:0] in_id_q, in_id_d, out_id_q, out_id_d;
  logic [IdxWidth-1:0]         rr_q, rr_d;
  logic [NumCores-1:0]         taken, moved;
  logic [IdxWidth-1:0]         src [NumCores];

  // Matching: outputs and inputs scanned from the round-robin pointer.
  always_comb begin
    int unsigned o, i;
    taken = '0;
    moved = '0;
    for (int unsigned c = 0; c < NumCores; c++) src[c] = '0;
    for (int unsigned oo = 0; oo < NumCores; oo++) begin
      o = (32'(rr_q) + oo) % NumCores;
      for (int unsigned ii = 0; ii < NumCores; ii++) begin
        i = (32'(rr_q) + ii) % NumCores;
        if ((!out_v_q[o] || eject_ready_i[o]) && !greedy_i[o] && !moved[o] && in_v_q[i] && !taken[i] && i != o) begin
          moved[o] = 1'b1;
          taken[i] = 1'b1;
          src[o]   = IdxWidth'(i);
        end
      end
    end
  end

  assign inject_ready_o = ~in_v_q | taken;
  assign eject_valid_o  = out_v_q;
  assign eject_id_o     = out_id_q;
  assign busy_o         = |in_v_q || |out_v_q;
  assign rr_d           = IdxWidth'((32'(rr_q) + 1) % NumCores);

  for (genvar c = 0; c < NumCores; c++) begin : gen_next
    logic accept;
    assign accept = inject_valid_i[c] && inject_ready_o[c];
    assign in_v_d[c] = (in_v_q[c] && !taken[c]) || accept;
    assign in_id_d[c*IdWidth +: IdWidth] = accept ? inject_id_i[c*IdWidth +: IdWidth] : in_id_q[c*IdWidth +: IdWidth];
    assign out_v_d[c] = moved[c] || (out_v_q[c] && !eject_ready_i[c]);
    assign out_id_d[c*IdWidth +: IdWidth] = moved[c] ? in_id_q[32'(src[c])*IdWidth +: IdWidth]
                                                     : out_id_q[c*IdWidth +: IdWidth];
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      in_v_q   <= '0;
      out_v_q  <= '0;
      in_id_q  <= '0;
      out_id_q <= '0;
      rr_q     <= '0;
    end else begin
      in_v_q   <= in_v_d;
      out_v_q  <= out_v_d;
      in_id_q  <= in_id_d;
      out_id_q <= out_id_d;
      rr_q     <= rr_d;
    end
  end
endmodule
