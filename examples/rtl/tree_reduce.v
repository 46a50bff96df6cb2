// A combinational vredmax reduction unit: a log-depth tree of signed-max nodes.
// Inactive lanes are padded with the signed minimum (the identity of signed max);
// the seed joins at the root. Ports follow the conventions of `vredmax check-rtl`.
module smax2 #(parameter SEW = 8) (
    input  [SEW-1:0] a,
    input  [SEW-1:0] b,
    output [SEW-1:0] y
);
    assign y = ($signed(a) >= $signed(b)) ? a : b;
endmodule

module tree_reduce #(parameter SEW = 8, parameter LANES = 8) (
    input  [SEW-1:0]       seed,
    input  [LANES*SEW-1:0] elements,   // element i in bits i*SEW and up
    input  [LANES-1:0]     active,
    output [SEW-1:0]       result
);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    // node[1] is the root; node[LANES + i] is leaf i (LANES a power of two)
    wire [SEW-1:0] node [1:2*LANES-1];
    genvar i;
    generate
        for (i = 0; i < LANES; i = i + 1) begin : leaf
            assign node[LANES + i] = active[i] ? elements[i*SEW +: SEW] : SMIN;
        end
        for (i = 1; i < LANES; i = i + 1) begin : inner
            smax2 #(.SEW(SEW)) join2 (.a(node[2*i]), .b(node[2*i + 1]), .y(node[i]));
        end
    endgenerate
    smax2 #(.SEW(SEW)) with_seed (.a(seed), .b(node[1]), .y(result));
endmodule
