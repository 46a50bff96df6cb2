// BUG: a 10-bit chunk counter; when it wraps (after 1024 chunks) the accumulator restarts from
// the seed. Beyond the bounded check's reach: found by simulating long reductions.
module seq_counter_wrap #(parameter SEW = 8, parameter LANES = 2) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output reg done);
    reg [SEW-1:0] acc, m, seed_q; reg [9:0] cnt; integer i;
    always @* begin
      m = acc;
      for (i = 0; i < LANES; i = i + 1)
        if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
      if (rst) done <= 1'b0;
      else begin
        done <= in_valid && last;
        if (start) begin acc <= seed; seed_q <= seed; cnt <= 0; end
        else if (in_valid) begin cnt <= cnt + 1; acc <= (cnt == 10'h3ff) ? seed_q : m; end
      end
    end
    assign result = acc;
endmodule
