// BUG at one SEW and one slot: the EW8 case writes slot 3 from the wrong byte of the operand
// (a typo in an unrolled byte lane); SEW=16, 32, 64 and the other bytes are right.
module sv_bug_simd_slot3 import vred_pkg::*; (
    input  vew_e  vew_i,
    input  word_t acc_i,
    input  word_t operand_i,
    output word_t result_o
);
  word_t r;
  always_comb begin
    r = acc_i;
    unique case (vew_i)
      EW8:  for (int b = 0; b < 8; b++) begin
              automatic int src = (b == 3) ? 2 : b;
              if ($signed(operand_i.w8[src]) > $signed(r.w8[b])) r.w8[b] = operand_i.w8[src];
            end
      EW16: for (int b = 0; b < 4; b++) if ($signed(operand_i.w16[b]) > $signed(r.w16[b])) r.w16[b] = operand_i.w16[b];
      EW32: for (int b = 0; b < 2; b++) if ($signed(operand_i.w32[b]) > $signed(r.w32[b])) r.w32[b] = operand_i.w32[b];
      EW64: if ($signed(operand_i.w64[0]) > $signed(r.w64[0])) r.w64[0] = operand_i.w64[0];
      default: ;
    endcase
  end
  assign result_o = r;
endmodule
