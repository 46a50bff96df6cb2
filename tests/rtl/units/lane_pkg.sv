// Types shared by the units of this folder, as a core's package.
package lane_pkg;
  typedef logic [31:0] word_t;
  typedef enum logic [1:0] {OP_ADD, OP_MAX, OP_MIN} op_t;
endpackage
