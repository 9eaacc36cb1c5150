// SPDX-License-Identifier: Apache-2.0
// Shared constants of the hardware worklist (Kim & Batten, MICRO 2014).
// Referenced as hwwl_pkg::NAME (no import: Yosys 0.23).
package hwwl_pkg;
  // Pull response status per lane (hwwl_core pull_status_o).
  localparam logic [1:0] PullNone = 2'd0;  // no pull this cycle
  localparam logic [1:0] PullId   = 2'd1;  // pull_id_o holds a work ID
  localparam logic [1:0] PullWait = 2'd2;  // local bank empty, work exists elsewhere
  localparam logic [1:0] PullDone = 2'd3;  // no work anywhere and nothing in flight

  // Work redistribution schemes (hwwl_wru Scheme).
  localparam int unsigned SchemeNone      = 0;
  localparam int unsigned SchemeThreshold = 1;
  localparam int unsigned SchemeLsorting  = 2;
  // Global sorting (Sec. III-C, Fig. 6): one ranking of every bank of every
  // core (hwwl_grank in hwwl_system) feeds each core's WRU.
  localparam int unsigned SchemeGsorting  = 3;
endpackage
