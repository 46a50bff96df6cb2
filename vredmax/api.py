"""The public API for plug-in authors and scripts: everything here is kept stable.

Reduction units and whole-instruction steps for `vredmax check-impl` are written against the
element ops (`ConcreteElements` / `Z3Elements`) and the machine ops (`Concrete` / `Symbolic`).
Anything not re-exported here is internal and may change.
"""

from vredmax import __version__
from vredmax.impl.execute import Result, execute, operands, step, written_vd
from vredmax.spec.bv import Concrete, ConcreteElements, Symbolic, Z3Elements
from vredmax.spec.config import Config, decode_vtype, encode_vtype, legal_configs, vlmax
from vredmax.spec.encoding import Insn
from vredmax.spec.legality import ILLEGAL, RESERVED, RETIRED, TrapRule, trap_conditions
from vredmax.spec.state import ArchState

__all__ = [
    "__version__", "ArchState", "Concrete", "ConcreteElements", "Config", "ILLEGAL", "Insn",
    "RESERVED", "RETIRED", "Result", "Symbolic", "TrapRule", "Z3Elements", "decode_vtype",
    "encode_vtype", "execute", "legal_configs", "operands", "step", "trap_conditions", "vlmax",
    "written_vd",
]
