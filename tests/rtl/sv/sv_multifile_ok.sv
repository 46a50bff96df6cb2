// Correct: types from two packages in other files (imported inside the module body), a macro
// from an include folder, and a +define+ choosing the tree over the chain (both right).
`include "vred_defs.svh"
module sv_multifile_ok (
    input  logic [7:0]  seed,
    input  logic [31:0] elements,
    input  logic [3:0]  active,
    output logic [7:0]  result
);
  import sv_types_pkg::*;
  chunk_t chunk;
  always_comb
    for (int i = 0; i < 4; i++) chunk[i] = '{valid: active[i], value: elements[i*8 +: 8]};

  function automatic logic [7:0] pick(tagged_elem_t e, logic [7:0] acc);
    return e.valid ? `VRED_SMAX(e.value, acc) : acc;
  endfunction

`ifdef VRED_TREE
  logic [7:0] left, right;
  assign left = pick(chunk[1], pick(chunk[0], seed));
  assign right = pick(chunk[3], pick(chunk[2], 8'h80));
  assign result = `VRED_SMAX(left, right);
`else
  assign result = pick(chunk[3], pick(chunk[2], pick(chunk[1], pick(chunk[0], seed))));
`endif
endmodule
