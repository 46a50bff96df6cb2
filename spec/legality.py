"""When vredmax.vs traps: illegal instructions and reserved encodings, in priority order.

Written against the machine ops of spec/bv.py, so the same rules decide the concrete
outcome and give the symbolic trap conditions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vredmax.spec.config import LMUL_VALUE, group_registers
from vredmax.spec.state import VS_OFF

if TYPE_CHECKING:
    from vredmax.spec.bv import Machine
    from vredmax.spec.state import ArchState

RETIRED = "retired"
ILLEGAL = "illegal-instruction"
RESERVED = "reserved"
OUTCOMES = (RETIRED, ILLEGAL, RESERVED)


@dataclass(frozen=True)
class TrapRule:
    id: str
    outcome: str
    template: str  # formatted with vd, vs2, vs1, vm, lmul, vstart, why_vill

    def reason(self, **values: object) -> str:
        return self.template.format(**values)


VS_OFF_RULE = TrapRule("vs_off", ILLEGAL, "mstatus.VS is Off")
VILL_RULE = TrapRule("vill", ILLEGAL, "{why_vill}")
VSTART_RULE = TrapRule(
    "vstart_nonzero", ILLEGAL, "vstart={vstart} is nonzero; a reduction requires vstart = 0"
)
MISALIGNED_RULE = TrapRule("vs2_misaligned", RESERVED, "vs2=v{vs2} is not a multiple of LMUL={lmul}")
V0_VS2_RULE = TrapRule("v0_mask_in_vs2", RESERVED, "vm=0 reads v0 as the mask while v0 is in the vs2 group")
V0_VS1_RULE = TrapRule("v0_mask_is_vs1", RESERVED, "vm=0 reads v0 as the mask while vs1=v0 is SEW data")
RULES = (VS_OFF_RULE, VILL_RULE, VSTART_RULE, MISALIGNED_RULE, V0_VS2_RULE, V0_VS1_RULE)


def trap_conditions(
    m: Machine, state: ArchState, insn: Any, vill: Any, lmul: str | None
) -> list[tuple[TrapRule, Any]]:
    """Each rule with the condition under which it fires, highest priority first.

    `insn` has vd, vs2, vs1 (register numbers) and vm; `vill` is a condition; `lmul` is the
    configuration's LMUL name (None only when vill is concretely true).
    """
    masked = m.eq(insn.vm, 0)
    conditions = [
        (VS_OFF_RULE, m.eq(state.vs, VS_OFF)),
        (VILL_RULE, vill),
        (VSTART_RULE, m.not_(m.eq(state.vstart, 0))),
    ]
    if lmul is None:
        return conditions
    group = group_registers(lmul)
    misaligned = m.not_(m.eq(m.low_bits(insn.vs2, group.bit_length() - 1), 0)) if group > 1 else m.false
    conditions += [
        (MISALIGNED_RULE, misaligned),
        # An aligned group holds v0 only when it starts at v0.
        (V0_VS2_RULE, m.all_(masked, m.eq(insn.vs2, 0))),
        (V0_VS1_RULE, m.all_(masked, m.eq(insn.vs1, 0))),
    ]
    return conditions


def lmul_text(lmul: str) -> str:
    value = LMUL_VALUE[lmul]
    return str(value.numerator) if value.denominator == 1 else f"1/{value.denominator}"
