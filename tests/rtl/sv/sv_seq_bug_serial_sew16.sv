// BUG at one SEW: the EW16 fold compares the halves unsigned (EW8 and EW32 are right).
module sv_seq_bug_serial_sew16 import vred_pkg::*; (
    input  logic        clk_i,
    input  logic        rst_i,
    input  vew_e        vew_i,
    input  logic        start_i,
    input  logic [31:0] seed_i,
    input  logic        valid_i,
    input  logic [31:0] elem_i,
    input  logic        active_i,
    input  logic        last_i,
    output logic [31:0] result_o,
    output logic        done_o
);
  logic [31:0] acc_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      done_o <= 1'b0;
    end else begin
      done_o <= valid_i & last_i;
      if (start_i) acc_q <= seed_i;
      else if (valid_i && active_i)
        unique case (vew_i)
          EW8:  if ($signed(elem_i[7:0]) > $signed(acc_q[7:0])) acc_q[7:0] <= elem_i[7:0];
          EW16: if (elem_i[15:0] > acc_q[15:0]) acc_q[15:0] <= elem_i[15:0];
          EW32: if ($signed(elem_i) > $signed(acc_q)) acc_q <= elem_i;
          default: ;
        endcase
    end
  end
  assign result_o = acc_q;
endmodule
