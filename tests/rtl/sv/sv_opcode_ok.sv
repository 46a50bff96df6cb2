// Correct for signed max: an ALU-style reduction unit whose opcode is an input (pinned with
// --pin op_i=OP_MAX); signedness from `inside`, the operation from a unique case.
module sv_opcode_ok import vred_pkg::*; #(
    parameter int unsigned SEW = 16,
    parameter int unsigned LANES = 4
) (
    input  red_op_e              op_i,
    input  logic [SEW-1:0]       seed,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    output logic [SEW-1:0]       result
);
  logic sgn;
  assign sgn = is_signed_op(op_i);

  function automatic logic [SEW-1:0] combine(red_op_e op, logic s, logic [SEW-1:0] a, logic [SEW-1:0] b);
    logic less;
    less = $signed({s & a[SEW-1], a}) < $signed({s & b[SEW-1], b});
    unique case (op)
      OP_SUM:                return a + b;
      OP_AND:                return a & b;
      OP_MAX, OP_MAXU:       return less ? b : a;
      OP_MIN, OP_MINU:       return less ? a : b;
      default:               return 'x;
    endcase
  endfunction

  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++)
      if (active[i]) result = combine(op_i, sgn, result, elements[i*SEW +: SEW]);
  end
endmodule
