// Correct: a shift register of last-chunk flags whose top bit nobody reads (Yosys removes
// its flip-flop and leaves the bit undriven); result may change after the done pulse.
module seq_unread_bit_ok #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output [SEW-1:0] result, output done);
    reg [SEW-1:0] acc, m;
    reg [1:0] d;
    integer i;
    always @* begin
        m = acc;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i] && $signed(elements[i*SEW +: SEW]) > $signed(m)) m = elements[i*SEW +: SEW];
    end
    always @(posedge clk) begin
        if (rst) d <= 2'b0;
        else begin
            d <= {d[0], in_valid & last};
            if (start) acc <= seed;
            else if (in_valid || d[0]) acc <= m;   // folds junk in the done cycle: seen only after it
        end
    end
    assign done = d[0];
    assign result = acc;
endmodule
