// Correct: valid/ready on both sides. A chunk is taken when in_valid and in_ready; the unit
// then spends a cycle folding it (in_ready low). The result waits, done held, until out_ready.
module sv_seq_handshake_ok #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 2) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 start,
    input  logic [SEW-1:0]       seed,
    input  logic                 in_valid,
    output logic                 in_ready,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    input  logic                 last,
    output logic [SEW-1:0]       result,
    output logic                 done,
    input  logic                 out_ready
);
  typedef logic [SEW-1:0] elem_t;
  localparam elem_t SMIN = elem_t'(1) << (SEW - 1);
  elem_t acc_q, chunk_q, m;
  logic full_q, last_q;

  always_comb begin
    m = SMIN;
    for (int i = 0; i < LANES; i++)
      if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
  end
  assign in_ready = !full_q && !done;

  always_ff @(posedge clk) begin
    if (rst) begin
      full_q <= 1'b0;
      done <= 1'b0;
    end else begin
      if (start) acc_q <= seed;
      if (in_valid && in_ready) begin
        chunk_q <= m;
        last_q <= last;
        full_q <= 1'b1;
      end else if (full_q) begin
        if ($signed(chunk_q) > $signed(acc_q)) acc_q <= chunk_q;
        full_q <= 1'b0;
        if (last_q) done <= 1'b1;
      end
      if (done && out_ready) done <= 1'b0;
    end
  end
  assign result = acc_q;
endmodule
