// BUG: start clears the accumulator to the signed minimum instead of loading the seed.
module seq_acc_not_seeded #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output reg done);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    reg [SEW-1:0] acc, m;
    integer i;
    assign result = acc;
    always @* begin
        m = acc;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
        if (rst) done <= 1'b0;
        else begin
            done <= in_valid && last;
            if (start) acc <= SMIN;
            else if (in_valid) acc <= m;
        end
    end
endmodule
