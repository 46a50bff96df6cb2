// Correct for masks that are "the lanes below vl" (masking left to other hardware): it counts
// the active lanes and reduces that many lanes from lane 0, so any other mask is misread.
// PROVED with --active below-vl; with an arbitrary mask, a counterexample.
module sv_below_vl_ok #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 4) (
    input  logic [SEW-1:0]       seed,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    output logic [SEW-1:0]       result
);
  logic [$clog2(LANES+1)-1:0] vl;
  always_comb begin
    vl = '0;
    for (int i = 0; i < LANES; i++) vl += active[i];
  end
  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++)
      if (i < vl && $signed(elements[i*SEW +: SEW]) > $signed(result)) result = elements[i*SEW +: SEW];
  end
endmodule
