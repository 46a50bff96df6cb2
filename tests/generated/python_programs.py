"""Implementations of vredmax.vs written as emulator authors write them, generated: Python
source for reduction units and whole steps (the two plug-in levels of `vredmax check-impl`,
docs/guide/check-impl.md), put together from idioms, and wrong ones made from them.

A program is drawn as a recipe (one choice per idiom: how a value is read as signed, how the
inactive lanes are handled, how the maximum is formed, where the seed goes, the register file,
the mask, ...) and written out as plain Python. `mutants` writes the same recipe with one bug
(a bound off by one, the unsigned order, the seed dropped, the mask inverted, a wrong lane
width, a wrong neutral element, the tail or vl=0 handled wrongly, ...).

Honesty is checked, not assumed: `concrete_difference` runs a program on the directed and
seeded random concrete states of check-impl through the executable spec's judge
(proofs/python/running.replay, proofs/engine/judging.py). A generated correct program must
show no difference (else the generator is wrong: `GeneratorBug`); a mutant is kept only when
one shows.

    rng = random.Random(7)
    program = draw_program(RandomChooser(rng), UNIT, vlmax=1024, name="g7")
    path = program.write(folder)         # then: vredmax check-impl PATH:reduce --vlen ... --sew ...
    wrong = next(kept_mutants(program, folder, rng), None)

`programs(kind, vlmax)` is the same as a Hypothesis strategy. Used by tests/test_generated_programs.py
and bench/bench_generated.py.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field

from vredmax.impl.execute import TAIL_POLICIES
from vredmax.proofs.python.check_impl import (
    INSTRUCTION,
    UNIT,
    ImplementationError,
    as_instruction,
    load,
    replay,
)
from vredmax.proofs.python.concrete import concrete_states
from vredmax.spec.config import Config, legal_configs

MAX_INSTRUCTION_VLEN = 4096


class GeneratorBug(AssertionError):
    """A program the generator wrote as correct differs from the spec on a concrete state."""


# Choosing ------------------------------------------------------------------------------------


class RandomChooser:
    """Choices from a seeded random.Random: the same seed, the same programs."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def pick(self, options):
        return self.rng.choice(list(options))


class DrawChooser:
    """Choices drawn by Hypothesis (`draw` of an st.composite), so they shrink."""

    def __init__(self, draw):
        self.draw = draw

    def pick(self, options):
        from hypothesis import strategies as st

        return self.draw(st.sampled_from(list(options)))


def configs_at(kind: str, vlmax: int, max_vlen: int = 65536) -> list[Config]:
    """The configurations with this VLMAX: a unit's depends on SEW and VLMAX only (the smallest
    VLEN per SEW); a whole instruction's on every legal one up to VLEN 4096 (and `max_vlen`)."""
    vlens = [v for v in (2**k for k in range(7, 17)) if v <= max_vlen]
    found = [
        c
        for c in legal_configs(64, vlens, [8, 16, 32, 64], ["mf8", "mf4", "mf2", "m1", "m2", "m4", "m8"])
        if c.vlmax == vlmax
    ]
    if kind == INSTRUCTION:
        return [c for c in found if c.vlen <= MAX_INSTRUCTION_VLEN]
    smallest = {}
    for c in sorted(found, key=lambda c: c.vlen):
        smallest.setdefault(c.sew, c)
    return list(smallest.values())


