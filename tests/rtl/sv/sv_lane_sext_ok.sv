// Correct when its elements come sign-extended: SEW-bit elements in 32-bit lanes, compared as
// whole 32-bit signed values (the element width an input); the result stays sign-extended.
// Checked with --lane-width 32 --extend sign --pin vew_i=EW{SEW}.
module sv_lane_sext_ok import vred_pkg::*; #(parameter int unsigned LANES = 4) (
    input  vew_e                 vew_i,
    input  logic [31:0]          seed,
    input  logic [LANES-1:0][31:0] elements,
    input  logic [LANES-1:0]     active,
    output logic [31:0]          result
);
  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++)
      if (active[i] && $signed(elements[i]) > $signed(result)) result = elements[i];
  end
endmodule
