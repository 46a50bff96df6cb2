// Correct: an FSM whose unreachable default state assigns 'bx (a common style): free, and unreachable.
module seq_fsm_x_default_ok #(parameter SEW = 8, parameter LANES = 2) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output done);
    reg [1:0] state, nstate; reg [SEW-1:0] acc, m; integer i;
    always @* begin
      m = acc;
      for (i = 0; i < LANES; i = i + 1)
        if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @* begin
      case (state)
        2'd0: nstate = start ? 2'd1 : 2'd0;
        2'd1: nstate = (in_valid && last) ? 2'd2 : 2'd1;
        2'd2: nstate = 2'd0;
        default: nstate = 2'bxx;
      endcase
    end
    always @(posedge clk) begin
      if (rst) state <= 2'd0;
      else begin
        state <= nstate;
        if (state == 2'd0 && start) acc <= seed; else if (state == 2'd1 && in_valid) acc <= m;
      end
    end
    assign done = state == 2'd2;
    assign result = acc;
endmodule