def draw_recipe(choose, kind: str, cfg: Config) -> dict:
    """One choice per idiom; later choices see the earlier ones (not every pair makes sense)."""
    r: dict = {"kind": kind}
    r["domain"] = choose.pick(["signed", "signed", "biased", "raw"])
    if r["domain"] == "signed":
        r["conv"] = choose.pick(["ternary", "arith", "xor", "bytes", "struct"])
        r["neutral"] = choose.pick(["shift", "power", "invert", "converted"])
        r["back"] = choose.pick(["mask", "modulo", "add"])
    if r["domain"] == "raw":
        r["greater"] = choose.pick(["signbits", "hilo", "via_signed"])
    r["shape"] = choose.pick(
        [
            "loop",
            "loop",
            "while",
            "lanes",
            "chunks",
            "tree",
            "recursion",
            "max",
            "sorted",
            "heapq",
            "reduce",
            "network",
        ]
    )
    loops = r["shape"] in ("loop", "while", "lanes", "chunks")
    lists = r["shape"] in ("max", "sorted", "heapq", "reduce")
    r["inactive"] = choose.pick(
        ["skip", "neutral", "mask", "mul"]
        if loops
        else ["filter", "filter", "neutral", "mask", "mul"]
        if lists
        else ["neutral", "mask", "mul"]
    )
    r["pick"] = choose.pick(
        ["max", "ternary", "if"] if r["domain"] == "raw" else ["max", "ternary", "if", "branchless"]
    )
    if r["domain"] == "raw" and r["pick"] == "max":
        r["pick"] = "ternary"
    if r["shape"] == "loop":
        r["order"] = choose.pick(["forward", "backward", "reversed", "stride"])
        r["early"] = choose.pick(["none", "none", "break", "flag"])
    if r["shape"] == "lanes":
        r["lanes"] = choose.pick([2, 4, 8])
    if r["shape"] == "chunks":
        r["chunk"] = choose.pick([4, 8, 16, 64])
    if r["shape"] == "tree":
        r["tree"] = choose.pick(["carry_odd", "pad"])
    if r["shape"] == "sorted":
        r["sorted"] = choose.pick(["last", "reverse_first"])
    if r["shape"] == "heapq":
        r["heapq"] = choose.pick(["nlargest", "negated"] if r["domain"] == "signed" else ["nlargest"])
    if r["shape"] == "network":
        r["network"] = choose.pick(["tournament", "sorted_chunks"])
        r["exchange"] = choose.pick(["swap", "minmax"] if r["domain"] != "raw" else ["swap"])
    if r["inactive"] == "filter":
        r["seed"] = "leaf"
    elif loops or r["shape"] == "reduce":
        r["seed"] = choose.pick(["init", "last", "leaf"] if r["shape"] == "reduce" else ["init", "last"])
    else:
        r["seed"] = choose.pick(["leaf", "last"])
    if kind == UNIT:
        r["mask"] = choose.pick(["bools", "bools", "bits", "ints"])
    else:
        r["regfile"] = choose.pick(["list", "dict", "class", "bytes", "bytearray", "struct", "memoryview"])
        r["maskreg"] = choose.pick(["shift", "bytes", "bools"])
        r["bound"] = choose.pick(
            ["cond", "break"]
            if r["shape"] in ("loop", "while") and r.get("order") in (None, "forward")
            else ["cond"]
        )
        r["traps"] = choose.pick(["any", "loop"])
        r["write"] = choose.pick(["int", "bytes"])
        if r["regfile"] in ("bytes", "bytearray", "struct", "memoryview"):
            r["store"] = choose.pick(["bytes", "bytearray"])
        if r["regfile"] in ("bytes", "bytearray") and cfg.sew >= 16:
            r["read"] = choose.pick(["whole", "halves"])  # an element put together from its two halves
        if (
            r["regfile"] in ("bytes", "bytearray", "struct", "memoryview")
            and r["domain"] == "signed"
            and cfg.sew >= 8
        ):
            r["signed_read"] = choose.pick([True, False])
    return r


@dataclass
class Program:
    kind: str  # UNIT or INSTRUCTION
    name: str  # the file's stem, unique
    recipe: dict
    cfg: Config
    mutation: str | None = None
    source: str = field(default="", repr=False)
    path: str | None = None

    @property
    def function(self) -> str:
        return "reduce" if self.kind == UNIT else "step"

    @property
    def target(self) -> str:
        return f"{self.path}:{self.function}"

    def idioms(self) -> list[str]:
        """The choices, as `name=value` (the bench's table groups by them)."""
        return [f"{k}={v}" for k, v in self.recipe.items() if k != "kind"]

    def write(self, folder: str) -> str:
        os.makedirs(folder, exist_ok=True)
        self.path = os.path.join(folder, self.name + ".py")
        with open(self.path, "w") as f:
            f.write(self.source)
        return self.path


def draw_program(choose, kind: str, vlmax: int, name: str, max_vlen: int = 65536) -> Program:
    cfg = choose.pick(configs_at(kind, vlmax, max_vlen))
    recipe = draw_recipe(choose, kind, cfg)
    return Program(kind, name, recipe, cfg, None, write_source(recipe, cfg, None))


def programs(kind: str = UNIT, vlmax: int = 16, max_vlen: int = 65536):
    """A Hypothesis strategy of correct programs (written, not yet checked concretely)."""
    from hypothesis import strategies as st

    @st.composite
    def drawn(draw):
        return draw_program(DrawChooser(draw), kind, vlmax, f"h_{kind}", max_vlen)

    return drawn()


# Mutations -------------------------------------------------------------------------------------

CORE_MUTATIONS = (
    "unsigned",
    "seed_dropped",
    "mask_inverted",
    "drop_last",
    "neutral_zero",
    "min",
    "lane_width",
    "early_positive",
    "tree_drops_odd",
)
STEP_MUTATIONS = (
    "vl_inclusive",
    "mask_from_v1",
    "vl0_writes",
    "tail_ignores_vta",
    "vs_clean",
    "first_register_only",
)


def applicable(program: Program) -> list[str]:
    r = program.recipe
    found = [
        m
        for m in CORE_MUTATIONS
        if not (m == "early_positive" and r.get("early", "none") == "none")
        and not (m == "tree_drops_odd" and r.get("tree") != "carry_odd")
        and not (
            m == "neutral_zero"
            and r["inactive"] in ("skip", "filter")
            and r["seed"] != "last"
            and r["shape"] not in ("lanes", "chunks", "tree", "network")
        )
    ]
    if program.kind == INSTRUCTION:
        found += [
            m for m in STEP_MUTATIONS if not (m == "first_register_only" and program.cfg.group_registers == 1)
        ]
    return found


