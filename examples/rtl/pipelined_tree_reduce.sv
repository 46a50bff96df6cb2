// A pipelined multi-cycle reduction: each chunk of LANES elements goes through a tree split in
// two register stages (pairs of half-trees, then their maximum), then into the accumulator;
// valid and last bits travel with the data and done pulses when the last chunk leaves.
module pipelined_tree_reduce #(
    parameter int unsigned SEW = 32,
    parameter int unsigned LANES = 8
) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 start,
    input  logic [SEW-1:0]       seed,
    input  logic                 in_valid,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    input  logic                 last,
    output logic [SEW-1:0]       result,
    output logic                 done
);
  typedef logic [SEW-1:0] elem_t;
  localparam elem_t SMIN = elem_t'(1) << (SEW - 1);
  localparam int unsigned HALF = LANES / 2;

  function automatic elem_t smax(elem_t a, elem_t b);
    return $signed(a) >= $signed(b) ? a : b;
  endfunction

  // the maximum of lanes [lo, lo+HALF), inactive lanes as the identity
  function automatic elem_t half_max(logic [LANES*SEW-1:0] e, logic [LANES-1:0] a, int lo);
    elem_t m = SMIN;
    for (int i = lo; i < lo + HALF; i++) if (a[i]) m = smax(m, e[i*SEW +: SEW]);
    return m;
  endfunction

  elem_t half_q [2];
  elem_t chunk_q, acc_q;
  logic v1_q, v2_q, l1_q, l2_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      {v1_q, v2_q, l1_q, l2_q, done} <= '0;
    end else begin
      v1_q <= in_valid;
      l1_q <= in_valid & last;
      for (int h = 0; h < 2; h++) half_q[h] <= half_max(elements, active, h * HALF);
      v2_q <= v1_q;
      l2_q <= l1_q;
      chunk_q <= smax(half_q[0], half_q[1]);
      if (start) acc_q <= seed;
      else if (v2_q) acc_q <= smax(acc_q, chunk_q);
      done <= l2_q;
    end
  end
  assign result = acc_q;
endmodule
