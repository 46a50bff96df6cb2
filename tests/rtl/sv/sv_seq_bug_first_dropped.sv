// BUG: the element that comes with the seed (the first one) is dropped: the first cycle only
// loads the seed. Otherwise as sv_seq_first_ok.
module sv_seq_bug_first_dropped import vred_pkg::*; (
    input  logic        clk_i,
    input  logic        rst_ni,
    input  logic        valid_i,
    input  elem_ctrl_t  ctrl_i,
    input  logic [31:0] op1_i,
    input  logic [31:0] op2_i,
    output logic [31:0] res_o,
    output logic        res_valid_o
);
  logic [31:0] res_q, base;
  assign base = ctrl_i.first ? op2_i : res_q;

  function automatic logic [31:0] fold(logic [31:0] acc, logic [31:0] e, vew_e vew, red_op_e op);
    logic [31:0] r;
    r = acc;
    if (op == OP_MAX)
      unique case (vew)
        EW8:  if ($signed(e[7:0])  > $signed(acc[7:0]))  r[7:0]  = e[7:0];
        EW16: if ($signed(e[15:0]) > $signed(acc[15:0])) r[15:0] = e[15:0];
        EW32: if ($signed(e)       > $signed(acc))       r       = e;
        default: ;
      endcase
    return r;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      res_valid_o <= 1'b0;
    end else begin
      res_valid_o <= valid_i & ctrl_i.last;
      if (valid_i) res_q <= (ctrl_i.past_vl || ctrl_i.first) ? base : fold(base, op1_i, ctrl_i.vew, ctrl_i.op);
    end
  end
  assign res_o = res_q;
endmodule
