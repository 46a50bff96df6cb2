// BUG with --done level: the status bit clears itself two cycles after it rises, before the
// next start (a level the consumer may sample late).
module sv_seq_bug_level_drop #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 2) (
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
  logic [1:0] age_q;
  always_ff @(posedge clk) begin
    if (rst) begin
      done <= 1'b0;
      age_q <= '0;
    end else if (start) begin
      done <= 1'b0;
      acc_q <= seed;
    end else if (in_valid) begin
      acc_q <= m;
      if (last) begin
        done <= 1'b1;
        age_q <= '0;
      end
    end else if (done) begin
      age_q <= age_q + 1;
      if (age_q == 2'd1) done <= 1'b0;
    end
  end
  assign result = acc_q;
endmodule
