// Correct: the latency depends on the data: done one cycle after the last chunk, two when
// that chunk has no active lane (two done paths; the invariant must say which one runs).
module seq_variable_latency_ok #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output done);
    reg [SEW-1:0] acc, m; reg d1, d2a, d2b; integer i;
    always @* begin
      m = acc;
      for (i = 0; i < LANES; i = i + 1)
        if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
      if (rst) begin d1 <= 0; d2a <= 0; d2b <= 0; end
      else begin
        d1 <= in_valid && last && (|active);
        d2a <= in_valid && last && !(|active);
        d2b <= d2a;
        if (start) acc <= seed; else if (in_valid) acc <= m;
      end
    end
    assign done = d1 | d2b;
    assign result = acc;
endmodule
