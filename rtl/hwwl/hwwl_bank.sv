// SPDX-License-Identifier: Apache-2.0
// Worklist bank: a FIFO of work IDs with one access port (Kim & Batten
// Sec. III-B: one 1rw SRAM bank per lane), modelled here with flip-flops.
//
// One operation per cycle, by priority:
//   1. pull               (lane)      pull_gnt_o = pull_i & pull partition not empty
//   2. push               (lane)      push_gnt_o = push_i & ~pull_i & push partition not full
//   3. redistribution-in  (WRU)       allowed when ri_ok_o: no lane access granted, pull partition not full
//      redistribution-out (WRU)       allowed when rd_ok_o: no lane access granted, pull partition not empty
//   4. refill             (HVU)       rf_gnt_o = rf_put_i & port not taken by 1-3 &
//                                     (an entry is reserved, or the pull partition is not full;
//                                      in a swap cycle: the side becoming the pull side not full)
// Only a granted access uses the port: a pull on an empty pull partition
// (answered WAIT or DONE from the flags) and a stalled push leave it to the
// WRU. Lanes that wait for work poll every cycle; if their pulls held the
// port, work arriving for them could never enter (docs/worklist-rtl.md,
// "Liveness").
// The WRU never asks one bank to receive and donate in the same cycle (an
// assertion checks), so 3 needs no order between in and out. A request that is
// not granted stalls: the requester keeps it up (grant/stall handshake).
//
// Modes: single-buffered (double_buf_i = 0): one FIFO of Depth entries for
// pulls and pushes. Double-buffered (1): two partitions of Depth/2; pulls and
// redistribution use the pull partition, pushes the other; swap_i exchanges
// them when the pull partition is empty (wlcfg/kernel boundary, Sec. III-A).
// The mode may change only while the bank is empty.
//
// A reception or a refill in the cycle of a swap goes to the side that
// becomes the pull side (it is work of the current round, pullable after the
// swap), so it is allowed when that side is not full.
//
// Virtualization (Kim & Batten Sec. III-D; the HVU itself is outside, in the
// GPU model): a refill writes a work ID loaded from the overflow buffer to the
// pull side in a cycle when the port is free (lowest priority: "written back
// to the HWWL banks over cycles when there is no conflict with work
// redistribution or pushes/pulls"). Interval refills first reserve an entry
// (rsv_i, single mode): reserved entries count as occupied for pushes and
// receptions (full_o, push_full_o), not as work (count_o, greedy_o, needy_o,
// empty_o), and a refill takes a reserved entry if there is one. A reservation
// is not a port access; it is granted when the bank is not full and no other
// access adds an entry this cycle (rsv_ok_o), so the occupancy moves by at
// most one per cycle.
//
//   entries: [0 ............ Depth/2-1][Depth/2 ........... Depth-1]
//            partition 0                partition 1
//   single:  one ring over all entries
//
// Reset is synchronous (rst_ni sampled at the clock edge), as in all hwwl
// blocks: storage and pointers are updated in one clocked process, so that
// the grant decision is computed once per cycle, and Yosys infers a memory
// only from a process without an asynchronous reset. The next state is
// computed inside that process rather than in an always_comb (_d) block: the
// Verilated model evaluates combinational logic that depends on inputs on
// every eval() and again after the clock edge, clocked logic once per cycle
// (docs/worklist-rtl.md, "Simulation speed").
module hwwl_bank #(
  parameter int unsigned IdWidth   = 24,  // bits per work ID
  parameter int unsigned Depth     = 32,  // entries, a power of two >= 2
  parameter int unsigned Threshold = 5,   // greedy when count > Threshold, needy below
  localparam int unsigned CntWidth = $clog2(Depth + 1),
  localparam int unsigned PtrWidth = $clog2(Depth)
) (
  input  logic                clk_i,
  input  logic                rst_ni,        // synchronous, active low
  input  logic                double_buf_i,  // partition mode (change only when empty)
  input  logic                swap_i,        // double mode: swap partitions if pull side is empty
  // Lane side.
  input  logic                pull_i,        // pull request
  output logic                pull_gnt_o,    // pull granted: pull_id_o valid, entry removed
  output logic [IdWidth-1:0]  pull_id_o,     // head of the pull partition (0 when not granted)
  input  logic                push_i,        // push request
  input  logic [IdWidth-1:0]  push_id_i,     // work ID to push
  output logic                push_gnt_o,    // push granted (else stall)
  // Redistribution side (WRU).
  output logic                rd_ok_o,       // a donation would be granted this cycle
  input  logic                rd_take_i,     // donate: remove the head (only when rd_ok_o)
  output logic [IdWidth-1:0]  rd_id_o,       // head of the pull partition (0 when empty)
  output logic                ri_ok_o,       // a reception would be granted this cycle
  input  logic                ri_put_i,      // receive ri_id_i (only when ri_ok_o)
  input  logic [IdWidth-1:0]  ri_id_i,       // work ID received
  // Virtualization side (HVU).
  input  logic                rf_put_i,      // refill: write rf_id_i to the pull side
  input  logic [IdWidth-1:0]  rf_id_i,       // work ID refilled
  output logic                rf_gnt_o,      // refill granted this cycle (else the HVU keeps it)
  input  logic                rsv_i,         // reserve an entry (single mode; only when rsv_ok_o)
  output logic                rsv_ok_o,      // a reservation would be granted this cycle
  output logic                rsv_nz_o,      // reserved entries held
  // Status (from registers).
  output logic [CntWidth-1:0] count_o,       // work IDs in the pull partition
  output logic [CntWidth-1:0] push_count_o,  // work IDs in the push partition (0 in single mode)
  output logic                empty_o,       // count_o == 0
  output logic                full_o,        // pull side full (no reception)
  output logic                push_full_o,   // the side pushes go to is full
  output logic                greedy_o,      // count_o > Threshold
  output logic                needy_o        // count_o < Threshold
);
  localparam int unsigned Half = Depth / 2;

  // Elaboration-time check: the pointers wrap by masking, so Depth must be a
  // power of two (synth.py refuses other values before Yosys runs, too).
  if (Depth < 2 || (Depth & (Depth - 1)) != 0) begin : g_bad_depth
    $error("hwwl_bank: Depth = %0d is not a power of two >= 2", Depth);
  end

  // State is kept per side, as physical entry addresses, so that counts and
  // heads are registers (no mux on double_buf_i): the sorting network and the
  // WRU then depend on state only. Pull side: the single FIFO in single mode,
  // the pull partition in double mode. Push side: the push partition (double
  // mode only; in single mode it tracks the half opposite the pull tail so
  // that it is ready when the mode changes). The full flags are registered for
  // the current mode; they are 0 in both modes while the bank is empty, which
  // is when the mode may change.
  logic [IdWidth-1:0]  mem_q [0:Depth-1];
  logic [PtrWidth-1:0] pl_head_q, pl_tail_q, ps_head_q, ps_tail_q;
  logic [CntWidth-1:0] pl_cnt_q, ps_cnt_q;
  logic                pl_full_q;    // pull side full
  logic                push_full_q;  // the side pushes go to is full
  logic                pl_empty, swapping;
  logic                pl_empty_q;  // registered pl_cnt_q == 0 (the port decision waits on no comparator)
  logic                greedy_q, needy_q;  // of the pull side's count
  logic [CntWidth-1:0] rsv_q;    // reserved entries of the pull side (single mode)
  logic [CntWidth-1:0] occ_q;    // pl_cnt_q + rsv_q: what the full flags compare
  logic                rsv_nz_q; // rsv_q != 0

  // Next entry address within the side's ring: the whole array in single
  // mode, the address's own half in double mode.
  function automatic logic [PtrWidth-1:0] next_addr(input logic [PtrWidth-1:0] a, input logic dbl);
    logic [PtrWidth-1:0] n;
    n = a + 1'b1;
    if (dbl) n[PtrWidth-1] = a[PtrWidth-1];
    next_addr = n;
  endfunction

  // Port arbitration: the grants are functions of the requests and the
  // registered flags empty_o, full_o and push_full_o only (a wrapper may
  // compute them for many banks at once from those flags).
  //   pull_gnt_o = pull_i & ~empty_o
  //   push_gnt_o = push_i & ~pull_i & ~push_full_o
  //   rd_ok_o    = ~pull_gnt_o & ~push_gnt_o & ~empty_o   (= ~pull_i & ~push_gnt_o & ~empty_o)
  //   ri_ok_o    = ~pull_gnt_o & ~push_gnt_o & ~(swapping ? push_full_o : full_o)
  //                with swapping = double_buf_i & swap_i & empty_o
  // The ok outputs never depend on the WRU's take/put, so the WRU can use
  // them without a loop.
  assign pl_empty   = pl_empty_q;
  assign pull_gnt_o = pull_i && !pl_empty;
  assign push_gnt_o = push_i && !pull_i && !push_full_q;
  assign swapping   = double_buf_i && swap_i && pl_empty;
  assign ri_ok_o    = !pull_gnt_o && !push_gnt_o && !(swapping ? push_full_q : pl_full_q);
  assign rd_ok_o    = !pull_gnt_o && !push_gnt_o && !pl_empty;
  // Refill and reservation (HVU): after every other access, from the WRU's
  // requests too (the WRU does not look at them: no loop).
  //   rf_gnt_o = rf_put_i & ~pull_gnt_o & ~push_gnt_o & ~(ri_put_i & ri_ok_o) & ~(rd_take_i & rd_ok_o) &
  //              (swapping ? ~push_full_o : (rsv_nz_o | ~full_o))
  //   rsv_ok_o = ~double_buf_i & ~full_o & ~push_gnt_o & ~(ri_put_i & ri_ok_o) & ~(rf_gnt_o & ~rsv_nz_o)
  assign rf_gnt_o   = rf_put_i && !pull_gnt_o && !push_gnt_o && !(ri_put_i && ri_ok_o) && !(rd_take_i && rd_ok_o) &&
                      (swapping ? !push_full_q : (rsv_nz_q || !pl_full_q));
  assign rsv_ok_o   = !double_buf_i && !pl_full_q && !push_gnt_o && !(ri_put_i && ri_ok_o) &&
                      !(rf_gnt_o && !rsv_nz_q);
  assign pull_id_o  = pull_gnt_o ? mem_q[pl_head_q] : '0;
  assign rd_id_o    = pl_empty ? '0 : mem_q[pl_head_q];

  // Next state, computed in the clocked blocks from the requests (the
  // Verilated model then evaluates it once per cycle, not on every input
  // change). At most one of pull, push, reception and donation happens per
  // cycle. A swap (double mode, pull side empty) exchanges the sides after
  // this cycle's push or reception.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      pl_head_q   <= '0;
      pl_tail_q   <= '0;
      pl_cnt_q    <= '0;
      ps_head_q   <= PtrWidth'(Half);
      ps_tail_q   <= PtrWidth'(Half);
      ps_cnt_q    <= '0;
      pl_full_q   <= 1'b0;
      push_full_q <= 1'b0;
      pl_empty_q  <= 1'b1;
      greedy_q    <= 1'b0;
      needy_q     <= (Threshold > 0);
      rsv_q       <= '0;
      occ_q       <= '0;
      rsv_nz_q    <= 1'b0;
    end else begin
      logic                push, free, rin, rout, rf, rf_new, rsv, pl_in, pl_out, ps_in, swap, up, dn, full_d;
      logic                oc_in, oc_up, oc_dn;
      logic [CntWidth-1:0] ps_cnt, sw_cnt, cnt_p1, cnt_m1, occ_p1, occ_m1, rsv_d;
      push   = push_i && !pull_i && !push_full_q;
      free   = !(pull_i && !pl_empty) && !push;  // no lane access granted: the WRU may use the port
      swap   = swapping;
      rin    = ri_put_i && free && !(swap ? push_full_q : pl_full_q);  // reception (ri_ok_o)
      rout   = rd_take_i && free && !pl_empty;                          // donation (rd_ok_o)
      rf     = rf_put_i && free && !rin && !rout && (swap ? !push_full_q : (rsv_nz_q || !pl_full_q));  // (rf_gnt_o)
      rf_new = rf && !rsv_nz_q;  // a refill into a free entry (else into a reserved one)
      rsv    = rsv_i;  // given only when rsv_ok_o (asserted)
      pl_in  = rin || rf || (push && !double_buf_i);
      pl_out = (pull_i || (rd_take_i && free)) && !pl_empty;
      ps_in  = push && double_buf_i;
      // Occupancy (work + reserved entries): one entry-adding event at most
      // (rsv excludes the others), and pl_out never comes with rin, rf or a push.
      oc_in  = rin || rf_new || (push && !double_buf_i) || rsv;
      oc_up  = oc_in && !pl_out;
      oc_dn  = pl_out && !oc_in;
      occ_p1 = occ_q + 1'b1;
      occ_m1 = occ_q - 1'b1;
      rsv_d  = rsv_q + CntWidth'(rsv) - CntWidth'(rf && rsv_nz_q);
      ps_cnt = ps_cnt_q + CntWidth'(ps_in);
      sw_cnt = ps_cnt + CntWidth'(rin || rf);  // a swap's new pull side: the push side and this cycle's write
      // The flags of the next count, compared on count +/- 1 (from registers
      // only) and then selected: the comparators do not wait for the port
      // decision, which depends on the requests and the empty flag.
      up     = pl_in && !pl_out;
      dn     = pl_out && !pl_in;
      cnt_p1 = pl_cnt_q + 1'b1;
      cnt_m1 = pl_cnt_q - 1'b1;
      // Storage (no reset, SRAM-like), one write port: a push or a reception.
      if (push) mem_q[double_buf_i ? ps_tail_q : pl_tail_q] <= push_id_i;
      else if (rin) mem_q[swap ? ps_tail_q : pl_tail_q] <= ri_id_i;
      else if (rf) mem_q[swap ? ps_tail_q : pl_tail_q] <= rf_id_i;
      // Nothing changes in a cycle without an access, a reservation or a swap.
      if (swap) begin
        // The pull side is empty (no pull or donation this cycle) and becomes
        // the empty push side; the push side, with this cycle's push or
        // reception appended, becomes the pull side.
        pl_head_q   <= ps_head_q;
        pl_tail_q   <= (ps_in || rin || rf) ? next_addr(ps_tail_q, 1'b1) : ps_tail_q;
        pl_cnt_q    <= sw_cnt;
        ps_head_q   <= pl_head_q;
        ps_tail_q   <= pl_tail_q;
        ps_cnt_q    <= '0;
        pl_full_q   <= (sw_cnt == CntWidth'(Half));
        push_full_q <= 1'b0;
        pl_empty_q  <= (sw_cnt == '0);
        greedy_q    <= (sw_cnt > CntWidth'(Threshold));
        needy_q     <= (sw_cnt < CntWidth'(Threshold));
        occ_q       <= sw_cnt;  // no reservations in double mode
      end else if (pl_in || pl_out || ps_in || rsv) begin
        if (double_buf_i) begin
          if (pl_out) pl_head_q <= next_addr(pl_head_q, 1'b1);
          if (pl_in) pl_tail_q <= next_addr(pl_tail_q, 1'b1);
          if (ps_in) ps_tail_q <= next_addr(ps_tail_q, 1'b1);
          ps_cnt_q    <= ps_cnt;
          pl_full_q   <= oc_up ? (occ_p1 == CntWidth'(Half)) : (!oc_dn && pl_full_q);
          push_full_q <= ps_in ? (ps_cnt == CntWidth'(Half)) : push_full_q;
        end else begin
          // Single mode: the push side follows the half opposite the tail.
          if (pl_out) pl_head_q <= pl_head_q + 1'b1;
          if (pl_in) begin
            pl_tail_q <= pl_tail_q + 1'b1;
            ps_head_q <= (pl_tail_q + 1'b1) ^ PtrWidth'(Half);
            ps_tail_q <= (pl_tail_q + 1'b1) ^ PtrWidth'(Half);
          end
          full_d       = oc_up ? (occ_p1 == CntWidth'(Depth)) : (!oc_dn && pl_full_q);
          pl_full_q   <= full_d;
          push_full_q <= full_d;
        end
        pl_cnt_q <= up ? cnt_p1 : (dn ? cnt_m1 : pl_cnt_q);
        occ_q    <= oc_up ? occ_p1 : (oc_dn ? occ_m1 : occ_q);
        rsv_q    <= rsv_d;
        rsv_nz_q <= (rsv_d != '0);
        pl_empty_q <= up ? 1'b0 : (dn ? (cnt_m1 == '0) : pl_empty_q);
        greedy_q <= up ? (cnt_p1 > CntWidth'(Threshold)) : (dn ? (cnt_m1 > CntWidth'(Threshold)) : greedy_q);
        needy_q  <= up ? (cnt_p1 < CntWidth'(Threshold)) : (dn ? (cnt_m1 < CntWidth'(Threshold)) : needy_q);
      end
    end
  end

  assign count_o      = pl_cnt_q;
  assign push_count_o = double_buf_i ? ps_cnt_q : '0;
  assign empty_o      = pl_empty;
  assign full_o       = pl_full_q;
  assign push_full_o  = push_full_q;
  assign greedy_o     = greedy_q;
  assign needy_o      = needy_q;
  assign rsv_nz_o     = rsv_nz_q;

`ifdef FORMAL
  // Formal properties, proved by k-induction (make formal, tools/formal.sh).
  // Single-buffered mode. Proved alone (HWWL_FORMAL_BANK_TOP), the
  // environment is assumed never to ask for redistribution-in and -out
  // together; inside hwwl_core's proof that is asserted instead.
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
`ifdef HWWL_FORMAL_BANK_TOP
  // Proved alone: the environment (a WRU) never asks for both roles.
  always @(*) assume (!double_buf_i);
  always @(*) assume (!(rd_take_i && ri_put_i));
`else
  // Inside a core's proof the WRU is there: its behaviour is checked.
  always @(*) if (f_past_valid && rst_ni) assert (!(rd_take_i && ri_put_i));
`endif

  // What the bank does this cycle, from the requests and the state.
  logic                f_push, f_rin, f_write, f_pop;
  logic [IdWidth-1:0]  f_wdata;
  assign f_push  = push_i && !pull_i && !push_full_q;
  assign f_rin   = ri_put_i && !pull_gnt_o && !f_push && !pl_full_q;
  assign f_write = f_push || f_rin || rf_gnt_o;
  assign f_wdata = f_push ? push_id_i : (f_rin ? ri_id_i : rf_id_i);
  assign f_pop   = (pull_i || (rd_take_i && !f_push)) && !pl_empty;

  always @(*) if (f_past_valid && rst_ni) begin
    assert (pl_cnt_q <= CntWidth'(Depth));                          // never above Depth
    assert ({1'b0, occ_q} == {1'b0, pl_cnt_q} + {1'b0, rsv_q});     // occupancy = work + reserved
    assert (occ_q <= CntWidth'(Depth));                             // reservations never overbook
    assert (rsv_nz_o == (rsv_q != '0));
    assert (pl_tail_q == PtrWidth'(pl_head_q + pl_cnt_q));          // the ring is head .. tail
    assert (empty_o == (count_o == '0));                            // empty consistent with count
    assert (full_o == (occ_q == CntWidth'(Depth)));                 // full: work and reserved entries
    assert (push_full_o == full_o);                                 // single mode: one side
    assert (greedy_o == (count_o > CntWidth'(Threshold)));
    assert (needy_o == (count_o < CntWidth'(Threshold)));
    if (full_o) assert (!push_gnt_o && !ri_ok_o && !rsv_ok_o);      // full: nothing enters
    if (full_o && rf_gnt_o) assert (rsv_nz_o);                      // a refill then takes a reserved entry
    if (count_o == '0) assert (!pull_gnt_o && !rd_ok_o);            // empty: nothing leaves
    // One port access per cycle.
    assert ($countones({pull_gnt_o, push_gnt_o, f_rin, rd_take_i && rd_ok_o, rf_gnt_o}) <= 1);
  end
`ifdef HWWL_FORMAL_BANK_TOP
  always @(*) if (!f_past_valid || !rst_ni || !rsv_ok_o) assume (!rsv_i);  // the HVU reserves only when granted
`else
  always @(*) if (f_past_valid && rst_ni && rsv_i) assert (rsv_ok_o);    // the core grants only what fits
`endif

  // Two tracked work IDs, each an arbitrary value written at an arbitrary
  // time: it stays intact inside the FIFO window, comes out unchanged when it
  // reaches the head, and the one written first comes out first.
  (* anyconst *) logic [IdWidth-1:0] f_id_a, f_id_b;
  (* anyseq *)   logic f_pick_a, f_pick_b;
  logic                f_trk_a, f_trk_b, f_a_first;
  logic [PtrWidth-1:0] f_addr_a, f_addr_b, f_off_a, f_off_b;
  assign f_off_a = f_addr_a - pl_head_q;
  assign f_off_b = f_addr_b - pl_head_q;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_trk_a <= 1'b0;
      f_trk_b <= 1'b0;
    end else begin
      if (!f_trk_a && f_write && f_pick_a && f_wdata == f_id_a) begin
        f_trk_a <= 1'b1;
        f_addr_a <= pl_tail_q;
        f_a_first <= !f_trk_b;
      end else if (f_trk_a && f_pop && pl_head_q == f_addr_a) begin
        f_trk_a <= 1'b0;
      end
      if (!f_trk_b && f_write && f_pick_b && !f_pick_a && f_wdata == f_id_b) begin
        f_trk_b <= 1'b1;
        f_addr_b <= pl_tail_q;
        f_a_first <= f_trk_a;  // a came first iff it is already tracked
      end else if (f_trk_b && f_pop && pl_head_q == f_addr_b) begin
        f_trk_b <= 1'b0;
      end
    end
  end

  always @(*) if (f_past_valid && rst_ni) begin
    if (f_trk_a) begin
      assert (mem_q[f_addr_a] == f_id_a);          // intact
      assert (CntWidth'(f_off_a) < pl_cnt_q);      // inside the FIFO window
      if (f_pop && pl_head_q == f_addr_a) assert ((pull_gnt_o ? pull_id_o : rd_id_o) == f_id_a);
    end
    if (f_trk_b) begin
      assert (mem_q[f_addr_b] == f_id_b);
      assert (CntWidth'(f_off_b) < pl_cnt_q);
      if (f_pop && pl_head_q == f_addr_b) assert ((pull_gnt_o ? pull_id_o : rd_id_o) == f_id_b);
    end
    if (f_trk_a && f_trk_b) begin
      assert (f_addr_a != f_addr_b);
      assert (f_a_first ? (f_off_a < f_off_b) : (f_off_b < f_off_a));  // in order
    end
  end
`endif

`ifndef SYNTHESIS
  // Parameters.
  initial begin
    assert (Depth >= 2 && (Depth & (Depth - 1)) == 0) else $fatal(1, "hwwl_bank: Depth must be a power of two >= 2");
  end
  // The WRU gives a bank one role per cycle.
  a_one_role: assert property (@(posedge clk_i) disable iff (!rst_ni) !(rd_take_i && ri_put_i))
    else $error("hwwl_bank: redistribution-in and -out in the same cycle");
  a_count_bound: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  pl_cnt_q <= CntWidth'(Depth) && ps_cnt_q <= CntWidth'(Half) &&
                                  occ_q <= CntWidth'(Depth))
    else $error("hwwl_bank: count above capacity");
  // Reservations are for single mode (interval refills), and the mode
  // changes only while the bank holds neither work nor reservations.
  a_rsv_single: assert property (@(posedge clk_i) disable iff (!rst_ni) rsv_i |-> (rsv_ok_o && !double_buf_i))
    else $error("hwwl_bank: reservation not granted, or in double mode");
  a_rsv_mode: assert property (@(posedge clk_i) disable iff (!rst_ni) double_buf_i |-> !rsv_nz_q)
    else $error("hwwl_bank: double mode with reserved entries");
`endif
endmodule
