// Bug in one named net: `right` takes lane 3 instead of lane 2 when lane 2 holds 90 and lane 3
// holds 37 (1 input in 65536: random simulation misses it). The cut-point query of `right`
// fails, and its message names the net; the monolithic query gives the counterexample.
module comb_rare_node_bug #(parameter SEW = 8, parameter LANES = 4) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output [SEW-1:0] result);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    localparam [SEW-1:0] RARE2 = 90, RARE3 = 37;
    wire [SEW-1:0] l0 = active[0] ? elements[0*SEW +: SEW] : SMIN;
    wire [SEW-1:0] l1 = active[1] ? elements[1*SEW +: SEW] : SMIN;
    wire [SEW-1:0] l2 = active[2] ? elements[2*SEW +: SEW] : SMIN;
    wire [SEW-1:0] l3 = active[3] ? elements[3*SEW +: SEW] : SMIN;
    wire [SEW-1:0] left = ($signed(l0) >= $signed(l1)) ? l0 : l1;
    wire [SEW-1:0] right = (l2 == RARE2 && l3 == RARE3) ? l3 : (($signed(l2) >= $signed(l3)) ? l2 : l3);
    wire [SEW-1:0] lanes_max = ($signed(left) >= $signed(right)) ? left : right;
    assign result = ($signed(seed) >= $signed(lanes_max)) ? seed : lanes_max;
endmodule
