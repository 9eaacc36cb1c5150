// Hardware worklist of one core: a bank per lane and the work redistribution
// unit (Kim & Batten Fig. 4, without the virtualization unit).
//
//   lane 0 ..... lane L-1          pull / push, one per lane per cycle
//     |             |
//   bank 0 ..... bank L-1          counts --> WRU (sorting network) --> moves
//     \_____ redistribution ports ______/        |  inject / eject
//                                               ICRN
//
// A pull returns the bank's head (PullId); on an empty bank it returns
// PullWait while work exists anywhere (sys_empty_i low) and PullDone once every
// bank of every core is empty and nothing is in flight (sys_empty_i high). A
// push to a full bank stalls (push_gnt_o low): spilling to memory is the
// virtualization unit's job, not modelled here.
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
  input  logic                     rst_ni,
  input  logic                     double_buf_i,   // bank partition mode
  input  logic                     swap_i,         // swap pull/push partitions (where the pull side is empty)
  input  logic [Lanes-1:0]         pull_i,         // lane pulls
  output logic [2*Lanes-1:0]       pull_status_o,  // hwwl_pkg::Pull* per lane
  output logic [Lanes*IdWidth-1:0] pull_id_o,      // work ID when the status is PullId (else 0)
  input  logic [Lanes-1:0]         push_i,         // lane pushes
  input  logic [Lanes*IdWidth-1:0] push_id_i,      // work IDs pushed
  output logic [Lanes-1:0]         push_gnt_o,     // push accepted (else stall)
  input  logic                     sys_empty_i,    // no work in any core, nothing in flight
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
  logic [Lanes-1:0]          pull_gnt, rd_ok, ri_ok, rd_take, ri_put, ri_net;
  logic [Lanes*IdWidth-1:0]  rd_id, ri_id;
  logic [Lanes*IdxWidth-1:0] ri_src;
  logic [IdxWidth-1:0]       inject_sel;

  for (genvar b = 0; b < Lanes; b++) begin : gen_bank
    logic [CntWidth-1:0] unused_push_count;
    logic                unused_empty, unused_greedy;
    hwwl_bank #(.IdWidth(IdWidth), .Depth(Depth), .Threshold(Threshold)) u_bank (
      .clk_i, .rst_ni, .double_buf_i, .swap_i,
      .pull_i      (pull_i[b]),
      .pull_gnt_o  (pull_gnt[b]),
      .pull_id_o   (pull_id_o[b*IdWidth +: IdWidth]),
      .push_i      (push_i[b]),
      .push_id_i   (push_id_i[b*IdWidth +: IdWidth]),
      .push_gnt_o  (push_gnt_o[b]),
      .rd_ok_o     (rd_ok[b]),
      .rd_take_i   (rd_take[b]),
      .rd_id_o     (rd_id[b*IdWidth +: IdWidth]),
      .ri_ok_o     (ri_ok[b]),
      .ri_put_i    (ri_put[b]),
      .ri_id_i     (ri_id[b*IdWidth +: IdWidth]),
      .count_o     (counts[b*CntWidth +: CntWidth]),
      .push_count_o(unused_push_count),
      .empty_o     (unused_empty),
      .greedy_o    (unused_greedy)
    );
    assign ri_id[b*IdWidth +: IdWidth] = ri_net[b] ? eject_id_i
                                                   : rd_id[32'(ri_src[b*IdxWidth +: IdxWidth])*IdWidth +: IdWidth];
    assign pull_status_o[2*b +: 2] = !pull_i[b]   ? hwwl_pkg::PullNone :
                                     pull_gnt[b]  ? hwwl_pkg::PullId :
                                     sys_empty_i  ? hwwl_pkg::PullDone : hwwl_pkg::PullWait;
  end

  hwwl_wru #(
    .Lanes(Lanes), .CntWidth(CntWidth), .Threshold(Threshold), .Interval(Interval), .Scheme(Scheme),
    .SortStages(SortStages)
  ) u_wru (
    .clk_i, .rst_ni,
    .counts_i(counts), .rd_ok_i(rd_ok), .ri_ok_i(ri_ok), .rd_take_o(rd_take), .ri_put_o(ri_put),
    .ri_src_o(ri_src), .ri_net_o(ri_net),
    .inject_valid_o, .inject_sel_o(inject_sel), .inject_ready_i,
    .eject_valid_i, .eject_ready_o,
    .core_empty_o, .greedy_o
  );

  assign inject_id_o = rd_id[32'(inject_sel)*IdWidth +: IdWidth];
endmodule
