// BUG: done rises with the last chunk itself, a cycle early: result (the accumulator) does
// not hold the last chunk yet.
module seq_done_early #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output done);
    reg [SEW-1:0] acc, m;
    integer i;
    assign result = acc;
    assign done = in_valid && last && !rst;
    always @* begin
        m = acc;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
        if (!rst) begin
            if (start) acc <= seed;
            else if (in_valid) acc <= m;
        end
    end
endmodule
