"""The JSON case format: a pre-state plus an instruction in, a post-state out.

Every validation error is a CaseError whose message starts with the field it is about.
"""

from __future__ import annotations

import decimal
import json
import re
from collections.abc import Callable
from typing import Any

from vredmax.impl.execute import TAIL_POLICIES, Result
from vredmax.spec.config import LMUL_NAMES, SEWS, VType, check_machine, encode_vtype
from vredmax.spec.encoding import EncodingError, Insn, decode, encode, parse_asm
from vredmax.spec.state import NUM_VREGS, VS_NAMES, ArchState
from vredmax.runtime.errors import MAX_INPUT_BITS

MAX_INPUT_DIGITS = 19729  # of the widest value, 2**65536 - 1

FIELDS = ("vlen", "elen", "insn", "vtype", "vl", "vstart", "vs", "tail", "vregs")
VTYPE_FIELDS = ("sew", "lmul", "vta", "vma")


class CaseError(ValueError):
    """Bad input; the message names the field."""


class _TooLong(CaseError):
    """A JSON number past the widest value (load_json names the input)."""


def _json_int(text: str) -> int:
    """JSON integers of any size the tool reads (a VLEN=65536 register in decimal has 19729
    digits); a longer one is refused by its length, never converted."""
    if len(text.lstrip("-")) > MAX_INPUT_DIGITS:
        raise _TooLong(
            f"an integer of {len(text.lstrip('-'))} digits: no value is wider than {MAX_INPUT_BITS} bits"
        )
    try:
        return int(text)
    except ValueError:
        return int(decimal.Decimal(text))


def field_name(key: str, parent: str = "case") -> str:
    """A JSON key as the field an error names: `parent.key` (`key` at the top), or, for a key
    that is no plain name (empty, spaces, a colon), the parent with the key quoted after it."""
    if isinstance(key, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,40}", key):
        return key if parent == "case" else f"{parent}.{key}"
    return f"{parent} {json.dumps(str(key)[:40])}"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise CaseError(f"{field_name(key)}: given twice in one JSON object (duplicate key)")
        found[key] = value
    return found


