// BUG: the accumulator is cleared after done and start folds the seed into it, but rst does
// not clear it: after a reduction aborted by rst, the next one sees the stale elements.
module seq_stale_after_rst #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output reg done);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    reg [SEW-1:0] acc, m;
    reg cleared_once;
    integer i;
    assign result = acc;
    always @* begin
        m = acc;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
        if (rst) begin
            done <= 1'b0;
            if (!cleared_once) begin acc <= SMIN; cleared_once <= 1'b1; end   // only the first reset clears it
        end else begin
            done <= in_valid && last;
            if (done) acc <= SMIN;
            else if (start) acc <= ($signed(seed) > $signed(acc)) ? seed : acc;
            else if (in_valid) acc <= m;
        end
    end
endmodule
