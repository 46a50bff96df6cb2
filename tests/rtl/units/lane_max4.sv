// Four 32-bit lanes reduced to their signed maximum; masked lanes take the pad. No import of
// its own: it relies on a file-scope import earlier in the same compilation unit.
module lane_max4 (
  input  op_t          op,
  input  word_t [3:0]  lanes,
  input  logic  [3:0]  mask,
  input  word_t        pad,
  output word_t        out
);
  word_t [3:0] kept;
  word_t low, high;
  always_comb begin
    for (int i = 0; i < 4; i++) kept[i] = mask[i] ? lanes[i] : pad;
  end
  assign low  = ($signed(kept[0]) > $signed(kept[1])) ? kept[0] : kept[1];
  assign high = ($signed(kept[2]) > $signed(kept[3])) ? kept[2] : kept[3];
  assign out  = (op == OP_MAX) ? (($signed(low) > $signed(high)) ? low : high) : '0;
endmodule
