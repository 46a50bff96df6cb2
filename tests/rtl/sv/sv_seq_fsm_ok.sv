// Correct: an FSM with an enum state (IDLE, RUN, FINISH), an active-low asynchronous reset, a
// struct for the chunk, and a FINISH state that raises done for one cycle with the result.
module sv_seq_fsm_ok #(parameter int unsigned SEW = 16, parameter int unsigned LANES = 2) (
    input  logic                 clk,
    input  logic                 rst_ni,
    input  logic                 start,
    input  logic [SEW-1:0]       seed,
    input  logic                 in_valid,
    input  logic [LANES*SEW-1:0] elements,
    input  logic [LANES-1:0]     active,
    input  logic                 last,
    output logic [SEW-1:0]       result,
    output logic                 done
);
  typedef enum logic [1:0] {IDLE, RUN, FINISH} state_e;
  typedef struct packed {
    logic [LANES-1:0]          active;
    logic [LANES-1:0][SEW-1:0] data;
  } chunk_t;

  state_e state_q, state_d;
  logic [SEW-1:0] acc_q, acc_d;
  chunk_t chunk;
  assign chunk = '{active: active, data: elements};

  always_comb begin
    state_d = state_q;
    acc_d = acc_q;
    unique case (state_q)
      IDLE:   if (start) begin state_d = RUN; acc_d = seed; end
      RUN:    if (in_valid) begin
                for (int i = 0; i < LANES; i++)
                  if (chunk.active[i] && $signed(chunk.data[i]) > $signed(acc_d)) acc_d = chunk.data[i];
                if (last) state_d = FINISH;
              end
      FINISH: state_d = IDLE;
      default: state_d = IDLE;
    endcase
  end

  always_ff @(posedge clk or negedge rst_ni) begin
    if (!rst_ni) state_q <= IDLE;
    else state_q <= state_d;
  end
  always_ff @(posedge clk) acc_q <= acc_d;

  assign done = state_q == FINISH;
  assign result = acc_q;
endmodule
