// Correct: a tree that skips invalid children (a valid bit travels with each value) instead
// of padding with the identity; the seed joins at the root.
module comb_valid_tree_ok #(parameter SEW = 8, parameter LANES = 4) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output [SEW-1:0] result);
    wire [SEW-1:0] val [1:2*LANES-1];
    wire ok [1:2*LANES-1];
    genvar i;
    generate
        for (i = 0; i < LANES; i = i + 1) begin : leaf
            assign val[LANES + i] = elements[i*SEW +: SEW];
            assign ok[LANES + i] = active[i];
        end
        for (i = 1; i < LANES; i = i + 1) begin : node
            wire both = ok[2*i] && ok[2*i+1];
            wire left_wins = $signed(val[2*i]) >= $signed(val[2*i+1]);
            assign val[i] = both ? (left_wins ? val[2*i] : val[2*i+1]) : (ok[2*i] ? val[2*i] : val[2*i+1]);
            assign ok[i] = ok[2*i] || ok[2*i+1];
        end
    endgenerate
    assign result = (ok[1] && $signed(val[1]) > $signed(seed)) ? val[1] : seed;
endmodule
