// Correct with --done level: done rises one cycle after the last chunk and stays high, with the
// result, until the next start (a handshake-style status bit).
module sv_seq_level_ok #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 2) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 start,
    input  logic [SEW-1:0]       seed,
    input  logic                 in_valid,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    input  logic                 last,
    output logic [SEW-1:0]       result,
    output logic                 done
);
  logic [SEW-1:0] acc_q, m;
  always_comb begin
    m = acc_q;
    for (int i = 0; i < LANES; i++)
      if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
  end
  always_ff @(posedge clk) begin
    if (rst) done <= 1'b0;
    else if (start) begin
      done <= 1'b0;
      acc_q <= seed;
    end else if (in_valid) begin
      acc_q <= m;
      if (last) done <= 1'b1;
    end
  end
  assign result = acc_q;
endmodule
