// Correct: a generate tree over LANES lanes (a power of two), the package imported in the
// header, a parameter type for the element and a function with typed arguments.
module sv_tree_ok import vred_pkg::*; #(
    parameter int unsigned SEW = 8,
    parameter int unsigned LANES = 8,
    parameter type elem_t = logic [SEW-1:0]
) (
    input  elem_t                  seed,
    input  logic [LANES*SEW-1:0]   elements,
    input  logic [LANES-1:0]       active,
    output elem_t                  result
);
  localparam int unsigned LEVELS = $clog2(LANES);
  localparam elem_t SMIN = elem_t'(1) << (SEW - 1);

  function automatic elem_t smax(elem_t a, elem_t b);
    return $signed(a) >= $signed(b) ? a : b;
  endfunction

  elem_t node [2*LANES-1];
  for (genvar i = 0; i < LANES; i++) begin : g_leaf
    assign node[LANES - 1 + i] = active[i] ? elements[i*SEW +: SEW] : SMIN;
  end
  for (genvar n = 0; n < LANES - 1; n++) begin : g_node
    assign node[n] = smax(node[2*n + 1], node[2*n + 2]);
  end
  assign result = smax(seed, node[0]);
endmodule
