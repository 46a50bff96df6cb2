// BUG in one lane: lane 5's comparison in the first level of the tree is unsigned
// (a copy-paste slip in a hand-unrolled tree).
module sv_bug_lane5 #(parameter int unsigned SEW = 8) (
    input  logic [SEW-1:0]   seed,
    input  logic [8*SEW-1:0] elements,
    input  logic [7:0]       active,
    output logic [SEW-1:0]   result
);
  typedef logic [SEW-1:0] elem_t;
  localparam elem_t SMIN = elem_t'(1) << (SEW - 1);
  elem_t leaf [8];
  elem_t l1 [4];
  elem_t l2 [2];
  always_comb begin
    for (int i = 0; i < 8; i++) leaf[i] = active[i] ? elements[i*SEW +: SEW] : SMIN;
    l1[0] = $signed(leaf[0]) >= $signed(leaf[1]) ? leaf[0] : leaf[1];
    l1[1] = $signed(leaf[2]) >= $signed(leaf[3]) ? leaf[2] : leaf[3];
    l1[2] = leaf[4] >= leaf[5] ? leaf[4] : leaf[5];
    l1[3] = $signed(leaf[6]) >= $signed(leaf[7]) ? leaf[6] : leaf[7];
    for (int i = 0; i < 2; i++) l2[i] = $signed(l1[2*i]) >= $signed(l1[2*i+1]) ? l1[2*i] : l1[2*i+1];
    result = $signed(l2[0]) >= $signed(l2[1]) ? l2[0] : l2[1];
    result = $signed(seed) >= $signed(result) ? seed : result;
  end
endmodule
