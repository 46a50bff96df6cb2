// BUG at one chunk count: a 5-bit chunk counter decides when the result is final, and a
// reduction of a multiple of 32 chunks (the counter back at 0) never raises done.
module sv_seq_bug_chunk32 #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 2) (
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
  logic [4:0] count_q;
  logic last_q;
  always_comb begin
    m = acc_q;
    for (int i = 0; i < LANES; i++)
      if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
  end
  always_ff @(posedge clk) begin
    if (rst) begin
      last_q <= 1'b0;
      count_q <= '0;
    end else begin
      last_q <= in_valid & last;
      if (start) begin
        acc_q <= seed;
        count_q <= '0;
      end else if (in_valid) begin
        acc_q <= m;
        count_q <= count_q + 1;
      end
    end
  end
  assign done = last_q && count_q != '0;
  assign result = acc_q;
endmodule