def load_json(text: str, what: str = "case") -> Any:
    """Parse JSON input (every JSON the tool reads goes through here): a duplicate key is an
    error naming the key (json.loads would keep the last one silently)."""
    try:
        return json.loads(text, parse_int=_json_int, object_pairs_hook=_no_duplicates)
    except _TooLong as error:
        raise CaseError(f"{what}: {error}") from None
    except json.JSONDecodeError as error:
        raise CaseError(
            f"{what}: malformed JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise CaseError(f"{what}: malformed JSON: nested too deeply") from None


def _integer(value: object, field: str) -> int:
    """An int, or a string in decimal or 0x hex. Booleans are not integers here."""
    if isinstance(value, bool):
        raise CaseError(f"{field}: expected an integer, got {json.dumps(value)}")
    if isinstance(value, str):
        try:
            value = int(value.replace("_", ""), 0)
        except ValueError:
            pass
    if isinstance(value, int):
        if value.bit_length() > MAX_INPUT_BITS:  # nowhere valid, and too long to show
            raise CaseError(
                f"{field}: a value of {value.bit_length()} bits: no value is wider than {MAX_INPUT_BITS} bits"
            )
        return value
    raise CaseError(f"{field}: expected an integer or a hex string, got {json.dumps(value)}")


def _flag(value: object, field: str) -> bool:
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise CaseError(f"{field}: expected true/false or 0/1, got {json.dumps(value)}")


def parse_insn(value: object) -> Insn:
    try:
        if (
            isinstance(value, str)
            and not value.strip().lower().startswith(("0x", "0b"))
            and not value.strip().isdigit()
        ):
            return parse_asm(value)
        return decode(_integer(value, "insn"))
    except EncodingError as error:
        raise CaseError(str(error)) from None


def parse_vtype(value: object) -> int:
    if not isinstance(value, dict):
        raw = _integer(value, "vtype")
        if not 0 <= raw < 1 << 64:
            raise CaseError(f"vtype: raw value must fit in 64 bits, got {raw:#x}")
        return raw
    for key in value:
        if key not in VTYPE_FIELDS:
            raise CaseError(f"{field_name(key, 'vtype')}: unknown field (expected {', '.join(VTYPE_FIELDS)})")
    for key in ("sew", "lmul"):
        if key not in value:
            raise CaseError(f"vtype.{key}: missing")
    sew = value["sew"]
    if isinstance(sew, bool) or sew not in SEWS:
        raise CaseError(f"vtype.sew: must be one of {', '.join(map(str, SEWS))}, got {json.dumps(sew)}")
    lmul = value["lmul"]
    if lmul not in LMUL_NAMES:
        raise CaseError(f"vtype.lmul: must be one of {' '.join(LMUL_NAMES)}, got {json.dumps(lmul)}")
    return encode_vtype(
        sew, lmul, _flag(value.get("vta", False), "vtype.vta"), _flag(value.get("vma", False), "vtype.vma")
    )


def parse_vregs(value: object, vlen: int) -> tuple[int, ...]:
    if not isinstance(value, dict):
        raise CaseError('vregs: expected an object such as {"v12": "0x..."}')
    regs, limit = [0] * NUM_VREGS, 1 << vlen
    for name, text in value.items():
        register = REGISTER_NUMBERS.get(name)
        if register is None:
            raise CaseError(f"{field_name(name, 'vregs')}: no such register (v0..v31)")
        number = _hex(text) if isinstance(text, str) else None
        if number is None:
            number = _integer(text, f"vregs.{name}")
        if not 0 <= number < limit:
            raise CaseError(f"vregs.{name}: value is wider than VLEN={vlen} bits")
        regs[register] = number
    return tuple(regs)


REGISTER_NUMBERS = {f"v{k}": k for k in range(NUM_VREGS)}


def _hex(text: str) -> int | None:
    """A "0x…" register value, parsed directly (a batch's main cost); None for other forms."""
    if text[:2] != "0x":
        return None
    try:
        return int(text, 16)
    except ValueError:
        return None


def parse_case(
    obj: object, reading: Callable[[ArchState], VType] | None = None
) -> tuple[ArchState, Insn, str]:
    """Return (pre-state, instruction, tail policy) or raise CaseError. `reading(state)`
    gives the decoded vtype that bounds vl (default: decode_vtype; a profile that supports
    SEW > LMUL*ELEN at fractional LMUL passes its own, see spec/profiles.check_pre)."""
    if not isinstance(obj, dict):
        raise CaseError("case: expected a JSON object")
    for key in obj:
        if key not in FIELDS:
            raise CaseError(f"{field_name(key)}: unknown field (expected {', '.join(FIELDS)})")
    for key in ("vlen", "insn", "vtype", "vl"):
        if key not in obj:
            raise CaseError(f"{key}: missing")
    vlen = _integer(obj["vlen"], "vlen")
    elen = _integer(obj.get("elen", 64), "elen")
    try:
        check_machine(vlen, elen)
    except ValueError as error:
        raise CaseError(str(error)) from None
    vs = obj.get("vs", "initial")
    if vs not in VS_NAMES:
        raise CaseError(f"vs: must be one of {', '.join(VS_NAMES)}, got {json.dumps(vs)}")
    tail = obj.get("tail", "undisturbed")
    if tail not in TAIL_POLICIES:
        raise CaseError(f"tail: must be one of {', '.join(TAIL_POLICIES)}, got {json.dumps(tail)}")
    state = ArchState(
        vlen=vlen,
        elen=elen,
        regs=parse_vregs(obj.get("vregs", {}), vlen),
        vtype=parse_vtype(obj["vtype"]),
        vl=_integer(obj["vl"], "vl"),
        vstart=_integer(obj.get("vstart", 0), "vstart"),
        vs=VS_NAMES.index(vs),
    )
    try:
        state.check(reading(state) if reading else None)
    except ValueError as error:
        raise CaseError(str(error)) from None
    return state, parse_insn(obj["insn"]), tail


def register_hex(value: int, vlen: int) -> str:
    return f"0x{value:0{vlen // 4}x}"


def state_json(state: ArchState) -> dict[str, Any]:
    return {
        "vl": state.vl,
        "vstart": state.vstart,
        "vtype": state.vtype,
        "vs": VS_NAMES[state.vs],
        "vregs": {f"v{i}": register_hex(value, state.vlen) for i, value in enumerate(state.regs)},
    }


def result_json(result: Result) -> dict[str, Any]:
    return {"outcome": result.outcome, "reason": result.reason, **state_json(result.state)}


def case_json(state: ArchState, insn: Insn, tail: str = "undisturbed") -> dict[str, Any]:
    """The case format for a concrete state (the inverse of parse_case)."""
    return {
        "vlen": state.vlen,
        "elen": state.elen,
        "insn": hex(encode(insn)),
        "vtype": state.vtype,
        "vl": state.vl,
        "vstart": state.vstart,
        "vs": VS_NAMES[state.vs],
        "tail": tail,
        "vregs": {f"v{i}": hex(v) for i, v in enumerate(state.regs) if v},
    }
