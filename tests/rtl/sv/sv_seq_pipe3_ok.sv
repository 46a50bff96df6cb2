// Correct: a 3-stage pipeline with valid bits: stage 1 reduces lane pairs, stage 2 the pairs,
// stage 3 folds the chunk's maximum into the accumulator; `last` travels with the valid bits
// and done pulses when the last chunk leaves stage 3.
module sv_seq_pipe3_ok #(parameter int unsigned SEW = 8) (
    input  logic            clk,
    input  logic            rst,
    input  logic            start,
    input  logic [SEW-1:0]  seed,
    input  logic            in_valid,
    input  logic [4*SEW-1:0] elements,
    input  logic [3:0]      active,
    input  logic            last,
    output logic [SEW-1:0]  result,
    output logic            done
);
  typedef logic [SEW-1:0] elem_t;
  localparam elem_t SMIN = elem_t'(1) << (SEW - 1);
  function automatic elem_t smax(elem_t a, elem_t b);
    return $signed(a) > $signed(b) ? a : b;
  endfunction
  function automatic elem_t lane(logic [4*SEW-1:0] e, logic [3:0] a, int i);
    return a[i] ? e[i*SEW +: SEW] : SMIN;
  endfunction

  elem_t s1_q [2];
  elem_t s2_q, acc_q;
  logic v1_q, v2_q, l1_q, l2_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      {v1_q, v2_q, l1_q, l2_q, done} <= '0;
    end else begin
      v1_q <= in_valid;
      l1_q <= in_valid & last;
      s1_q[0] <= smax(lane(elements, active, 0), lane(elements, active, 1));
      s1_q[1] <= smax(lane(elements, active, 2), lane(elements, active, 3));
      v2_q <= v1_q;
      l2_q <= l1_q;
      s2_q <= smax(s1_q[0], s1_q[1]);
      if (start) acc_q <= seed;
      else if (v2_q) acc_q <= smax(acc_q, s2_q);
      done <= l2_q;
    end
  end
  assign result = acc_q;
endmodule
