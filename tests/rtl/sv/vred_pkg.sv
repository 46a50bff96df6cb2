// Types shared by the SystemVerilog test units (the way vector cores keep theirs in a package).
package vred_pkg;
  typedef enum logic [2:0] {
    OP_SUM  = 3'd0,
    OP_MAX  = 3'd1,
    OP_MAXU = 3'd2,
    OP_MIN  = 3'd3,
    OP_MINU = 3'd4,
    OP_AND  = 3'd5
  } red_op_e;

  // element width as the vtype vsew field encodes it
  typedef enum logic [1:0] {
    EW8  = 2'd0,
    EW16 = 2'd1,
    EW32 = 2'd2,
    EW64 = 2'd3
  } vew_e;

  typedef union packed {
    logic [0:0][63:0] w64;
    logic [1:0][31:0] w32;
    logic [3:0][15:0] w16;
    logic [7:0][7:0]  w8;
  } word_t;

  typedef struct packed {
    logic    first;     // the first element of a reduction: take the seed
    logic    last;      // the last one
    logic    past_vl;   // this element is at or beyond vl
    red_op_e op;
    vew_e    vew;
  } elem_ctrl_t;

  function automatic logic is_signed_op(red_op_e op);
    return op inside {OP_MAX, OP_MIN};
  endfunction

  function automatic logic [63:0] sext(logic [63:0] value, vew_e vew);
    unique case (vew)
      EW8:     return {{56{value[7]}}, value[7:0]};
      EW16:    return {{48{value[15]}}, value[15:0]};
      EW32:    return {{32{value[31]}}, value[31:0]};
      default: return value;
    endcase
  endfunction
endpackage
