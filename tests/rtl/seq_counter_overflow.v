// BUG: a 3-bit chunk counter decides when to fold in the seed register (count == 0); after
// 8 chunks it wraps, and the ninth chunk restarts from the seed, losing the first eight.
module seq_counter_overflow #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output reg done);
    reg [SEW-1:0] acc, seed_q, base, m;
    reg [2:0] count;
    integer i;
    assign result = acc;
    always @* begin
        base = (count == 0) ? seed_q : acc;
        m = base;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
        if (rst) begin done <= 1'b0; count <= 3'd0; end
        else begin
            done <= in_valid && last;
            if (start) begin seed_q <= seed; acc <= seed; count <= 3'd0; end
            else if (in_valid) begin acc <= m; count <= count + 3'd1; end
        end
    end
endmodule
