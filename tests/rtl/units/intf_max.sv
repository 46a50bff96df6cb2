// Reduction units whose data comes through an interface port (a modport), as cores bundle buses.
interface red_bus #(parameter int SEW = 8, parameter int LANES = 4);
  logic [SEW-1:0]       seed;
  logic [LANES*SEW-1:0] elements;
  logic [LANES-1:0]     active;
  logic [SEW-1:0]       result;
  modport unit (input seed, elements, active, output result);
endinterface

module intf_max_ok (red_bus.unit bus);
  always_comb begin
    bus.result = bus.seed;
    for (int i = 0; i < 4; i++)
      if (bus.active[i] && $signed(bus.elements[i*8 +: 8]) > $signed(bus.result)) bus.result = bus.elements[i*8 +: 8];
  end
endmodule

// BUG: lane 3 is taken whether active or not.
module intf_max_lane3 (red_bus.unit bus);
  always_comb begin
    bus.result = bus.seed;
    for (int i = 0; i < 4; i++)
      if ((bus.active[i] || i == 3) && $signed(bus.elements[i*8 +: 8]) > $signed(bus.result))
        bus.result = bus.elements[i*8 +: 8];
  end
endmodule
