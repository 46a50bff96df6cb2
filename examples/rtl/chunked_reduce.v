// A multi-cycle vredmax reduction unit: LANES elements per cycle, any number of chunks.
// start loads the seed into the accumulator; each valid chunk is folded in (a small tree
// across the lanes, then one signed max with the accumulator); done pulses one cycle after
// the chunk marked last, with result = the accumulator.
module chunked_reduce #(parameter SEW = 8, parameter LANES = 4) (
    input                  clk,
    input                  rst,        // synchronous, active high
    input                  start,      // a new reduction: seed is taken in this cycle
    input  [SEW-1:0]       seed,
    input                  in_valid,   // a chunk of LANES elements is offered
    input  [LANES*SEW-1:0] elements,
    input  [LANES-1:0]     active,
    input                  last,       // this chunk is the final one
    output [SEW-1:0]       result,
    output reg             done
);
    localparam [SEW-1:0] SMIN = {1'b1, {(SEW-1){1'b0}}};
    reg [SEW-1:0] acc;
    assign result = acc;

    function [SEW-1:0] smax(input [SEW-1:0] a, input [SEW-1:0] b);
        smax = ($signed(a) >= $signed(b)) ? a : b;
    endfunction

    // the chunk's maximum, inactive lanes as the identity
    reg [SEW-1:0] chunk_max;
    integer i;
    always @* begin
        chunk_max = SMIN;
        for (i = 0; i < LANES; i = i + 1)
            if (active[i]) chunk_max = smax(chunk_max, elements[i*SEW +: SEW]);
    end

    always @(posedge clk) begin
        if (rst) begin
            done <= 1'b0;
        end else begin
            done <= in_valid && last;
            if (start)
                acc <= seed;
            else if (in_valid)
                acc <= smax(acc, chunk_max);
        end
    end
endmodule
