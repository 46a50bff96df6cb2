// BUG: masked-off lanes are padded with all ones (-1) instead of the signed minimum before a
// tree with no valid bits: when every active element (and the seed) is below -1, the -1 wins.
module sv_bug_pad_ones import vred_pkg::*; #(
    parameter int unsigned SEW = 8,
    parameter int unsigned LANES = 4
) (
    input  logic [SEW-1:0]       seed,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    output logic [SEW-1:0]       result
);
  logic [LANES-1:0][SEW-1:0] padded;
  always_comb
    for (int i = 0; i < LANES; i++)
      padded[i] = active[i] ? elements[i*SEW +: SEW] : '1;

  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++)
      if ($signed(padded[i]) > $signed(result)) result = padded[i];
  end
endmodule
