// Correct: a tree over an odd number of lanes, renamed ports (--port), the odd lane moving
// up a level; a linear fold written as an always loop.
module comb_odd_tree_ok #(parameter SEW = 8, parameter LANES = 5) (
    input [SEW-1:0] init, input [LANES*SEW-1:0] vals, input [LANES-1:0] mask,
    output reg [SEW-1:0] out);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    integer k;
    reg [SEW-1:0] a, b, pair;
    always @* begin
        out = init;
        for (k = 0; k < (LANES + 1) / 2; k = k + 1) begin
            a = mask[2*k] ? vals[2*k*SEW +: SEW] : SMIN;
            b = (2*k + 1 < LANES && mask[2*k+1]) ? vals[(2*k+1)*SEW +: SEW] : SMIN;
            pair = ($signed(a) >= $signed(b)) ? a : b;
            if ($signed(pair) > $signed(out)) out = pair;
        end
    end
endmodule