def mutant(program: Program, mutation: str) -> Program:
    return Program(
        program.kind,
        f"{program.name}_{mutation}",
        program.recipe,
        program.cfg,
        mutation,
        write_source(program.recipe, program.cfg, mutation),
    )


def concrete_difference(program: Program, count: int, seed: int = 0):
    """The first concrete state (directed, then `count` seeded random ones, both tail policies)
    on which the written program's outcome is not one the spec allows: a Counterexample, or
    None. The program is loaded from its file as check-impl loads it."""
    function = load(program.target)
    instruction = as_instruction(function) if program.kind == UNIT else function
    for _, pre, insn, tail in concrete_states(program.cfg, list(TAIL_POLICIES), count, seed, True):
        cx = replay(instruction, program.cfg, pre, insn, tail)
        if cx.differing:
            return cx
    return None


def checked_correct(program: Program, folder: str, count: int = 200) -> Program:
    """Written and run on concrete states; a difference is the generator's bug."""
    program.write(folder)
    try:
        cx = concrete_difference(program, count)
    except ImplementationError as error:
        raise GeneratorBug(f"{program.path} ({program.cfg}) fails on a concrete state: {error}") from None
    if cx is not None:
        raise GeneratorBug(
            f"{program.path} ({program.cfg}) differs from the spec: {cx.differing} {program.idioms()}"
        )
    return program


def kept_mutants(program: Program, folder: str, rng: random.Random, count: int = 200):
    """The program's mutants in a random order, each written and kept only when a concrete
    state shows it wrong (a mutant that fails to run is dropped: it would be an ERROR, not a
    wrong program the proof must catch)."""
    order = applicable(program)
    rng.shuffle(order)
    for mutation in order:
        wrong = mutant(program, mutation)
        wrong.write(folder)
        try:
            shown = concrete_difference(wrong, count) is not None
        except ImplementationError:
            shown = False
        if shown:
            yield wrong
        else:
            os.remove(wrong.path)


# Writing ---------------------------------------------------------------------------------------


def write_source(recipe: dict, cfg: Config, mutation: str | None) -> str:
    return _Writer(recipe, cfg, mutation).source()


