// Compare-and-swap cell of the sorting network: orders two elements
// {key, index} (the index breaks ties, so the order is total).
module hwwl_cas #(
  parameter int unsigned Width = 8  // element width: key bits then index bits
) (
  input  logic [Width-1:0] a_i,    // element at the lower position
  input  logic [Width-1:0] b_i,    // element at the upper position
  input  logic             asc_i,  // 1: lower position gets the smaller element
  output logic [Width-1:0] lo_o,   // element for the lower position
  output logic [Width-1:0] hi_o    // element for the upper position
);
  logic swap;
  assign swap = asc_i ? (a_i > b_i) : (a_i < b_i);
  assign lo_o = swap ? b_i : a_i;
  assign hi_o = swap ? a_i : b_i;
endmodule
