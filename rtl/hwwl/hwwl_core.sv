// SPDX-License-Identifier: Apache-2.0
// Hardware worklist of one core: a bank per lane and the work redistribution
// unit (Kim & Batten Fig. 4), with the ports of the virtualization unit (the
// HVU itself, which moves work IDs to and from memory, is in the GPU model).
//
//   lane 0 ..... lane L-1          pull / push, one per lane per cycle
//     |             |
//   bank 0 ..... bank L-1          counts --> WRU (sorting network) --> moves
//     \_____ redistribution ports ______/        |  inject / eject
//                                               ICRN
//
// A pull returns the bank's head (PullId); pull_id_o carries the head of each
// lane's bank every cycle (0 when empty), valid when the status is PullId. On
// an empty bank a pull returns
// PullWait while work exists anywhere (sys_empty_i low) and PullDone once every
// bank of every core is empty and nothing is in flight (sys_empty_i high). A
// push to a full bank stalls (push_gnt_o low): the HVU then spills it to
// memory. The HVU refills a bank through rf_put_i when its port is free, and
// for interval refills reserves an entry in every bank at once (rsv_i; granted
// only when every bank can take it, hwwl_bank).
module hwwl_core #(
  parameter int unsigned Lanes      = 16,  // lanes = banks, a power of two >= 2
  parameter int unsigned IdWidth    = 24,  // bits per work ID
  parameter int unsigned Depth      = 32,  // entries per bank
  parameter int unsigned Threshold  = 5,   // greedy/needy threshold
  parameter int unsigned Interval   = 10,  // redistribution interval in cycles
  parameter int unsigned Scheme     = 2,   // hwwl_pkg::Scheme*
  parameter int unsigned SortStages = 0,   // sorting-network pipeline registers
  localparam int unsigned CntWidth  = $clog2(Depth + 1)
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,  // synchronous reset, active low
  input  logic                     double_buf_i,   // bank partition mode
  input  logic                     swap_i,         // swap pull/push partitions (where the pull side is empty)
  input  logic [Lanes-1:0]         pull_i,         // lane pulls
  output logic [2*Lanes-1:0]       pull_status_o,  // hwwl_pkg::Pull* per lane
  output logic [Lanes*IdWidth-1:0] pull_id_o,      // head of each lane's bank (0 if empty): the work ID when PullId
  input  logic [Lanes-1:0]         push_i,         // lane pushes
  input  logic [Lanes*IdWidth-1:0] push_id_i,      // work IDs pushed
  output logic [Lanes-1:0]         push_gnt_o,     // push accepted (else stall)
  output logic [Lanes*CntWidth-1:0] count_o,       // pull-partition count of each bank (status, from registers)
  input  logic [Lanes-1:0]         rf_put_i,       // HVU refills
  input  logic [Lanes*IdWidth-1:0] rf_id_i,        // work IDs refilled
  output logic [Lanes-1:0]         rf_gnt_o,       // refill written (else the HVU keeps it)
  input  logic                     rsv_i,          // HVU: reserve an entry in every bank
  output logic                     rsv_gnt_o,      // reservation made (every bank had room)
  input  logic                     sys_empty_i,    // no work in any core, nothing in flight
  input  logic [Lanes-1:0]         global_greedy_i,  // gsorting: bank in the global upper half (hwwl_grank); else unused
  output logic                     core_empty_o,   // every pull partition of this core empty
  output logic                     greedy_o,       // global greedy bit
  output logic                     inject_valid_o, // to the ICRN
  output logic [IdWidth-1:0]       inject_id_o,
  input  logic                     inject_ready_i,
  input  logic                     eject_valid_i,  // from the ICRN
  input  logic [IdWidth-1:0]       eject_id_i,
  output logic                     eject_ready_o
);
  localparam int unsigned IdxWidth = $clog2(Lanes);

  logic [Lanes*CntWidth-1:0] counts;
  logic [Lanes-1:0]          empty, full, greedy, needy, push_full, free, swapping, pull_gnt, rd_ok, ri_ok, rd_take, ri_put, ri_net;
  logic [Lanes-1:0]          rsv_ok;
  logic [Lanes*IdWidth-1:0]  rd_id, ri_id;
  logic [Lanes*IdxWidth-1:0] ri_src;
  logic [IdxWidth-1:0]       inject_sel;

  // Grants of all banks at once, from the banks' registered flags (the rule
  // documented in hwwl_bank; its own grant outputs are left unused here).
  // Only a granted lane access takes a bank's port: a polling lane's pull on
  // an empty bank (WAIT) leaves it free for work arriving from the WRU or the
  // network (docs/worklist-rtl.md, "Liveness").
  assign pull_gnt   = pull_i & ~empty;
  assign push_gnt_o = push_i & ~pull_i & ~push_full;
  // In a swap cycle a reception goes to the side that becomes the pull side
  // (hwwl_bank), so it needs that side not full.
  assign free       = ~pull_gnt & ~push_gnt_o;
  assign swapping   = {Lanes{double_buf_i & swap_i}} & empty;
  assign rd_ok      = free & ~empty;
  assign ri_ok      = free & ~((swapping & push_full) | (~swapping & full));

  // Pull status per lane: bit 0 = granted or DONE, bit 1 = not granted
  // (hwwl_pkg: None 00, Id 01, Wait 10, Done 11).
  logic [Lanes-1:0] st0, st1;
  assign st0 = pull_i & (pull_gnt | {Lanes{sys_empty_i}});
  assign st1 = pull_i & ~pull_gnt;
  // A reservation is all or nothing across the banks (the HVU loads one
  // entry per bank).
  assign rsv_gnt_o = rsv_i && &rsv_ok;

  for (genvar b = 0; b < Lanes; b++) begin : gen_bank
    logic [CntWidth-1:0] unused_push_count;
    logic                unused_pull_gnt, unused_push_gnt, unused_rd_ok, unused_ri_ok, unused_rsv_nz;
    logic [IdWidth-1:0]  unused_pull_id;
    hwwl_bank #(.IdWidth(IdWidth), .Depth(Depth), .Threshold(Threshold)) u_bank (
      .clk_i, .rst_ni, .double_buf_i, .swap_i,
      .pull_i      (pull_i[b]),
      .pull_gnt_o  (unused_pull_gnt),
      .pull_id_o   (unused_pull_id),
      .push_i      (push_i[b]),
      .push_id_i   (push_id_i[b*IdWidth +: IdWidth]),
      .push_gnt_o  (unused_push_gnt),
      .rd_ok_o     (unused_rd_ok),
      .rd_take_i   (rd_take[b]),
      .rd_id_o     (rd_id[b*IdWidth +: IdWidth]),
      .ri_ok_o     (unused_ri_ok),
      .ri_put_i    (ri_put[b]),
      .ri_id_i     (ri_id[b*IdWidth +: IdWidth]),
      .rf_put_i    (rf_put_i[b]),
      .rf_id_i     (rf_id_i[b*IdWidth +: IdWidth]),
      .rf_gnt_o    (rf_gnt_o[b]),
      .rsv_i       (rsv_gnt_o),
      .rsv_ok_o    (rsv_ok[b]),
      .rsv_nz_o    (unused_rsv_nz),
      .count_o     (counts[b*CntWidth +: CntWidth]),
      .push_count_o(unused_push_count),
      .empty_o     (empty[b]),
      .full_o      (full[b]),
      .push_full_o (push_full[b]),
      .greedy_o    (greedy[b]),
      .needy_o     (needy[b])
    );
    assign pull_status_o[2*b +: 2] = {st1[b], st0[b]};
  end
  // The pulled work ID is the bank's head (valid when the status is PullId).
  assign pull_id_o = rd_id;
  assign count_o   = counts;

  // Work ID each receiving bank takes: the ICRN's or its donor's head. Only
  // evaluated in a cycle with a reception (zero otherwise).
  always_comb begin
    ri_id = '0;
    if (|ri_put) begin
      for (int unsigned b = 0; b < Lanes; b++) begin
        if (ri_put[b]) begin
          ri_id[b*IdWidth +: IdWidth] = ri_net[b] ? eject_id_i
                                                  : rd_id[32'(ri_src[b*IdxWidth +: IdxWidth])*IdWidth +: IdWidth];
        end
      end
    end
  end

  hwwl_wru #(
    .Lanes(Lanes), .CntWidth(CntWidth), .Threshold(Threshold), .Interval(Interval), .Scheme(Scheme),
    .SortStages(SortStages)
  ) u_wru (
    .clk_i, .rst_ni,
    .counts_i(counts), .greedy_i(greedy), .needy_i(needy), .empty_i(empty), .global_greedy_i, .rd_ok_i(rd_ok), .ri_ok_i(ri_ok), .rd_take_o(rd_take), .ri_put_o(ri_put),
    .ri_src_o(ri_src), .ri_net_o(ri_net),
    .inject_valid_o, .inject_sel_o(inject_sel), .inject_ready_i,
    .eject_valid_i, .eject_ready_o,
    .core_empty_o, .greedy_o
  );

  assign inject_id_o = rd_id[32'(inject_sel)*IdWidth +: IdWidth];

`ifdef FORMAL
  // Formal properties, proved by k-induction (tools/formal.sh; docs/worklist-rtl.md,
  // "Liveness"), single-buffered mode; the banks' own properties are proved
  // in the same run.
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(*) assume (!double_buf_i);

  // Conservation: the work IDs in the banks change only by granted pushes,
  // granted pulls, accepted injections and ejections; redistribution inside
  // the core moves IDs, it never makes or loses one.
  localparam int unsigned FW = CntWidth + IdxWidth + 2;
  logic [FW-1:0] f_expect, f_held, f_in, f_out;
  always @(*) begin
    f_held = '0;
    f_in   = FW'(eject_valid_i && eject_ready_o);
    f_out  = FW'(inject_valid_o);
    for (int unsigned b = 0; b < Lanes; b++) begin
      f_held = f_held + FW'(counts[b*CntWidth +: CntWidth]);
      f_in   = f_in + FW'(push_gnt_o[b]) + FW'(rf_gnt_o[b]);
      f_out  = f_out + FW'(pull_gnt[b]);
    end
  end
  always @(posedge clk_i) f_expect <= !rst_ni ? '0 : f_expect + f_in - f_out;
  always @(*) if (f_past_valid && rst_ni) assert (f_held == f_expect);

  // Each move is one ID from one place to one place, with its value: a
  // receiver takes the ICRN's ID or its donor's head, the donor gives it
  // up, no donor feeds two receivers, the ICRN's ID enters one bank, and the
  // banks grant every role the WRU gives them.
  always @(*) if (f_past_valid && rst_ni) begin
    for (int unsigned r = 0; r < Lanes; r++) begin
      if (ri_put[r]) assert (ri_ok[r]);
      if (rd_take[r]) assert (rd_ok[r]);
      if (ri_put[r] && ri_net[r]) assert (ri_id[r*IdWidth +: IdWidth] == eject_id_i && eject_valid_i);
      if (ri_put[r] && !ri_net[r]) begin
        assert (rd_take[ri_src[r*IdxWidth +: IdxWidth]]);
        assert (ri_id[r*IdWidth +: IdWidth] == rd_id[32'(ri_src[r*IdxWidth +: IdxWidth])*IdWidth +: IdWidth]);
        assert (!(inject_valid_o && inject_sel == ri_src[r*IdxWidth +: IdxWidth]));
        for (int unsigned q = 0; q < Lanes; q++)
          if (q != r && ri_put[q] && !ri_net[q]) assert (ri_src[q*IdxWidth +: IdxWidth] != ri_src[r*IdxWidth +: IdxWidth]);
      end
      if (ri_net[r]) for (int unsigned q = 0; q < Lanes; q++) if (q != r) assert (!ri_net[q]);
    end
    assert ($countones(rd_take) == $countones(ri_put & ~ri_net) + 32'(inject_valid_o));
    if (inject_valid_o) assert (rd_take[inject_sel] && inject_id_o == rd_id[32'(inject_sel)*IdWidth +: IdWidth]);
    assert ((eject_valid_i && eject_ready_o) == (|ri_net));
  end

  // Progress (the livelock): while the ICRN offers a work ID and some bank is
  // empty, not full and its lane does not push (it may poll), the core takes
  // the ID within two cycles (a redistribution tick may occupy the empty
  // banks for one cycle; Interval >= 2). An empty bank can be full of
  // reserved entries: its refills are the HVU's to bring (in the GPU model).
  logic [3:0] f_starve;
  always @(posedge clk_i) begin
    if (!rst_ni || !eject_valid_i || eject_ready_o || ~|(empty & ~full & ~push_i)) f_starve <= '0;
    else f_starve <= f_starve + 1'b1;
  end
  always @(*) if (f_past_valid && rst_ni) assert (f_starve < 4'd2);
`endif

`ifndef SYNTHESIS
  // The status bits above assume this encoding.
  initial begin
    assert (hwwl_pkg::PullNone == 2'b00 && hwwl_pkg::PullId == 2'b01 && hwwl_pkg::PullWait == 2'b10 &&
            hwwl_pkg::PullDone == 2'b11) else $fatal(1, "hwwl_core: pull status encoding changed");
  end
`endif
endmodule