class _Writer:
    """The source of one recipe (with one mutation or none)."""

    def __init__(self, recipe: dict, cfg: Config, mutation: str | None):
        self.r, self.cfg, self.mut = recipe, cfg, mutation
        self.unit = recipe["kind"] == UNIT
        self.imports: set[str] = set()
        self.helpers: list[str] = []
        domain = recipe["domain"]
        if mutation == "unsigned":
            domain = "unsigned"
        self.domain = domain

    # the value domain: how an element becomes a comparable value, and back

    def neutral(self) -> str:
        if self.mut == "neutral_zero":
            return "TOP" if self.domain == "biased" else "0"
        if self.domain in ("raw",):
            return "TOP"
        if self.domain in ("biased", "unsigned"):
            return "0"
        return {
            "shift": "-(1 << (W - 1))",
            "power": "-2 ** (W - 1)",
            "invert": "~((1 << (W - 1)) - 1)",
            "converted": "signed(TOP)",
        }[self.r["neutral"]]

    def largest(self) -> str:
        """The largest value in the domain (nothing beats it: an early exit stops there)."""
        if self.mut == "early_positive":
            return "1"
        return {"signed": "TOP - 1", "raw": "TOP - 1", "biased": "MASK", "unsigned": "MASK"}[self.domain]

    def conv(self, raw: str) -> str:
        """A raw element (an unsigned int) as a value of the domain."""
        if self.domain == "signed":
            return f"signed({raw})"
        if self.domain == "biased":
            return f"({raw} ^ TOP)"
        return raw

    def back(self, value: str) -> str:
        if self.domain == "biased":
            return f"{value} ^ TOP"
        if self.domain in ("signed", "unsigned") and self.r["domain"] == "signed":
            how = self.r["back"]
            if how == "modulo":
                return f"{value} % (1 << W)"
            if how == "add":
                return f"{value} + (1 << W) if {value} < 0 else {value}"
            return f"{value} & MASK"
        return value

    def greater(self, a: str, b: str) -> str:
        if self.mut == "min":
            a, b = b, a
        if self.domain == "raw":
            return f"greater({a}, {b})"
        return f"{a} > {b}"

    def signed_helper(self) -> None:
        conv = self.r.get("conv", "ternary")
        body = {
            "ternary": "return x - (1 << W) if x >> (W - 1) else x",
            "arith": "return x - ((x >> (W - 1)) << W)",
            "xor": "return (x ^ TOP) - TOP",
            "bytes": 'return int.from_bytes(x.to_bytes(W // 8, "little"), "little", signed=True)',
            "struct": 'return struct.unpack("<" + FORMAT, struct.pack("<" + FORMAT.upper(), x))[0]',
        }[conv]
        if conv == "struct":
            self.imports.add("struct")
        if self.mut == "lane_width":  # the sign taken at a wrong bit
            body = (
                "return x - (1 << W) if x >> (W - 2) & 1 else x"
                if conv != "struct"
                else 'return struct.unpack("<" + FORMAT, struct.pack("<" + FORMAT.upper(), x & ((MASK >> 1))))[0]'
            )
        self.helpers.append(f"def signed(x):\n    {body}\n")

    def greater_helper(self) -> None:
        how = self.r["greater"]
        if self.mut == "unsigned":
            self.helpers.append("def greater(a, b):\n    return a > b\n")
            return
        sign = "W - 2" if self.mut == "lane_width" else "W - 1"
        if how == "signbits":
            text = (
                f"def greater(a, b):\n    sa, sb = a >> ({sign}) & 1, b >> ({sign}) & 1\n"
                "    if sa != sb:\n        return sb == 1\n    return a > b\n"
            )
        elif how == "hilo":
            text = (
                'def greater(a, b):\n    """High halves as signed, then low halves as unsigned."""\n'
                "    ah, bh = a >> HALF, b >> HALF\n    if ah != bh:\n"
                "        return half_signed(ah) > half_signed(bh)\n"
                "    return a & LOW > b & LOW\n"
            )
            top = "HALF - 2" if self.mut == "lane_width" else "HALF - 1"
            self.helpers.append(
                f"def half_signed(h):\n    return h - (1 << HALF) if h >> ({top}) & 1 else h\n"
            )
        else:
            text = (
                "def greater(a, b):\n"
                f"    def s(x):\n        return x - (1 << W) if x >> ({sign}) & 1 else x\n"
                "    return s(a) > s(b)\n"
            )
        self.helpers.append(text)

    def key(self) -> str:
        """max()/sorted()/heapq's key in the raw domain."""
        if self.domain != "raw":
            return ""
        if self.mut == "lane_width":
            return ", key=lambda v: v ^ (TOP >> 1)"
        return ", key=lambda v: v ^ TOP"

    # combining two values

    def pick_expr(self, a: str, b: str) -> str:
        """The greater of a and b (b when greater), an expression."""
        how = self.r["pick"]
        if how == "max" and self.domain != "raw":
            return f"{'min' if self.mut == 'min' else 'max'}({a}, {b})"
        if how == "branchless" and self.domain != "raw":
            return f"({b} & -int({self.greater(b, a)})) | ({a} & ~-int({self.greater(b, a)}))"
        return f"{b} if {self.greater(b, a)} else {a}"

    def pick_into(self, acc: str, value: str) -> list[str]:
        """Statements that make acc the greater of acc and value."""
        if self.r["pick"] == "if":
            return [f"if {self.greater(value, acc)}:", f"    {acc} = {value}"]
        if self.r["pick"] == "branchless" and self.domain != "raw":
            return [f"c = -int({self.greater(value, acc)})", f"{acc} = ({value} & c) | ({acc} & ~c)"]
        return [f"{acc} = {self.pick_expr(acc, value)}"]

    # the lanes

    def n(self) -> str:
        base = "len(elements)" if self.unit else "VLMAX"
        return f"{base} - 1" if self.mut == "drop_last" else base

    def act(self, i: str) -> str:
        """Lane i takes part (an expression)."""
        if self.unit:
            form = {"bools": f"active[{i}]", "bits": f"bits >> {i} & 1", "ints": f"flags[{i}] == 1"}[
                self.r["mask"]
            ]
            return f"not {form}" if self.mut == "mask_inverted" else form
        bit = self.mask_bit(i)
        bit = f"not {bit}" if self.mut == "mask_inverted" else bit
        vl = f"{i} <= pre.vl" if self.mut == "vl_inclusive" else f"{i} < pre.vl"
        if self.r["bound"] == "break":
            return f"(insn.vm or {bit})"
        return f"{vl} and (insn.vm or {bit})"

    def val(self, i: str) -> str:
        if self.unit:
            return self.conv(f"elements[{i}]")
        return self.read_element("insn.vs2", i)

    def seed(self) -> str:
        if self.mut == "seed_dropped":
            return self.neutral()
        return self.conv("seed") if self.unit else "seed"

    def lane_value(self, i: str) -> list[str]:
        """Statements giving v, lane i's value or the neutral element when it is inactive
        (for `skip`: `continue` past an inactive lane)."""
        how = self.r["inactive"]
        if how == "skip":
            return [f"if not ({self.act(i)}):", "    continue", f"v = {self.val(i)}"]
        if how == "mask":
            return [f"m_ = -int(bool({self.act(i)}))", f"v = ({self.val(i)} & m_) | (NEUTRAL & ~m_)"]
        if how == "mul":
            return [f"a_ = 1 if {self.act(i)} else 0", f"v = {self.val(i)} * a_ + NEUTRAL * (1 - a_)"]
        return [f"v = {self.val(i)} if {self.act(i)} else NEUTRAL"]

    def lane_expr(self, i: str) -> str:
        """Lane i's value or the neutral element, an expression (for a list)."""
        how = self.r["inactive"]
        if how == "mask":
            return f"({self.val(i)} & -int(bool({self.act(i)}))) | (NEUTRAL & ~-int(bool({self.act(i)})))"
        if how == "mul":
            return f"{self.val(i)} * (1 if {self.act(i)} else 0) + NEUTRAL * (0 if {self.act(i)} else 1)"
        return f"{self.val(i)} if {self.act(i)} else NEUTRAL"

    def break_at_vl(self, i: str) -> list[str]:
        if self.unit or self.r["bound"] != "break":
            return []
        return [f"if {i} > pre.vl:" if self.mut == "vl_inclusive" else f"if {i} >= pre.vl:", "    break"]

    def values_list(self) -> list[str]:
        """`vals`: the values the list shapes reduce (the seed in it when it is a leaf)."""
        seed_first = self.r["seed"] == "leaf"
        if self.r["inactive"] == "filter":
            items = f"[{self.val('i')} for i in range({self.n()}) if {self.act('i')}]"
        else:
            items = f"[{self.lane_expr('i')} for i in range({self.n()})]"
        return [f"vals = [{self.seed()}] + {items}" if seed_first else f"vals = {items}"]

    # the shapes: each leaves the maximum in `best`

    def shape(self) -> list[str]:
        return getattr(self, "shape_" + self.r["shape"])()

    def start(self) -> str:
        return self.seed() if self.r["seed"] in ("init", "leaf") else "NEUTRAL"

    def finish(self) -> list[str]:
        return self.pick_into("best", self.seed()) if self.r["seed"] == "last" else []

    def shape_loop(self) -> list[str]:
        order = {
            "forward": f"range({self.n()})",
            "backward": f"range({self.n()} - 1, -1, -1)",
            "reversed": f"reversed(range({self.n()}))",
            "stride": f"[*range(0, {self.n()}, 2), *range(1, {self.n()}, 2)]",
        }[self.r["order"]]
        early = self.r["early"]
        lines = [f"best = {self.start()}"]
        if early == "flag":
            lines.append("stopped = False")
        lines.append(f"for i in {order}:")
        body = self.break_at_vl("i")
        if early == "break":
            body += ["if best == LARGEST:", "    break"]
        if early == "flag":
            body += ["if stopped:", "    continue"]
        body += self.lane_value("i") + self.pick_into("best", "v")
        if early == "flag":
            body += ["if best == LARGEST:", "    stopped = True"]
        return lines + _indent(body) + self.finish()

    def shape_while(self) -> list[str]:
        body = self.break_at_vl("i")
        inner = self.lane_value("i") + self.pick_into("best", "v")
        if self.r["inactive"] == "skip":  # `continue` must not skip the increment
            inner = [line.replace("    continue", "    i += 1\n    continue") for line in inner]
        body += inner + ["i += 1"]
        body = "\n".join(body).split("\n")
        return [f"best = {self.start()}", "i = 0", f"while i < {self.n()}:"] + _indent(body) + self.finish()

    def shape_lanes(self) -> list[str]:
        k = self.r["lanes"]
        body = self.break_at_vl("i") + self.lane_value("i") + self.pick_into("accs[i % LANES]", "v")
        lines = [f"LANES = {k}", "accs = [NEUTRAL] * LANES", f"for i in range({self.n()}):"] + _indent(body)
        lines += [f"best = {self.start()}", "for acc in accs:"] + _indent(self.pick_into("best", "acc"))
        return lines + self.finish()

    def shape_chunks(self) -> list[str]:
        c = self.r["chunk"]
        inner = self.lane_value("i") + self.pick_into("part", "v")
        lines = [
            f"CHUNK = {c}",
            f"best = {self.start()}",
            f"for base in range(0, {self.n()}, CHUNK):",
            "    part = NEUTRAL",
            f"    for i in range(base, min(base + CHUNK, {self.n()})):",
        ]
        lines += _indent(_indent(inner))
        lines += _indent(self.pick_into("best", "part"))
        return lines + self.finish()

    def shape_tree(self) -> list[str]:
        lines = self.values_list()
        if self.r["tree"] == "pad":
            lines += [
                "size = 1",
                "while size < len(vals):",
                "    size *= 2",
                "vals = vals + [NEUTRAL] * (size - len(vals))",
            ]
        lines += [
            "while len(vals) > 1:",
            f"    nxt = [{self.pick_expr('vals[j]', 'vals[j + 1]')} for j in range(0, len(vals) - 1, 2)]",
        ]
        if self.r["tree"] == "carry_odd" and self.mut != "tree_drops_odd":
            lines += ["    if len(vals) % 2:", "        nxt.append(vals[-1])"]
        lines += ["    vals = nxt", "best = vals[0]"]
        return lines + self.finish()

    def shape_recursion(self) -> list[str]:
        self.helpers.append(
            "def largest(vals, lo, hi):\n    if hi - lo == 1:\n        return vals[lo]\n    mid = (lo + hi) // 2\n"
            "    a, b = largest(vals, lo, mid), largest(vals, mid, hi)\n"
            f"    return {self.pick_expr('a', 'b')}\n"
        )
        return self.values_list() + ["best = largest(vals, 0, len(vals))"] + self.finish()

    def shape_max(self) -> list[str]:
        f = "min" if self.mut == "min" else "max"
        return self.values_list() + [f"best = {f}(vals{self.key()})"] + self.finish()

    def shape_sorted(self) -> list[str]:
        last = self.mut == "min"
        if self.r["sorted"] == "last":
            pick = f"sorted(vals{self.key()})[{0 if last else -1}]"
        else:
            pick = f"sorted(vals{self.key()}, reverse=True)[{-1 if last else 0}]"
        return self.values_list() + [f"best = {pick}"] + self.finish()

    def shape_heapq(self) -> list[str]:
        self.imports.add("heapq")
        if self.r["heapq"] == "negated":
            f = "nlargest" if self.mut == "min" else "nsmallest"
            return self.values_list() + [f"best = -heapq.{f}(1, [-v for v in vals])[0]"] + self.finish()
        f = "nsmallest" if self.mut == "min" else "nlargest"
        return self.values_list() + [f"best = heapq.{f}(1, vals{self.key()})[0]"] + self.finish()

    def shape_reduce(self) -> list[str]:
        self.imports.add("functools")
        self.helpers.append(f"def bigger(a, b):\n    return {self.pick_expr('a', 'b')}\n")
        start = f", {self.start()}" if self.r["seed"] != "leaf" else ""
        return self.values_list() + [f"best = functools.reduce(bigger, vals{start})"] + self.finish()

    def shape_network(self) -> list[str]:
        lo_hi = "min" if self.mut != "min" else "max"
        hi_lo = "max" if self.mut != "min" else "min"
        if self.r["exchange"] == "minmax":
            exchange = [f"vals[p], vals[q] = {lo_hi}(vals[p], vals[q]), {hi_lo}(vals[p], vals[q])"]
        else:
            exchange = [
                f"if {self.greater('vals[p]', 'vals[q]')}:",
                "    vals[p], vals[q] = vals[q], vals[p]",
            ]
        self.helpers.append(
            'def exchange(vals, p, q):\n    """The smaller to p, the greater to q."""\n'
            + "\n".join(_indent(exchange))
            + "\n"
        )
        lines = self.values_list()
        if self.r["network"] == "tournament":
            lines += [
                "size = 1",
                "while size < len(vals):",
                "    size *= 2",
                "vals = vals + [NEUTRAL] * (size - len(vals))",
                "n, gap = len(vals), 1",
                "while gap < n:",
                "    for p in range(gap - 1, n - gap, 2 * gap):",
                "        exchange(vals, p, p + gap)",
                "    gap *= 2",
                "best = vals[n - 1]",
            ]
        else:  # an odd-even transposition sort of each chunk of 4, then the chunks' tops
            lines += [
                "tops = []",
                "for base in range(0, len(vals), 4):",
                "    chunk = vals[base:base + 4]",
                "    for rnd in range(len(chunk)):",
                "        for p in range(rnd % 2, len(chunk) - 1, 2):",
                "            exchange(chunk, p, p + 1)",
                "    tops.append(chunk[-1])",
                "best = tops[0]",
                "for t in tops[1:]:",
            ] + _indent(self.pick_into("best", "t"))
        return lines + self.finish()

    # a whole step: the register file, the mask, the write

    def regfile_setup(self) -> list[str]:
        how = self.r["regfile"]
        if how == "list":
            return ["regs = list(pre.regs)"]
        if how == "dict":
            return ["regs = {n: value for n, value in enumerate(pre.regs)}"]
        if how == "class":
            return ["regs = VectorRegisters(pre.regs, SEW, VLEN)"]
        if how in ("bytes", "struct", "memoryview"):
            return ['regs = [r.to_bytes(VLENB, "little") for r in pre.regs]']
        return ['regs = [bytearray(r.to_bytes(VLENB, "little")) for r in pre.regs]']

    def register(self, group: str, i: str, seed: bool) -> str:
        if self.mut == "first_register_only" and not seed:
            return f"regs[{group}]"
        return f"regs[{group}]" if i == "0" else f"regs[{group} + {i} // PER]"

    def read_element(self, group: str, i: str, seed: bool = False) -> str:
        """Element i of the register group at `group`, as a value of the domain."""
        how = self.r["regfile"]
        offset = "0" if i == "0" else f"({i} % PER)"
        reg = self.register(group, i, seed)
        signed_read = self.r.get("signed_read") and self.domain == "signed" and self.mut != "lane_width"
        if how in ("list", "dict"):
            return self.conv(f"({reg} >> (SEW * {offset}) & MASK)")
        if how == "class":
            if self.mut == "first_register_only" and not seed:
                return self.conv(f"regs.element({group}, {i} % PER)")
            return self.conv(f"regs.element({group}, {i})")
        sign = ", signed=True" if signed_read else ""
        if how == "struct":
            fmt = "FORMAT" if signed_read else "FORMAT.upper()"
            raw = f'struct.unpack_from("<" + {fmt}, {reg}, NB * {offset})[0]'
        elif how == "memoryview":
            raw = f'int.from_bytes(memoryview({reg})[NB * {offset}:NB * {offset} + NB], "little"{sign})'
        elif self.r.get("read") == "halves":  # the high half carries the sign when read signed
            at = f"NB * {offset}"
            raw = (
                f'(int.from_bytes({reg}[{at} + NB // 2:{at} + NB], "little"{sign}) << (SEW // 2) '
                f'| int.from_bytes({reg}[{at}:{at} + NB // 2], "little"))'
            )
        else:
            raw = f'int.from_bytes({reg}[NB * {offset}:NB * {offset} + NB], "little"{sign})'
        return raw if signed_read else self.conv(raw)

    def mask_setup(self) -> list[str]:
        reg = "pre.regs[1]" if self.mut == "mask_from_v1" else "pre.regs[0]"
        how = self.r["maskreg"]
        if how == "bytes":
            return [f'mask_bytes = {reg}.to_bytes(VLENB, "little")']
        if how == "bools":
            return [f"mask_bits = [({reg} >> k) & 1 == 1 for k in range(VLMAX)]"]
        return [f"v0 = {reg}"]

    def mask_bit(self, i: str) -> str:
        return {
            "bytes": f"mask_bytes[{i} // 8] >> ({i} % 8) & 1",
            "bools": f"mask_bits[{i}]",
            "shift": f"(v0 >> {i}) & 1",
        }[self.r["maskreg"]]

    def write_back(self) -> list[str]:
        vta = (
            'tail == "ones"' if self.mut == "tail_ignores_vta" else 'tail == "ones" and (pre.vtype >> 6) & 1'
        )
        how, regfile = self.r["write"], self.r["regfile"]
        if regfile in ("list", "dict", "class"):
            old = "regs.regs[insn.vd]" if regfile == "class" else "regs[insn.vd]"
            lines = [
                f"old = {old}",
                "new = (old & ~MASK) | result",
                f"if {vta}:",
                "    new |= ((1 << VLEN) - 1) & ~MASK",
                f"{old} = new",
            ]
            final = (
                "tuple(regs.regs)"
                if regfile == "class"
                else ("tuple(regs[n] for n in range(32))" if regfile == "dict" else "tuple(regs)")
            )
            return lines + [f"post_regs = {final}"]
        lines = ["vd_bytes = bytearray(regs[insn.vd])"]
        if how == "bytes" or regfile != "struct":
            lines += ['vd_bytes[0:NB] = result.to_bytes(NB, "little")']
        else:
            lines += ['struct.pack_into("<" + FORMAT.upper(), vd_bytes, 0, result)']
        lines += [
            f"if {vta}:",
            '    vd_bytes[NB:] = b"\\xff" * (VLENB - NB)',
            "regs[insn.vd] = bytes(vd_bytes)"
            if self.r.get("store") == "bytes"
            else "regs[insn.vd] = vd_bytes",
            'post_regs = tuple(int.from_bytes(r, "little") for r in regs)',
        ]
        return lines

    def constants(self) -> list[str]:
        width = (
            "cfg.sew"
            if not self.unit
            else (
                "32 if ops.width != 32 else 16"
                if self.mut == "lane_width" and self.domain == "biased"
                else "ops.width"
            )
        )
        lines = [f"W = {width}", "MASK, TOP = (1 << W) - 1, 1 << (W - 1)"]
        return lines

    def step_body(self, shape: list[str]) -> list[str]:
        lines = ["traps = trap_conditions(m, pre, insn, m.bit(pre.vtype, 63), cfg.lmul)"]
        if self.r["traps"] == "any":
            lines += ["if any(fired for _, fired in traps):", "    return traps, pre"]
        else:
            lines += ["for _rule, fired in traps:", "    if fired:", "        return traps, pre"]
        if self.mut != "vl0_writes":
            lines += ["if pre.vl == 0:", "    return traps, pre"]
        lines += [
            "SEW, VLEN, VLMAX = cfg.sew, cfg.vlen, cfg.vlmax",
            "PER, NB, VLENB = VLEN // SEW, SEW // 8, VLEN // 8",
        ]
        lines += (
            self.constants()
            + self.nested_helpers()
            + [f"NEUTRAL, LARGEST = {self.neutral()}, {self.largest()}"]
        )
        seed = "NEUTRAL" if self.mut == "seed_dropped" else self.read_element("insn.vs1", "0", seed=True)
        lines += self.regfile_setup() + self.mask_setup() + [f"seed = {seed}"] + shape
        lines += [f"result = ({self.back('best')}) & MASK"] + self.write_back()
        vs = "" if self.mut == "vs_clean" else ", vs=3"
        lines += [f"return traps, pre.with_(regs=post_regs, vstart=0{vs})"]
        return lines

    def unit_body(self, shape: list[str]) -> list[str]:
        lines = (
            self.constants()
            + self.nested_helpers()
            + [f"NEUTRAL, LARGEST = {self.neutral()}, {self.largest()}"]
        )
        mask = self.r["mask"]
        if mask == "bits":
            lines += ["bits = 0", "for k, a in enumerate(active):", "    if a:", "        bits |= 1 << k"]
        elif mask == "ints":
            lines += ["flags = [1 if a else 0 for a in active]"]
        return lines + shape + [f"return {self.back('best')}"]

    def nested_helpers(self) -> list[str]:
        """The helpers, defined inside the function (they see its constants)."""
        text = "\n".join(self.helpers)
        lines = []
        if "FORMAT" in text or "FORMAT" in self.shape_text:
            lines.append("FORMAT = {8: 'b', 16: 'h', 32: 'i', 64: 'q'}[W]")
        if "HALF" in text:
            lines.append("HALF, LOW = W // 2, (1 << (W // 2)) - 1")
        return lines + text.rstrip("\n").split("\n") if text else lines

    def source(self) -> str:
        if self.domain in ("signed", "unsigned") and self.r["domain"] == "signed":
            self.signed_helper()
        if self.r["domain"] == "raw":
            self.greater_helper()
        if not self.unit and self.r["regfile"] == "struct":
            self.imports.add("struct")
        shape = self.shape()
        self.shape_text = "\n".join(shape) + (" FORMAT" if self.r.get("regfile") == "struct" else "")
        if self.unit:
            signature, body = "def reduce(ops, seed, elements, active):", self.unit_body(shape)
        else:
            signature, body = "def step(m, pre, insn, cfg, tail):", self.step_body(shape)
        head = [f'"""Generated: {self.describe()}."""', ""]
        head += [f"import {name}" for name in sorted(self.imports)]
        if not self.unit:
            head += ["from vredmax.spec.legality import trap_conditions"]
        head += ["", ""]
        klass = _REGISTER_CLASS if not self.unit and self.r["regfile"] == "class" else ""
        return "\n".join(head) + klass + signature + "\n" + "\n".join(_indent(body)) + "\n"

    def describe(self) -> str:
        bug = f"; bug: {self.mut}" if self.mut else ""
        return ", ".join(f"{k}={v}" for k, v in self.r.items() if k != "kind") + bug


