// BUG at one SEW: the sign bit for SEW=16 is taken from bit 14 (SEW=8 and 32 are right).
// Elements are SEW bits in the low bits of 32-bit lanes, any upper bits.
module sv_bug_sew16 import vred_pkg::*; #(parameter int unsigned LANES = 2) (
    input  vew_e                   vew_i,
    input  logic [31:0]            seed,
    input  logic [LANES-1:0][31:0] elements,
    input  logic [LANES-1:0]       active,
    output logic [31:0]            result
);
  function automatic logic signed [32:0] key(logic [31:0] v, vew_e vew);
    unique case (vew)
      EW8:     return {{25{v[7]}}, v[7:0]};
      EW16:    return {{18{v[14]}}, v[14:0]};
      default: return {v[31], v};
    endcase
  endfunction
  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++)
      if (active[i] && key(elements[i], vew_i) > key(result, vew_i)) result = elements[i];
  end
endmodule
