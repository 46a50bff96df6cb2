// Types shared by the SystemVerilog examples, kept in a package as vector cores do.
package vector_pkg;
  // the vtype vsew encoding of the element width
  typedef enum logic [1:0] {EW8 = 2'd0, EW16 = 2'd1, EW32 = 2'd2, EW64 = 2'd3} vew_e;

  typedef enum logic [2:0] {
    VREDSUM = 3'd0, VREDMAX = 3'd1, VREDMAXU = 3'd2, VREDMIN = 3'd3, VREDMINU = 3'd4
  } red_op_e;

  // a 64-bit SIMD word seen at each element width
  typedef union packed {
    logic [0:0][63:0] w64;
    logic [1:0][31:0] w32;
    logic [3:0][15:0] w16;
    logic [7:0][7:0]  w8;
  } simd_word_t;

  // the control word that travels with each element of a lane-serial unit
  typedef struct packed {
    logic    first;      // the first element: take the seed too
    logic    last;       // the last element of the reduction
    logic    past_vl;    // this element is at or beyond vl
    red_op_e op;
    vew_e    vew;
  } elem_ctrl_t;
endpackage
