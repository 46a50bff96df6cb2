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
# Cases, the spec's decision procedure, and claims (`vredmax ask` / `refute --emit-test` files use these)
from vredmax.impl.case import case_json, parse_case
from vredmax.proofs.claims.ask import claim_holds
from vredmax.proofs.claims.claim_language import ClaimError, check as check_claim
from vredmax.proofs.claims.refute import claimed_values
from vredmax.spec.profiles import (PROFILES, Allowed, Judgement, Observed, Profile, allowed, difference_table,
                                   get_profile)
# The step-by-step trace of one case (`vredmax explain`)
from vredmax.impl.trace import Trace, trace
# Test suites (`vredmax testgen`): cases with their allowed outcomes, the files, the build
from vredmax.platforms.testgen.build import build as build_suite
from vredmax.platforms.testgen.suite import make_suite, write_suite

__all__ = [
    "__version__", "ArchState", "Concrete", "ConcreteElements", "Config", "ILLEGAL", "Insn",
    "RESERVED", "RETIRED", "Result", "Symbolic", "TrapRule", "Z3Elements", "decode_vtype",
    "encode_vtype", "execute", "legal_configs", "operands", "step", "trap_conditions", "vlmax",
    "written_vd", "case_json", "parse_case", "claim_holds", "ClaimError", "check_claim", "claimed_values",
    "Observed", "allowed", "Trace", "trace", "PROFILES", "Profile", "Allowed", "Judgement", "get_profile",
    "difference_table", "make_suite", "write_suite", "build_suite",
]
