// Worklist bank: a FIFO of work IDs with one access port (Kim & Batten
// Sec. III-B: one 1rw SRAM bank per lane), modelled here with flip-flops.
//
// One operation per cycle, by priority:
//   1. pull               (lane)      pull_gnt_o = pull_i & pull partition not empty
//   2. push               (lane)      push_gnt_o = push_i & ~pull_i & push partition not full
//   3. redistribution-in  (WRU)       allowed when ri_ok_o: no lane request, pull partition not full
//      redistribution-out (WRU)       allowed when rd_ok_o: no lane request, pull partition not empty
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
//   entries: [0 ............ Depth/2-1][Depth/2 ........... Depth-1]
//            partition 0                partition 1
//   single:  one ring over all entries (partition 0 with capacity Depth)
module hwwl_bank #(
  parameter int unsigned IdWidth   = 24,  // bits per work ID
  parameter int unsigned Depth     = 32,  // entries, a power of two >= 2
  parameter int unsigned Threshold = 5,   // greedy when count > Threshold
  localparam int unsigned CntWidth = $clog2(Depth + 1),
  localparam int unsigned PtrWidth = $clog2(Depth)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
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
  // Status (from registers).
  output logic [CntWidth-1:0] count_o,       // work IDs in the pull partition
  output logic [CntWidth-1:0] push_count_o,  // work IDs in the push partition (0 in single mode)
  output logic                empty_o,       // count_o == 0
  output logic                greedy_o       // count_o > Threshold
);
  localparam int unsigned Half = Depth / 2;

  logic [IdWidth-1:0]  mem_q [0:Depth-1];
  // Ring state per partition (1 is unused in single mode).
  logic [PtrWidth-1:0] head0_q, head0_d, head1_q, head1_d;
  logic [CntWidth-1:0] cnt0_q, cnt0_d, cnt1_q, cnt1_d;
  logic                sel_q, sel_d;  // pull partition in double mode

  logic                pull_p, push_p;  // partition index of each side
  logic [CntWidth-1:0] cap;             // capacity of one partition
  logic [PtrWidth-1:0] wrap;            // cap - 1 as an index mask
  logic [PtrWidth-1:0] pull_head, push_head;
  logic [CntWidth-1:0] pull_cnt, push_cnt;
  logic [PtrWidth-1:0] pull_addr, push_addr, rin_addr;
  logic                pull_do, push_do, rin_do, rout_do;

  always_comb begin
    pull_p    = double_buf_i ? sel_q : 1'b0;
    push_p    = double_buf_i ? ~sel_q : 1'b0;
    cap       = double_buf_i ? CntWidth'(Half) : CntWidth'(Depth);
    wrap      = double_buf_i ? PtrWidth'(Half - 1) : PtrWidth'(Depth - 1);
    pull_head = pull_p ? head1_q : head0_q;
    push_head = push_p ? head1_q : head0_q;
    pull_cnt  = pull_p ? cnt1_q : cnt0_q;
    push_cnt  = push_p ? cnt1_q : cnt0_q;
  end

  // Entry address: partition base + (position within the ring).
  function automatic logic [PtrWidth-1:0] addr_of(input logic part, input logic dbl,
                                                   input logic [PtrWidth-1:0] pos,
                                                   input logic [PtrWidth-1:0] mask);
    logic [PtrWidth-1:0] base;
    base = (dbl && part) ? PtrWidth'(Half) : '0;
    addr_of = base | (pos & mask);
  endfunction

  always_comb begin
    pull_addr = addr_of(pull_p, double_buf_i, pull_head, wrap);
    push_addr = addr_of(push_p, double_buf_i, push_head + PtrWidth'(push_cnt), wrap);
    rin_addr  = addr_of(pull_p, double_buf_i, pull_head + PtrWidth'(pull_cnt), wrap);
  end

  // Port arbitration. The ok outputs depend on lane requests and state only
  // (never on the WRU's take/put), so the WRU can use them without a loop.
  always_comb begin
    pull_gnt_o = pull_i && (pull_cnt != '0);
    push_gnt_o = push_i && !pull_i && (push_cnt != cap);
    ri_ok_o    = !pull_i && !push_i && (pull_cnt != cap);
    rd_ok_o    = !pull_i && !push_i && (pull_cnt != '0);
    pull_id_o  = pull_gnt_o ? mem_q[pull_addr] : '0;
    rd_id_o    = (pull_cnt != '0) ? mem_q[pull_addr] : '0;
  end

  always_comb begin
    pull_do = pull_gnt_o;
    push_do = push_gnt_o;
    rin_do  = ri_put_i && ri_ok_o;
    rout_do = rd_take_i && rd_ok_o;
  end

  // Next state of pointers, counts and the partition select.
  logic [PtrWidth-1:0] pull_head_d;
  logic [CntWidth-1:0] pull_cnt_d, push_cnt_d;
  always_comb begin
    pull_head_d = pull_head;
    pull_cnt_d  = pull_cnt;
    push_cnt_d  = push_cnt;
    if (pull_do || rout_do) begin
      pull_head_d = (pull_head + 1'b1) & wrap;
      pull_cnt_d  = pull_cnt - 1'b1;
    end
    if (rin_do) pull_cnt_d = pull_cnt + 1'b1;
    if (push_do) push_cnt_d = push_cnt + 1'b1;
    // In single mode both sides are partition 0 and only one of the updates happens.
    head0_d = head0_q;
    head1_d = head1_q;
    cnt0_d  = cnt0_q;
    cnt1_d  = cnt1_q;
    if (push_p) cnt1_d = push_cnt_d;
    else if (push_do) cnt0_d = push_cnt_d;
    if (pull_p) begin
      head1_d = pull_head_d;
      cnt1_d  = pull_cnt_d;
    end else begin
      head0_d = pull_head_d;
      if (!push_do) cnt0_d = pull_cnt_d;
    end
    sel_d = sel_q;
    if (double_buf_i && swap_i && (pull_cnt == '0)) sel_d = ~sel_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head0_q <= '0;
      head1_q <= '0;
      cnt0_q  <= '0;
      cnt1_q  <= '0;
      sel_q   <= 1'b0;
    end else begin
      head0_q <= head0_d;
      head1_q <= head1_d;
      cnt0_q  <= cnt0_d;
      cnt1_q  <= cnt1_d;
      sel_q   <= sel_d;
    end
  end

  // Storage: no reset (SRAM-like); written by a push or a reception.
  always_ff @(posedge clk_i) begin
    if (push_do) mem_q[push_addr] <= push_id_i;
    else if (rin_do) mem_q[rin_addr] <= ri_id_i;
  end

  always_comb begin
    count_o      = pull_cnt;
    push_count_o = double_buf_i ? push_cnt : '0;
    empty_o      = (pull_cnt == '0);
    greedy_o     = (pull_cnt > CntWidth'(Threshold));
  end

`ifdef FORMAL
  // Formal properties, proved by k-induction with yosys-smtbmc (make formal,
  // tools/formal.sh). Single-buffered mode; the environment never asks for
  // redistribution-in and -out together.
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(*) assume (!double_buf_i);
  always @(*) assume (!(rd_take_i && ri_put_i));

  always @(*) if (f_past_valid && rst_ni) begin
    assert (cnt0_q <= CntWidth'(Depth));                        // never above Depth
    assert (empty_o == (count_o == '0));                        // empty consistent with count
    assert (greedy_o == (count_o > CntWidth'(Threshold)));
    if (count_o == CntWidth'(Depth)) assert (!push_gnt_o && !ri_ok_o);  // full: nothing enters
    if (count_o == '0) assert (!pull_gnt_o && !rd_ok_o);                // empty: nothing leaves
  end

  // Two tracked work IDs, each an arbitrary value written at an arbitrary
  // time: it stays intact inside the FIFO window, comes out unchanged when it
  // reaches the head, and the one written first comes out first.
  logic                f_write;
  logic [PtrWidth-1:0] f_waddr;
  logic [IdWidth-1:0]  f_wdata;
  logic                f_pop;
  assign f_write = push_do || rin_do;
  assign f_waddr = push_do ? push_addr : rin_addr;
  assign f_wdata = push_do ? push_id_i : ri_id_i;
  assign f_pop   = pull_do || rout_do;

  (* anyconst *) logic [IdWidth-1:0] f_id_a, f_id_b;
  (* anyseq *)   logic f_pick_a, f_pick_b;
  logic                f_trk_a, f_trk_b, f_a_first;
  logic [PtrWidth-1:0] f_addr_a, f_addr_b, f_off_a, f_off_b;
  assign f_off_a = (f_addr_a - head0_q) & PtrWidth'(Depth - 1);
  assign f_off_b = (f_addr_b - head0_q) & PtrWidth'(Depth - 1);

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_trk_a <= 1'b0;
      f_trk_b <= 1'b0;
    end else begin
      if (!f_trk_a && f_write && f_pick_a && f_wdata == f_id_a) begin
        f_trk_a <= 1'b1;
        f_addr_a <= f_waddr;
        f_a_first <= !f_trk_b;
      end else if (f_trk_a && f_pop && pull_addr == f_addr_a) begin
        f_trk_a <= 1'b0;
      end
      if (!f_trk_b && f_write && f_pick_b && !f_pick_a && f_wdata == f_id_b) begin
        f_trk_b <= 1'b1;
        f_addr_b <= f_waddr;
        f_a_first <= f_trk_a;  // a came first iff it is already tracked
      end else if (f_trk_b && f_pop && pull_addr == f_addr_b) begin
        f_trk_b <= 1'b0;
      end
    end
  end

  always @(*) if (f_past_valid && rst_ni) begin
    if (f_trk_a) begin
      assert (mem_q[f_addr_a] == f_id_a);          // intact
      assert (PtrWidth'(f_off_a) < cnt0_q);        // inside the FIFO window
      if (f_pop && pull_addr == f_addr_a) assert ((pull_do ? pull_id_o : rd_id_o) == f_id_a);
    end
    if (f_trk_b) begin
      assert (mem_q[f_addr_b] == f_id_b);
      assert (PtrWidth'(f_off_b) < cnt0_q);
      if (f_pop && pull_addr == f_addr_b) assert ((pull_do ? pull_id_o : rd_id_o) == f_id_b);
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
  a_count_bound: assert property (@(posedge clk_i) disable iff (!rst_ni) cnt0_q <= CntWidth'(Depth) && cnt1_q <= CntWidth'(Half))
    else $error("hwwl_bank: count above capacity");
`endif
endmodule
