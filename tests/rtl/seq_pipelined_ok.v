// Correct: a two-stage pipeline. Stage 1 registers the chunk's maximum; stage 2 folds it
// into the accumulator a cycle later; done follows the last chunk through both stages.
module seq_pipelined_ok #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output reg done);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    reg [SEW-1:0] acc, chunk_q, m;
    reg valid_q, last_q;
    integer i;
    assign result = acc;
    always @* begin
        m = SMIN;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
        if (rst) begin valid_q <= 1'b0; last_q <= 1'b0; done <= 1'b0; end
        else begin
            valid_q <= in_valid;
            last_q <= in_valid && last;
            chunk_q <= m;
            done <= last_q;
            if (start) acc <= seed;
            else if (valid_q && $signed(chunk_q) > $signed(acc)) acc <= chunk_q;
        end
    end
endmodule
