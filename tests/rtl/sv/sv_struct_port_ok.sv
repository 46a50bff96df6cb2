// Correct: the chunk arrives as a packed struct port (data and valid bits as fields), mapped
// with --port elements=chunk_i.data --port active=chunk_i.valid; a tag field is ignored.
module sv_struct_port_ok #(parameter int unsigned SEW = 8, parameter int unsigned LANES = 4) (
    input  logic [SEW-1:0] seed_i,
    input  struct packed {
      logic [3:0]                tag;
      logic [LANES-1:0]          valid;
      logic [LANES-1:0][SEW-1:0] data;
    } chunk_i,
    output logic [SEW-1:0] max_o
);
  always_comb begin
    max_o = seed_i;
    for (int i = 0; i < LANES; i++)
      if (chunk_i.valid[i] && $signed(chunk_i.data[i]) > $signed(max_o)) max_o = chunk_i.data[i];
  end
endmodule
