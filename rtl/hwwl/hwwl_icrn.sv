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
// greedy bit is clear (never back to the source core). Inputs are scanned
// from a round-robin pointer that advances every cycle; outputs from a second
// pointer that moves past the last output granted, so that successive work
// IDs go to successive destinations whatever the rhythm of the injections
// (a single per-cycle pointer, with injections every Interval cycles, sent
// every ID of a lone donor to cores of one parity when Interval and NumCores
// share a factor). A work ID waits (backpressure) when no destination takes
// it; nothing is ever dropped. With one core there is no destination: the hub
// takes no injection (a donated ID would wait in its input register forever).
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
  logic [IdxWidth-1:0]         rr_q, rr_d;    // inputs: every cycle
  logic [IdxWidth-1:0]         orr_q, orr_d;  // outputs: past the last grant
  logic [NumCores-1:0]         taken, moved;
  logic [IdxWidth-1:0]         src [NumCores];

  // Matching: outputs scanned from orr_q, each output's inputs from rr_q.
  always_comb begin
    int unsigned o, i;
    taken = '0;
    moved = '0;
    orr_d = orr_q;
    for (int unsigned c = 0; c < NumCores; c++) src[c] = '0;
    for (int unsigned oo = 0; oo < NumCores; oo++) begin
      o = (32'(orr_q) + oo) % NumCores;
      for (int unsigned ii = 0; ii < NumCores; ii++) begin
        i = (32'(rr_q) + ii) % NumCores;
        if ((!out_v_q[o] || eject_ready_i[o]) && !greedy_i[o] && !moved[o] && in_v_q[i] && !taken[i] && i != o) begin
          moved[o] = 1'b1;
          taken[i] = 1'b1;
          src[o]   = IdxWidth'(i);
          orr_d    = IdxWidth'((o + 1) % NumCores);
        end
      end
    end
  end

  assign inject_ready_o = (NumCores > 1) ? (~in_v_q | taken) : '0;
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

`ifdef FORMAL
  // Formal properties, proved by k-induction (tools/formal.sh; docs/worklist-rtl.md, "Liveness").
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);

  // Conservation: the work IDs held change only by accepted injections and
  // ejections (nothing lost, nothing duplicated).
  logic [IdxWidth+1:0] f_expect, f_held, f_in, f_out;
  always @(*) begin
    f_held = '0;
    f_in   = '0;
    f_out  = '0;
    for (int unsigned c = 0; c < NumCores; c++) begin
      f_held = f_held + (IdxWidth+2)'(in_v_q[c]) + (IdxWidth+2)'(out_v_q[c]);
      f_in   = f_in + (IdxWidth+2)'(inject_valid_i[c] && inject_ready_o[c]);
      f_out  = f_out + (IdxWidth+2)'(out_v_q[c] && eject_ready_i[c]);
    end
  end
  always @(posedge clk_i) f_expect <= !rst_ni ? '0 : f_expect + f_in - f_out;
`ifndef F_NO_CONS
  always @(*) if (f_past_valid && rst_ni) assert (f_held == f_expect);
`endif

  // A matched output takes exactly one held input, never its own core's.
  always @(*) if (f_past_valid && rst_ni) begin
    for (int unsigned o = 0; o < NumCores; o++) begin
      if (moved[o]) begin
        assert (in_v_q[src[o]] && taken[src[o]] && 32'(src[o]) != o);
        assert (!greedy_i[o] && (!out_v_q[o] || eject_ready_i[o]));
        for (int unsigned p = 0; p < NumCores; p++) if (p != o && moved[p]) assert (src[p] != src[o]);
      end
    end
    for (int unsigned i = 0; i < NumCores; i++) begin
      if (taken[i]) assert (in_v_q[i]);
    end
  end

  // One tracked work ID (an arbitrary injection, anyseq): it stays intact in
  // the register it is in and leaves with its value, never to its source.
  (* anyseq *) logic f_pick;
  logic                f_trk, f_at_out;
  logic [IdxWidth-1:0] f_pos, f_srcc;
  logic [IdWidth-1:0]  f_val;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_trk <= 1'b0;
    end else if (!f_trk) begin
      for (int unsigned c = 0; c < NumCores; c++) begin
        if (!f_trk && f_pick && inject_valid_i[c] && inject_ready_o[c]) begin
          f_trk    <= 1'b1;
          f_at_out <= 1'b0;
          f_pos    <= IdxWidth'(c);
          f_srcc   <= IdxWidth'(c);
          f_val    <= inject_id_i[c*IdWidth +: IdWidth];
        end
      end
    end else if (!f_at_out && taken[f_pos]) begin
      for (int unsigned o = 0; o < NumCores; o++) begin
        if (moved[o] && src[o] == f_pos) begin
          f_at_out <= 1'b1;
          f_pos    <= IdxWidth'(o);
        end
      end
    end else if (f_at_out && eject_ready_i[f_pos]) begin
      f_trk <= 1'b0;
    end
  end
`ifndef F_NO_TRK
  always @(*) if (f_past_valid && rst_ni && f_trk) begin
    if (!f_at_out) assert (in_v_q[f_pos] && in_id_q[32'(f_pos)*IdWidth +: IdWidth] == f_val && f_pos == f_srcc);
    else assert (out_v_q[f_pos] && out_id_q[32'(f_pos)*IdWidth +: IdWidth] == f_val && f_pos != f_srcc);
    assert (32'(f_pos) < NumCores && 32'(f_srcc) < NumCores);
  end
`endif

  // Bounded delivery: a held input ID leaves its register within NumCores
  // cycles during which some other core can take IDs (not greedy, output
  // register free or being emptied): the round-robin pointer reaches it.
  logic [7:0] f_wait [NumCores];
  for (genvar i = 0; i < NumCores; i++) begin : g_f_wait
    logic avail;
    always @(*) begin
      avail = 1'b0;
      for (int unsigned o = 0; o < NumCores; o++)
        if (o != i && !greedy_i[o] && (!out_v_q[o] || eject_ready_i[o])) avail = 1'b1;
    end
    always @(posedge clk_i) f_wait[i] <= (!rst_ni || !in_v_q[i] || taken[i] || !avail) ? 8'd0 : f_wait[i] + 8'd1;
`ifndef F_NO_WAIT
    always @(*) if (f_past_valid && rst_ni) assert (32'(f_wait[i]) < NumCores);
`endif
  end
  always @(*) if (f_past_valid && rst_ni) assert (32'(rr_q) < NumCores && 32'(orr_q) < NumCores);
`endif

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      in_v_q   <= '0;
      out_v_q  <= '0;
      in_id_q  <= '0;
      out_id_q <= '0;
      rr_q     <= '0;
      orr_q    <= '0;
    end else begin
      in_v_q   <= in_v_d;
      out_v_q  <= out_v_d;
      in_id_q  <= in_id_d;
      out_id_q <= out_id_d;
      rr_q     <= rr_d;
      orr_q    <= orr_d;
    end
  end
endmodule
