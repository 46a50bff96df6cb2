// Correct: one accumulator per lane (from the signed minimum), the seed kept aside; after the
// last chunk a registered tree across the lanes, then the seed: done two cycles after last.
module seq_lanes_ok #(parameter SEW = 8, parameter LANES = 4) (
    input clk, input rst, input start, input [SEW-1:0] seed, input in_valid,
    input [LANES*SEW-1:0] elements, input [LANES-1:0] active, input last,
    output reg [SEW-1:0] result, output reg done);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    reg [SEW-1:0] seed_q, lanes_max, t;
    reg stage;
    integer k;
    wire [LANES*SEW-1:0] accs;
    genvar j;
    generate for (j = 0; j < LANES; j = j + 1) begin : lane
        reg [SEW-1:0] acc;
        assign accs[j*SEW +: SEW] = acc;
        always @(posedge clk)
            if (!rst) begin
                if (start) acc <= SMIN;
                else if (in_valid && active[j] && $signed(elements[j*SEW +: SEW]) > $signed(acc))
                    acc <= elements[j*SEW +: SEW];
            end
    end endgenerate
    always @* begin
        t = SMIN;
        for (k = 0; k < LANES; k = k + 1)
            if ($signed(accs[k*SEW +: SEW]) > $signed(t)) t = accs[k*SEW +: SEW];
    end
    always @(posedge clk) begin
        if (rst) begin stage <= 1'b0; done <= 1'b0; end
        else begin
            if (start) seed_q <= seed;
            stage <= in_valid && last;
            if (stage) lanes_max <= t;
            done <= stage;
            if (stage) result <= ($signed(seed_q) > $signed(t)) ? seed_q : t;
        end
    end
endmodule
