// BUG: the first level pairs lanes (2k, 2k+1); with an odd LANES the last lane has no
// partner and is dropped instead of moving up a level.
module comb_odd_lane_dropped #(parameter SEW = 8, parameter LANES = 5) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output reg [SEW-1:0] result);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    integer k;
    reg [SEW-1:0] a, b, pair;
    always @* begin
        result = seed;
        for (k = 0; k < LANES / 2; k = k + 1) begin
            a = active[2*k] ? elements[2*k*SEW +: SEW] : SMIN;
            b = active[2*k+1] ? elements[(2*k+1)*SEW +: SEW] : SMIN;
            pair = ($signed(a) > $signed(b)) ? a : b;
            if ($signed(pair) > $signed(result)) result = pair;
        end
    end
endmodule
