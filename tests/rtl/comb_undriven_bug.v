// BUG: a wire nobody drives reaches the result (when no lane is active and the seed is 0x5a):
// it is taken as a free input, so the check must not assume any value for it.
module comb_undriven_bug #(parameter SEW = 8, parameter LANES = 1) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output [SEW-1:0] result);
    wire [SEW-1:0] junk;
    wire [SEW-1:0] m = ($signed(elements) > $signed(seed)) ? elements : seed;
    assign result = active[0] ? m : (seed == 8'h5a ? junk : seed);
endmodule
