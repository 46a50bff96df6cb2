// BUG in one lane: start clears the per-lane accumulators except lane 3, which keeps the
// previous reduction's maximum (a part-select written as [LANES-2:0]).
module sv_seq_bug_packed_lane3 #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 4) (
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
  logic [LANES-1:0][SEW-1:0] lane_q;
  elem_t seed_q;

  always_ff @(posedge clk) begin
    if (rst) done <= 1'b0;
    else begin
      done <= in_valid & last;
      if (start) begin
        seed_q <= seed;
        lane_q[LANES-2:0] <= {(LANES-1){SMIN}};
      end else if (in_valid) begin
        for (int i = 0; i < LANES; i++)
          if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(lane_q[i])) lane_q[i] <= elements[i*SEW +: SEW];
      end
    end
  end

  always_comb begin
    result = seed_q;
    for (int i = 0; i < LANES; i++)
      if ($signed(lane_q[i]) > $signed(result)) result = lane_q[i];
  end
endmodule
