// Correct: the combine step chosen by a priority case over `inside` sets (vredmax and vmax
// share the signed path); typedef'd enum arguments; unique0 for the tie-break.
module sv_priority_ok import vred_pkg::*; #(parameter int unsigned SEW = 32, parameter int unsigned LANES = 3) (
    input  red_op_e              op_i,
    input  logic [SEW-1:0]       seed,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    output logic [SEW-1:0]       result
);
  typedef enum logic [1:0] {PICK_A, PICK_B} pick_e;

  function automatic pick_e pick(red_op_e op, logic [SEW-1:0] a, logic [SEW-1:0] b);
    priority case (1'b1)
      op inside {OP_MAX}:           return $signed(b) > $signed(a) ? PICK_B : PICK_A;
      op inside {OP_MAXU}:          return b > a ? PICK_B : PICK_A;
      op inside {OP_MIN, OP_MINU}:  return PICK_A;
      default:                      return PICK_A;
    endcase
  endfunction

  always_comb begin
    result = seed;
    for (int i = 0; i < LANES; i++) begin
      pick_e p;
      p = pick(op_i, result, elements[i*SEW +: SEW]);
      if (active[i]) begin
        unique0 case (p)
          PICK_B: result = elements[i*SEW +: SEW];
        endcase
      end
    end
  end
endmodule
