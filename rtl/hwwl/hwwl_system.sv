// SPDX-License-Identifier: Apache-2.0
// The hardware worklist of a GPU: NumCores cores (hwwl_core) joined by the
// inter-core redistribution network (hwwl_icrn). The system is empty when
// every core is empty, no work ID is in the network and the virtualization
// units (in the GPU model) hold none (hvu_busy_i low: nothing in the overflow
// buffer, no refill in flight); pulls on empty banks then return DONE. Lane
// ports are packed core-major: lane l of core c is index c*Lanes + l.
module hwwl_system #(
  parameter int unsigned NumCores   = 4,
  parameter int unsigned Lanes      = 16,
  parameter int unsigned IdWidth    = 24,
  parameter int unsigned Depth      = 32,
  parameter int unsigned Threshold  = 5,
  parameter int unsigned Interval   = 10,
  parameter int unsigned Scheme     = 2,
  parameter int unsigned SortStages = 0,
  localparam int unsigned NL        = NumCores * Lanes,
  localparam int unsigned CntWidth  = $clog2(Depth + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,  // synchronous reset, active low
  input  logic                  double_buf_i,   // bank partition mode
  input  logic                  swap_i,         // swap partitions where the pull side is empty
  input  logic [NL-1:0]         pull_i,         // lane pulls
  output logic [2*NL-1:0]       pull_status_o,  // hwwl_pkg::Pull* per lane
  output logic [NL*IdWidth-1:0] pull_id_o,      // work IDs pulled
  input  logic [NL-1:0]         push_i,         // lane pushes
  input  logic [NL*IdWidth-1:0] push_id_i,      // work IDs pushed
  output logic [NL-1:0]         push_gnt_o,     // push accepted
  output logic [NL*CntWidth-1:0] count_o,       // pull-partition count of each bank (status)
  input  logic [NL-1:0]         rf_put_i,       // HVU refills (hwwl_bank)
  input  logic [NL*IdWidth-1:0] rf_id_i,
  output logic [NL-1:0]         rf_gnt_o,
  input  logic [NumCores-1:0]   rsv_i,          // HVU: reserve an entry in every bank of the core
  output logic [NumCores-1:0]   rsv_gnt_o,
  input  logic                  hvu_busy_i,     // the HVUs hold work (overflow buffer, refills)
  output logic                  sys_empty_o,    // no work anywhere, nothing in flight
  output logic                  net_busy_o,     // the inter-core network holds a work ID (status)
  output logic [NumCores-1:0]   greedy_o        // global greedy bit per core
);
  logic [NumCores-1:0]         core_empty, inj_v, inj_r, ej_v, ej_r;
  logic [NumCores*IdWidth-1:0] inj_id, ej_id;
  logic                        icrn_busy;
  logic [NL-1:0]               global_greedy;

  // gsorting: one ranking of every bank of every core (hwwl_grank), from the
  // banks' registered pull-side counts, as each core's WRU sees them.
  if (Scheme == hwwl_pkg::SchemeGsorting) begin : gen_grank
    hwwl_grank #(.NumBanks(NL), .CntWidth(CntWidth)) u_grank (
      .counts_i(count_o), .greedy_o(global_greedy)
    );
  end else begin : gen_no_grank
    assign global_greedy = '0;
  end

  assign sys_empty_o = &core_empty && !icrn_busy && !hvu_busy_i;
  assign net_busy_o  = icrn_busy;

  for (genvar c = 0; c < NumCores; c++) begin : gen_core
    hwwl_core #(
      .Lanes(Lanes), .IdWidth(IdWidth), .Depth(Depth), .Threshold(Threshold), .Interval(Interval),
      .Scheme(Scheme), .SortStages(SortStages)
    ) u_core (
      .clk_i, .rst_ni, .double_buf_i, .swap_i,
      .pull_i        (pull_i[c*Lanes +: Lanes]),
      .pull_status_o (pull_status_o[2*c*Lanes +: 2*Lanes]),
      .pull_id_o     (pull_id_o[c*Lanes*IdWidth +: Lanes*IdWidth]),
      .push_i        (push_i[c*Lanes +: Lanes]),
      .push_id_i     (push_id_i[c*Lanes*IdWidth +: Lanes*IdWidth]),
      .push_gnt_o    (push_gnt_o[c*Lanes +: Lanes]),
      .count_o       (count_o[c*Lanes*CntWidth +: Lanes*CntWidth]),
      .rf_put_i      (rf_put_i[c*Lanes +: Lanes]),
      .rf_id_i       (rf_id_i[c*Lanes*IdWidth +: Lanes*IdWidth]),
      .rf_gnt_o      (rf_gnt_o[c*Lanes +: Lanes]),
      .rsv_i         (rsv_i[c]),
      .rsv_gnt_o     (rsv_gnt_o[c]),
      .sys_empty_i   (sys_empty_o),
      .global_greedy_i(global_greedy[c*Lanes +: Lanes]),
      .core_empty_o  (core_empty[c]),
      .greedy_o      (greedy_o[c]),
      .inject_valid_o(inj_v[c]),
      .inject_id_o   (inj_id[c*IdWidth +: IdWidth]),
      .inject_ready_i(inj_r[c]),
      .eject_valid_i (ej_v[c]),
      .eject_id_i    (ej_id[c*IdWidth +: IdWidth]),
      .eject_ready_o (ej_r[c])
    );
  end

  hwwl_icrn #(.NumCores(NumCores), .IdWidth(IdWidth)) u_icrn (
    .clk_i, .rst_ni,
    .greedy_i(greedy_o),
    .inject_valid_i(inj_v), .inject_id_i(inj_id), .inject_ready_o(inj_r),
    .eject_valid_o(ej_v), .eject_id_o(ej_id), .eject_ready_i(ej_r),
    .busy_o(icrn_busy)
  );
endmodule
