// Correct when its elements come zero-extended: it makes them signed by OR-ing ones into the
// upper bits of a negative element (which is right only if those bits were zeros).
// Proved with --extend zero; with --extend free (any upper bits) a counterexample.
module sv_lane_zext_ok import vred_pkg::*; #(parameter int unsigned LANES = 2) (
    input  vew_e                   vew_i,
    input  logic [31:0]            seed,
    input  logic [LANES-1:0][31:0] elements,
    input  logic [LANES-1:0]       active,
    output logic [31:0]            result
);
  function automatic logic [31:0] widen(logic [31:0] v, vew_e vew);
    unique case (vew)
      EW8:     return v[7]  ? (v | 32'hffff_ff00) : v;
      EW16:    return v[15] ? (v | 32'hffff_0000) : v;
      default: return v;
    endcase
  endfunction
  logic [31:0] best;
  always_comb begin
    best = widen(seed, vew_i);
    for (int i = 0; i < LANES; i++)
      if (active[i] && $signed(widen(elements[i], vew_i)) > $signed(best)) best = widen(elements[i], vew_i);
  end
  assign result = best;
endmodule
