// Correct: a lane-serial element unit (one element per cycle) with a 32-bit accumulator and the
// element width an input; the running maximum lives in the low SEW bits of the accumulator
// (its upper bits are whatever the seed had). Checked with --lane-width 32 --pin vew_i=EW{SEW}.
module sv_seq_serial_ok import vred_pkg::*; (
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

  function automatic logic [31:0] fold(logic [31:0] acc, logic [31:0] e, vew_e vew);
    logic [31:0] r;
    r = acc;
    unique case (vew)
      EW8:  if ($signed(e[7:0])  > $signed(acc[7:0]))  r[7:0]  = e[7:0];
      EW16: if ($signed(e[15:0]) > $signed(acc[15:0])) r[15:0] = e[15:0];
      EW32: if ($signed(e)       > $signed(acc))       r       = e;
      default: ;
    endcase
    return r;
  endfunction

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      done_o <= 1'b0;
    end else begin
      done_o <= valid_i & last_i;
      if (start_i) acc_q <= seed_i;
      else if (valid_i && active_i) acc_q <= fold(acc_q, elem_i, vew_i);
    end
  end
  assign result_o = acc_q;
endmodule
