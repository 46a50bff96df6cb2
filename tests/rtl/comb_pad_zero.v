// BUG: inactive lanes are padded with zero instead of the signed minimum, so an all-negative
// reduction returns 0 when some lane is inactive.
module comb_pad_zero #(parameter SEW = 8, parameter LANES = 4) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output reg [SEW-1:0] result);
    integer i;
    reg [SEW-1:0] x;
    always @* begin
        result = seed;
        for (i = 0; i < LANES; i = i + 1) begin
            x = active[i] ? elements[i*SEW +: SEW] : {SEW{1'b0}};
            if ($signed(x) > $signed(result)) result = x;
        end
    end
endmodule
