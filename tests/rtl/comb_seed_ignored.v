// BUG: the seed is used only when no lane is active (it must always be included).
module comb_seed_ignored #(parameter SEW = 8, parameter LANES = 4) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output [SEW-1:0] result);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    integer i;
    reg [SEW-1:0] m;
    always @* begin
        m = SMIN;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    assign result = (active == 0) ? seed : m;
endmodule
