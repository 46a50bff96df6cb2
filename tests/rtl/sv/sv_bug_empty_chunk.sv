// BUG: when no lane is active the result is 0, not the seed (a "nothing to do" shortcut).
module sv_bug_empty_chunk #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 4) (
    input  logic [SEW-1:0]       seed,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    output logic [SEW-1:0]       result
);
  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++)
      if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(result)) result = elements[i*SEW +: SEW];
    if (active == '0) result = '0;
  end
endmodule
