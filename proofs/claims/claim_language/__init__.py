"""The claim language of `vredmax ask`: a Python expression, parsed with `ast`, never run.

Three modules, one idea each: `grammar` (the vocabulary and `parse`), `checker` (`check`),
`translator` (`Translator`, `World`, `compared_values`).

A claim is read in two passes. `check` types it without any configuration: every name,
field, call and operator is known, every operand has the right type, every variable is
bound; the first problem is a ClaimError naming its column. `Translator` then turns it into
one Z3 Boolean over a `World` (a configuration's symbolic pre-state, instruction, outcome
and post-state): generators over `range(...)` are unrolled, so a bound variable is always
a Python int when an index is taken.

Types: `bool` (conditions and flags), `int` (vl, vstart, vtype, register numbers, the
configuration constants, literals; exact integers), `element` (a SEW-bit value: seed,
vs2[i], vd[k]; compared signed with < <= > >=, unsigned with ult ule ugt uge), `register`
(a whole VLEN-bit register: pre.vd, post.vd, pre.v[r]) and `vs` (mstatus.VS: OFF, INITIAL,
CLEAN, DIRTY). An integer literal, or a constant integer (`2**SEW - 1`, VLMAX, a bound
variable), takes the type of what it is compared with (an element, a register, a flag as
0/1) and must fit it: in the signed range for a signed order (< <= > >= smax smin), the
unsigned range for an unsigned one (ult ... umax umin), either for == != and + -.

Names: `pre.F`, `post.F` (F: vl vstart vtype vs vta vma vill vd, and v[r] for register r);
`insn.vd`, `insn.vs2`, `insn.vs1` (register numbers), `insn.vm` (true: unmasked); `seed`
(vs1[0]); `vs2[i]`, `active[i]` (i < VLMAX), `mask[i]` (bit i of v0), `vs1[k]`; the
configuration's `VLMAX SEW VLEN LMUL ELEN` (LMUL may be 1/2: comparisons stay exact); the
pre-state's class, a partition: `illegal` (an illegal instruction: VS off, vill, vstart != 0),
`reserved` (a reserved encoding and not illegal), `legal` (neither); the execution's outcome:
`trapped`, `trapped_illegal` (trapped as an illegal instruction), `retired` (not trapped).
Forms: and or not, == != < <= > >= (chained too), `x if c else y`, + - on integers and
elements (elements wrap), * by a constant, / // % ** between constants, implies(a, b), ult ule
ugt uge, smax smin umax umin (arguments, a list, or a generator; a fold of nothing is the
operation's identity), all/any over a generator `for i in range(...) if ...`, min/max of
integers, integer literals, True, False.

Partial operations (an index that may be out of range, e.g. `vs2[pre.vl - 1]`, or a
constant index past VLMAX at a small configuration) are recorded with the guards in force
(`implies`, `and`, `or`, `if`, a generator's range and filter): `World.wd` holds, per
access, the condition under which it is in range; the caller proves those first.
"""

from vredmax.proofs.claims.claim_language.checker import check
from vredmax.proofs.claims.claim_language.grammar import NAMES_HELP, ClaimError, parse
from vredmax.proofs.claims.claim_language.translator import Translator, World, compared_values

__all__ = ["ClaimError", "NAMES_HELP", "Translator", "World", "check", "compared_values", "parse"]
