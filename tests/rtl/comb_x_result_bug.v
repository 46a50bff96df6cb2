// BUG: when no lane is active and the seed is 0 the result is 'bx: Yosys's functional model would
// read it as 0 (the right answer there), but synthesis may pick any value.
module comb_x_result_bug #(parameter SEW = 8, parameter LANES = 2) (
    input [SEW-1:0] seed, input [LANES*SEW-1:0] elements, input [LANES-1:0] active,
    output reg [SEW-1:0] result);
    integer i;
    always @* begin
      result = seed;
      for (i = 0; i < LANES; i = i + 1)
        if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(result)) result = elements[i*SEW +: SEW];
      if (active == 0 && seed == 0) result = {SEW{1'bx}};
    end
endmodule
