import other_pkg::*;

// The signed maximum of two 16-bit halves, after a file that imports lane_pkg.
module half_max (input word_t seed, input word_t [1:0] elements, input logic [1:0] active, output word_t result);
  word_t a, b;
  assign a = active[0] ? elements[0] : 16'h8000;
  assign b = active[1] ? elements[1] : 16'h8000;
  always_comb begin
    result = seed;
    if ($signed(a) > $signed(result)) result = a;
    if ($signed(b) > $signed(result)) result = b;
  end
endmodule
