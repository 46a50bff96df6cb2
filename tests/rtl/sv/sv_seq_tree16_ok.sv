// Correct: a multi-cycle unit with a 16-lane generate tree per chunk (inactive lanes as the
// signed minimum) folded into the accumulator; done pulses one cycle after the last chunk.
module sv_seq_tree16_ok #(parameter int unsigned SEW = 32, parameter int unsigned LANES = 16) (
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
  function automatic elem_t smax(elem_t a, elem_t b);
    return $signed(a) >= $signed(b) ? a : b;
  endfunction

  elem_t node [2*LANES-1];
  for (genvar i = 0; i < LANES; i++) begin : g_leaf
    assign node[LANES - 1 + i] = active[i] ? elements[i*SEW +: SEW] : SMIN;
  end
  for (genvar n = 0; n < LANES - 1; n++) begin : g_node
    assign node[n] = smax(node[2*n + 1], node[2*n + 2]);
  end

  elem_t acc_q;
  always_ff @(posedge clk) begin
    if (rst) done <= 1'b0;
    else begin
      done <= in_valid & last;
      if (start) acc_q <= seed;
      else if (in_valid) acc_q <= smax(acc_q, node[0]);
    end
  end
  assign result = acc_q;
endmodule
