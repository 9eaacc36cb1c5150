// SPDX-License-Identifier: Apache-2.0
// Work redistribution unit, one per core (Kim & Batten Sec. III-C).
//
// Every Interval cycles ("tick") it pairs donor banks with receiver banks and
// moves one work ID per pair in that cycle, through the banks'
// redistribution ports; a pair whose donor or receiver is busy with a lane
// access that cycle is skipped (lane accesses have priority).
//   Scheme none:      no redistribution.
//   Scheme threshold: greedy banks (count > Threshold) donate to needy banks
//                     (count < Threshold): the k-th greedy bank to the k-th
//                     needy bank, both in bank order rotated by a round-robin
//                     pointer that advances every tick.
//   Scheme lsorting:  banks ranked by count (hwwl_sort_net, ascending); pair k
//                     is (fullest-k -> emptiest+k) for k < Lanes/2, used while
//                     the receiver is needy and the donor has at least 2 more;
//                     so when every bank is needy the fuller half still feeds
//                     the emptier half.
//   Scheme gsorting:  the local ranking as in lsorting, but a donor must be
//                     globally greedy (global_greedy_i: in the upper half of
//                     one ranking of every bank of every core, hwwl_grank) and
//                     a receiver below the threshold or not globally greedy;
//                     pair k is used while that holds and the donor has at
//                     least 2 more (the golden model's hwwl::Wru::plan).
// Inter-core: the core's global greedy bit is set when it has more greedy than
// needy banks (gsorting: more globally greedy banks than others); then, on a
// tick, the first greedy bank left without a partner injects one work ID into
// the ICRN (taken only when the ICRN is ready; gsorting: the fullest bank not
// paired, when it is globally greedy and holds more than one ID). An ID
// arriving from the ICRN is accepted on any cycle into the bank with the least
// work among those free that cycle (lowest index on ties); eject_ready_o is
// raised only while eject_valid_i is high.
//
// Evaluation is gated so that the Verilated model does little work between
// ticks: the ranking, the pairing and the pair moves are computed only on a
// tick (their outputs are zero otherwise), and the ejection search only while
// the ICRN offers a work ID. In hardware this is the same logic with zeroed
// outputs between ticks (operand isolation).
// The core empty bit is set when every bank's pull partition is empty.
module hwwl_wru #(
  parameter int unsigned Lanes      = 16,  // banks, a power of two >= 2
  parameter int unsigned CntWidth   = 6,   // bits of a bank count
  parameter int unsigned Threshold  = 5,   // needy below, greedy above
  parameter int unsigned Interval   = 10,  // cycles between redistributions (>= 1)
  parameter int unsigned Scheme     = 2,   // hwwl_pkg::Scheme*
  parameter int unsigned SortStages = 0,   // pipeline registers in the sorting network
  localparam int unsigned IdxWidth  = $clog2(Lanes)
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,  // synchronous reset, active low
  input  logic [Lanes*CntWidth-1:0] counts_i,      // pull-partition count of each bank
  input  logic [Lanes-1:0]          greedy_i,      // bank count > Threshold (hwwl_bank greedy_o)
  input  logic [Lanes-1:0]          needy_i,       // bank count < Threshold (hwwl_bank needy_o)
  input  logic [Lanes-1:0]          empty_i,       // bank count == 0 (hwwl_bank empty_o)
  input  logic [Lanes-1:0]          global_greedy_i,  // gsorting: bank in the global upper half (hwwl_grank)
  input  logic [Lanes-1:0]          rd_ok_i,       // bank can donate this cycle
  input  logic [Lanes-1:0]          ri_ok_i,       // bank can receive this cycle
  output logic [Lanes-1:0]          rd_take_o,     // bank donates its head
  output logic [Lanes-1:0]          ri_put_o,      // bank receives
  output logic [Lanes*IdxWidth-1:0] ri_src_o,      // receiver's donor bank (when not from the ICRN)
  output logic [Lanes-1:0]          ri_net_o,      // receiver takes the ICRN's work ID
  output logic                      inject_valid_o,  // a work ID goes into the ICRN this cycle
  output logic [IdxWidth-1:0]       inject_sel_o,    // from this bank
  input  logic                      inject_ready_i,  // the ICRN takes it
  input  logic                      eject_valid_i,   // the ICRN offers a work ID
  output logic                      eject_ready_o,   // a bank can take it this cycle
  output logic                      core_empty_o,    // all pull partitions empty
  output logic                      greedy_o         // global greedy bit
);
  localparam int unsigned TickWidth = (Interval > 1) ? $clog2(Interval) : 1;
  localparam int unsigned Half = Lanes / 2;

  logic [TickWidth-1:0] tick_q, tick_d;
  logic [IdxWidth-1:0]  rr_q, rr_d;
  logic                 tick;

  logic [Lanes-1:0]    greedy, needy;
  logic [IdxWidth:0]   n_greedy, n_needy;

  // The banks classify their own counts (registered flags): the classification
  // and the core's bits are then a few vector operations per cycle.
  assign greedy = greedy_i;
  assign needy  = needy_i;
  always_comb begin
    n_greedy     = (IdxWidth+1)'($countones(greedy));
    n_needy      = (IdxWidth+1)'($countones(needy));
    core_empty_o = &empty_i;
    tick     = (tick_q == TickWidth'(Interval - 1));
    tick_d   = tick ? '0 : tick_q + 1'b1;
    rr_d     = tick ? rr_q + 1'b1 : rr_q;
  end

  // The core's global greedy bit: from the core's own banks, or (gsorting)
  // from the global ranking.
  if (Scheme == hwwl_pkg::SchemeGsorting) begin : gen_greedy_global
    logic [IdxWidth:0] n_global;
    logic              unused_local;
    assign n_global     = (IdxWidth+1)'($countones(global_greedy_i));
    assign greedy_o     = n_global > (IdxWidth+1)'(Lanes) - n_global;
    assign unused_local = ^{n_greedy, n_needy};
  end else begin : gen_greedy_local
    logic unused_global_greedy;
    assign greedy_o             = n_greedy > n_needy;
    assign unused_global_greedy = ^global_greedy_i;
  end

  // Pairing (on a tick): pair_d[r] = donor of receiver r, pair_v[r] = r
  // receives from it.
  logic [Lanes-1:0]    pair_v;
  logic [IdxWidth-1:0] pair_d [Lanes];
  logic                cand_v;  // inject candidate exists
  logic [IdxWidth-1:0] cand;

  if (Scheme == hwwl_pkg::SchemeLsorting) begin : gen_lsorting
    // The ranking must be ready on the tick: start the sort SortStages
    // cycles before it (every cycle when the pipeline is longer than Interval).
    logic                      sort_en;
    logic [Lanes*CntWidth-1:0] skeys;
    logic [Lanes*IdxWidth-1:0] sperm;
    if (SortStages == 0) begin : gen_en_now
      assign sort_en = tick;
    end else if (SortStages < Interval) begin : gen_en_ahead
      assign sort_en = (tick_q == TickWidth'(Interval - 1 - SortStages));
    end else begin : gen_en_always
      assign sort_en = 1'b1;
    end
    logic unused_sort_valid;
    hwwl_sort_net #(.N(Lanes), .KeyWidth(CntWidth), .Stages(SortStages)) u_sort (
      .clk_i, .rst_ni, .en_i(sort_en), .keys_i(counts_i), .valid_o(unused_sort_valid), .keys_o(skeys),
      .perm_o(sperm)
    );
    always_comb begin
      logic still;
      logic [IdxWidth:0] m;
      logic [CntWidth-1:0] kr, kd;
      logic [IdxWidth-1:0] ir, id;
      pair_v = '0;
      for (int unsigned r = 0; r < Lanes; r++) pair_d[r] = '0;
      cand   = '0;
      cand_v = 1'b0;
      still  = 1'b1;
      m      = '0;
      kr     = '0;
      kd     = '0;
      ir     = '0;
      id     = '0;
      if (tick) begin
        for (int unsigned k = 0; k < Half; k++) begin
          kr = skeys[k*CntWidth +: CntWidth];
          kd = skeys[(Lanes-1-k)*CntWidth +: CntWidth];
          ir = sperm[k*IdxWidth +: IdxWidth];
          id = sperm[(Lanes-1-k)*IdxWidth +: IdxWidth];
          if (still && (kr < CntWidth'(Threshold)) && ({1'b0, kd} > {1'b0, kr} + (CntWidth+1)'(1))) begin
            pair_v[ir] = 1'b1;
            pair_d[ir] = id;
            m = m + 1'b1;
          end else begin
            still = 1'b0;
          end
        end
        cand   = sperm[(Lanes-1-32'(m))*IdxWidth +: IdxWidth];
        cand_v = greedy_o && (m < (IdxWidth+1)'(Half)) &&
                 (skeys[(Lanes-1-32'(m))*CntWidth +: CntWidth] > CntWidth'(Threshold));
      end
    end
  end else if (Scheme == hwwl_pkg::SchemeGsorting) begin : gen_gsorting
    // The local ranking as in lsorting (the same network and timing); the
    // global greedy bits are this cycle's (counts before this cycle's
    // accesses, as the banks' counts_i).
    logic                      sort_en;
    logic [Lanes*CntWidth-1:0] skeys;
    logic [Lanes*IdxWidth-1:0] sperm;
    if (SortStages == 0) begin : gen_en_now
      assign sort_en = tick;
    end else if (SortStages < Interval) begin : gen_en_ahead
      assign sort_en = (tick_q == TickWidth'(Interval - 1 - SortStages));
    end else begin : gen_en_always
      assign sort_en = 1'b1;
    end
    logic unused_sort_valid;
    hwwl_sort_net #(.N(Lanes), .KeyWidth(CntWidth), .Stages(SortStages)) u_sort (
      .clk_i, .rst_ni, .en_i(sort_en), .keys_i(counts_i), .valid_o(unused_sort_valid), .keys_o(skeys),
      .perm_o(sperm)
    );
    always_comb begin
      logic still;
      logic [IdxWidth:0] m;
      logic [CntWidth-1:0] kr, kd;
      logic [IdxWidth-1:0] ir, id;
      pair_v = '0;
      for (int unsigned r = 0; r < Lanes; r++) pair_d[r] = '0;
      cand   = '0;
      cand_v = 1'b0;
      still  = 1'b1;
      m      = '0;
      kr     = '0;
      kd     = '0;
      ir     = '0;
      id     = '0;
      if (tick) begin
        for (int unsigned k = 0; k < Half; k++) begin
          kr = skeys[k*CntWidth +: CntWidth];
          kd = skeys[(Lanes-1-k)*CntWidth +: CntWidth];
          ir = sperm[k*IdxWidth +: IdxWidth];
          id = sperm[(Lanes-1-k)*IdxWidth +: IdxWidth];
          // The receiver: below the threshold (prioritized even if globally
          // greedy) or in the global lower half; the donor: in the global
          // upper half.
          if (still && ((kr < CntWidth'(Threshold)) || !global_greedy_i[ir]) && global_greedy_i[id] &&
              ({1'b0, kd} > {1'b0, kr} + (CntWidth+1)'(1))) begin
            pair_v[ir] = 1'b1;
            pair_d[ir] = id;
            m = m + 1'b1;
          end else begin
            still = 1'b0;
          end
        end
        // The excess donor: the fullest bank left, if globally greedy and
        // holding more than one ID (the global ranking, not the threshold,
        // says who has too much).
        cand   = sperm[(Lanes-1-32'(m))*IdxWidth +: IdxWidth];
        cand_v = greedy_o && (m < (IdxWidth+1)'(Half)) && global_greedy_i[cand] &&
                 (skeys[(Lanes-1-32'(m))*CntWidth +: CntWidth] > CntWidth'(1));
      end
    end
  end else if (Scheme == hwwl_pkg::SchemeThreshold) begin : gen_threshold
    always_comb begin
      logic [IdxWidth:0] grank [Lanes];
      logic [IdxWidth:0] nrank [Lanes];
      logic [IdxWidth-1:0] pos [Lanes];
      pair_v = '0;
      cand_v = 1'b0;
      cand   = '0;
      for (int unsigned b = 0; b < Lanes; b++) begin
        pair_d[b] = '0;
        pos[b]    = '0;
        grank[b]  = '0;
        nrank[b]  = '0;
      end
      if (tick) begin
        // Position of each bank in the rotated order; a bank's rank is the
        // number of greedy (needy) banks before it in that order.
        for (int unsigned b = 0; b < Lanes; b++) pos[b] = IdxWidth'(b) - rr_q;
        for (int unsigned b = 0; b < Lanes; b++) begin
          for (int unsigned d = 0; d < Lanes; d++) begin
            if (pos[d] < pos[b]) begin
              grank[b] = grank[b] + (IdxWidth+1)'(greedy[d]);
              nrank[b] = nrank[b] + (IdxWidth+1)'(needy[d]);
            end
          end
        end
        for (int unsigned r = 0; r < Lanes; r++) begin
          for (int unsigned d = 0; d < Lanes; d++) begin
            if (needy[r] && greedy[d] && grank[d] == nrank[r]) begin
              pair_v[r] = 1'b1;
              pair_d[r] = IdxWidth'(d);
            end
          end
        end
        for (int unsigned d = 0; d < Lanes; d++) begin
          if (greedy[d] && grank[d] == n_needy) begin
            cand_v = greedy_o;
            cand   = IdxWidth'(d);
          end
        end
      end
    end
  end else begin : gen_none
    always_comb begin
      pair_v = '0;
      for (int unsigned r = 0; r < Lanes; r++) pair_d[r] = '0;
      cand_v = 1'b0;
      cand   = '0;
    end
  end

  // Moves: intra-core pairs, then injection, then ejection, in separate blocks
  // so that ejection (and through it the ICRN's inject_ready) never depends on
  // inject_ready_i.
  logic [Lanes-1:0] pair_take, pair_put, eject_put;
  always_comb begin
    pair_take = '0;
    pair_put  = '0;
    ri_src_o  = '0;
    if (tick) begin
      for (int unsigned r = 0; r < Lanes; r++) begin
        if (pair_v[r] && rd_ok_i[pair_d[r]] && ri_ok_i[r]) begin
          pair_take[pair_d[r]] = 1'b1;
          pair_put[r] = 1'b1;
          ri_src_o[r*IdxWidth +: IdxWidth] = pair_d[r];
        end
      end
    end
  end

  assign inject_sel_o   = cand;
  assign inject_valid_o = cand_v && rd_ok_i[cand] && inject_ready_i;

  // A bank with a role this cycle cannot take the ICRN's work ID (the inject
  // candidate counts even if the ICRN refuses).
  always_comb begin
    logic [Lanes-1:0]    busy;
    logic                found;
    logic [IdxWidth-1:0] best;
    busy  = pair_take | pair_put;
    found = 1'b0;
    best  = '0;
    eject_put = '0;
    if (eject_valid_i) begin
      if (cand_v) busy[cand] = 1'b1;
      for (int unsigned b = 0; b < Lanes; b++) begin
        if (ri_ok_i[b] && !busy[b] &&
            (!found || counts_i[b*CntWidth +: CntWidth] < counts_i[32'(best)*CntWidth +: CntWidth])) begin
          found = 1'b1;
          best  = IdxWidth'(b);
        end
      end
      if (found) eject_put[best] = 1'b1;
    end
    eject_ready_o = found;
  end

  always_comb begin
    rd_take_o = pair_take;
    if (inject_valid_o) rd_take_o[cand] = 1'b1;
  end
  assign ri_put_o = pair_put | eject_put;
  assign ri_net_o = eject_put;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      tick_q <= '0;
      rr_q   <= '0;
    end else begin
      tick_q <= tick_d;
      rr_q   <= rr_d;
    end
  end
`ifndef SYNTHESIS
  initial begin
    assert (Scheme == hwwl_pkg::SchemeNone || Scheme == hwwl_pkg::SchemeThreshold ||
            Scheme == hwwl_pkg::SchemeLsorting || Scheme == hwwl_pkg::SchemeGsorting)
      else $fatal(1, "hwwl_wru: unknown Scheme");
    assert (Interval >= 1) else $fatal(1, "hwwl_wru: Interval must be >= 1");
  end
`endif
endmodule
