// Correct: a SIMD max unit (64-bit words of 64/SEW elements, the element width an input, the
// operation an input), the words seen through a packed union; slot j of the result is the
// maximum of slot j of the operand words. Checked with --simd 64 --pin vew_i=EW{SEW}
// --pin op_i=OP_MAX --active all.
module sv_simd_ok import vred_pkg::*; (
    input  red_op_e     op_i,
    input  vew_e        vew_i,
    input  word_t       acc_i,
    input  word_t [1:0] operands_i,
    output word_t       result_o
);
  logic sgn;
  assign sgn = is_signed_op(op_i);
  word_t r;
  always_comb begin
    r = acc_i;
    for (int w = 0; w < 2; w++) begin
      unique case (vew_i)
        EW8:  for (int b = 0; b < 8; b++)
                if ($signed({sgn & operands_i[w].w8[b][7], operands_i[w].w8[b]}) > $signed({sgn & r.w8[b][7], r.w8[b]}))
                  r.w8[b] = operands_i[w].w8[b];
        EW16: for (int b = 0; b < 4; b++)
                if ($signed({sgn & operands_i[w].w16[b][15], operands_i[w].w16[b]}) > $signed({sgn & r.w16[b][15], r.w16[b]}))
                  r.w16[b] = operands_i[w].w16[b];
        EW32: for (int b = 0; b < 2; b++)
                if ($signed({sgn & operands_i[w].w32[b][31], operands_i[w].w32[b]}) > $signed({sgn & r.w32[b][31], r.w32[b]}))
                  r.w32[b] = operands_i[w].w32[b];
        EW64: if ($signed({sgn & operands_i[w].w64[0][63], operands_i[w].w64[0]}) > $signed({sgn & r.w64[0][63], r.w64[0]}))
                r.w64[0] = operands_i[w].w64[0];
        default: ;
      endcase
    end
  end
  assign result_o = r;
endmodule
