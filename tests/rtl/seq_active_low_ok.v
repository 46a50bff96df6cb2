// Correct: an active-low synchronous reset (check with --port rst=!rst_n).
module seq_active_low_ok #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst_n, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output reg done);
    reg [SEW-1:0] acc, m; integer i;
    always @* begin
      m = acc;
      for (i = 0; i < LANES; i = i + 1)
        if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
      if (!rst_n) done <= 1'b0;
      else begin
        done <= in_valid && last;
        if (start) acc <= seed; else if (in_valid) acc <= m;
      end
    end
    assign result = acc;
endmodule
