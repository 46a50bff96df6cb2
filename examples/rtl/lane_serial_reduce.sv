// A lane-serial element unit: one element per cycle in a 32-bit operand, the element width and
// the operation from a control struct, a 32-bit accumulator whose low SEW bits hold the running
// maximum. The seed (op2) comes with the first element (op1); elements past vl leave the
// accumulator as it is; the result is valid one cycle after the last element.
module lane_serial_reduce import vector_pkg::*; (
    input  logic        clk_i,
    input  logic        rst_ni,
    input  logic        valid_i,
    input  elem_ctrl_t  ctrl_i,
    input  logic [31:0] op1_i,
    input  logic [31:0] op2_i,
    output logic [31:0] res_o,
    output logic        res_valid_o
);
  logic [31:0] acc_q, base;
  assign base = ctrl_i.first ? op2_i : acc_q;

  function automatic logic [31:0] fold(logic [31:0] acc, logic [31:0] e, vew_e vew, red_op_e op);
    logic [31:0] r = acc;
    logic sgn = op inside {VREDMAX, VREDMIN};
    unique case (vew)
      EW8:  if ($signed({sgn & e[7], e[7:0]})   > $signed({sgn & acc[7], acc[7:0]}))   r[7:0]  = e[7:0];
      EW16: if ($signed({sgn & e[15], e[15:0]}) > $signed({sgn & acc[15], acc[15:0]})) r[15:0] = e[15:0];
      EW32: if ($signed({sgn & e[31], e})       > $signed({sgn & acc[31], acc}))       r       = e;
      default: ;
    endcase
    return r;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) res_valid_o <= 1'b0;
    else         res_valid_o <= valid_i & ctrl_i.last;
  end
  always_ff @(posedge clk_i) begin
    if (valid_i) acc_q <= ctrl_i.past_vl ? base : fold(base, op1_i, ctrl_i.vew, ctrl_i.op);
  end
  assign res_o = acc_q;
endmodule
