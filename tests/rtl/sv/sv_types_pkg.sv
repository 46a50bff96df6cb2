// A second package whose types build on vred_pkg's (types across files).
package sv_types_pkg;
  import vred_pkg::*;
  typedef struct packed {
    logic       valid;
    logic [7:0] value;
  } tagged_elem_t;
  typedef tagged_elem_t [3:0] chunk_t;
endpackage
