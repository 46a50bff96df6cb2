// BUG: the signedness is decoded from the wrong opcode set (OP_MAXU instead of OP_MAX):
// with op_i pinned to OP_MAX the comparison is unsigned.
module sv_bug_opcode_unsigned import vred_pkg::*; #(
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
  assign sgn = op_i inside {OP_MAXU, OP_MIN};

  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++) begin
      logic [SEW-1:0] e;
      e = elements[i*SEW +: SEW];
      if (active[i] && $signed({sgn & e[SEW-1], e}) > $signed({sgn & result[SEW-1], result}))
        result = e;
    end
  end
endmodule
