// BUG: `>` on unsigned wires: the maximum is unsigned (vredmaxu), -2 beats 3.
module comb_unsigned #(parameter SEW = 8, parameter LANES = 4) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output reg [SEW-1:0] result);
    integer i;
    always @* begin
        result = seed;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && elements[i*SEW +: SEW] > result) result = elements[i*SEW +: SEW];
    end
endmodule