_REGISTER_CLASS = '''class VectorRegisters:
    """The register file of an emulator: VLEN-bit ints, read an element at a time."""

    def __init__(self, regs, sew, vlen):
        self.regs, self.sew, self.per = list(regs), sew, vlen // sew

    def element(self, group, i):
        return (self.regs[group + i // self.per] >> (self.sew * (i % self.per))) & ((1 << self.sew) - 1)


'''


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line if line else line for line in lines]


# Checking, as a user's `vredmax check-impl FILE:FUNCTION` does ---------------------------------


@dataclass
class Checked:
    verdict: str  # PROVED, COUNTEREXAMPLE, UNKNOWN, ERROR (proofs/engine/verdict.py)
    seconds: float
    detail: str


def check(
    program: Program, timeout_s: float = 60.0, random_states: int = 0, seed: int = 0, in_process: bool = False
) -> Checked:
    """`vredmax check-impl PATH:FUNCTION` at the program's configuration through the CLI's own
    driver (proofs/python/session.py, isolation.py: the file loaded in a child process, the
    per-call limit). With `random_states` 0 the proof alone decides (no concrete state runs
    first, directed ones neither), else the CLI's concrete states first (directed and random).
    `in_process`: the file loaded the same way, checked in this process (tests: no child's
    start-up; no limit on a call of the code)."""
    import time

    from vredmax.proofs.python import isolation, session
    from vredmax.proofs.python.check_impl import InProcess, check_implementation

    options = session.Options.parsed(timeout_s, None, random_states, seed)
    pairs = options.pairs() + ((("directed", False),) if random_states == 0 else ())
    if in_process:
        pool = InProcess(load(program.target), program.kind, **dict(pairs))
    else:
        pool = isolation.Jobs(
            session.SerialWorkers(),
            lambda cfg: isolation.Job(
                isolation.portable_target(program.target),
                os.getcwd(),
                program.kind,
                cfg,
                options.timeout_s,
                pairs,
            ),
        )
    start = time.perf_counter()
    report = check_implementation(pool, program.kind, [program.cfg])
    return Checked(report.verdict.value.upper(), time.perf_counter() - start, report.detail)
