// A SIMD max/min ALU: 64-bit words of 64/SEW elements, the element width and the operation
// inputs; slot j of the result combines slot j of the two operands. A reduction runs it on the
// accumulator word and each operand word (masked-off elements already replaced by the
// identity), so slot j of the result reduces slot j of every word.
module simd_max_alu import vector_pkg::*; (
    input  red_op_e    op_i,
    input  vew_e       vew_i,
    input  simd_word_t opa_i,
    input  simd_word_t opb_i,
    output simd_word_t res_o
);
  logic sgn, take_max;
  assign sgn = op_i inside {VREDMAX, VREDMIN};
  assign take_max = op_i inside {VREDMAX, VREDMAXU};

  always_comb begin
    res_o = opa_i;
    unique case (vew_i)
      EW8:  for (int b = 0; b < 8; b++)
              if (($signed({sgn & opb_i.w8[b][7], opb_i.w8[b]}) > $signed({sgn & opa_i.w8[b][7], opa_i.w8[b]})) == take_max)
                res_o.w8[b] = opb_i.w8[b];
      EW16: for (int b = 0; b < 4; b++)
              if (($signed({sgn & opb_i.w16[b][15], opb_i.w16[b]}) > $signed({sgn & opa_i.w16[b][15], opa_i.w16[b]})) == take_max)
                res_o.w16[b] = opb_i.w16[b];
      EW32: for (int b = 0; b < 2; b++)
              if (($signed({sgn & opb_i.w32[b][31], opb_i.w32[b]}) > $signed({sgn & opa_i.w32[b][31], opa_i.w32[b]})) == take_max)
                res_o.w32[b] = opb_i.w32[b];
      EW64: if (($signed({sgn & opb_i.w64[0][63], opb_i.w64[0]}) > $signed({sgn & opa_i.w64[0][63], opa_i.w64[0]})) == take_max)
              res_o.w64[0] = opb_i.w64[0];
      default: ;
    endcase
  end
endmodule
