"""The assembly of a suite: cases.S (the case table, register images, instruction stubs) for
the runner of env/runner.S, and the environment sources copied next to it.

Register images are compact, so that VLEN=65536 programs stay small: a zero register is not
listed; any other is a descriptor of 32-bit words, a fill word (the most common one) and runs
of the words that differ. Identical images are written once.
"""

from __future__ import annotations

from collections import Counter
from importlib import resources

from vredmax.spec.encoding import encode, format_asm

ENV_FILES = ("runner.S", "linux.S", "virt.S", "htif.S", "baremetal.ld")
# Flags of the case record (runner.S).
F_RETIRE, F_TRAP, F_SKIP, F_VSOFF, F_OPTIONAL, F_TAILFREE = 1, 2, 4, 8, 16, 32
FUNCT6_SHIFT = 26


def env_source(name: str) -> str:
    return resources.files("vredmax.platforms.testgen").joinpath("env", name).read_text()


def instruction_word(insn, funct6: int | None = None) -> int:
    """The case's word; `funct6` replaces the operation (the mutation test)."""
    word = encode(insn)
    if funct6 is None:
        return word
    return word & ~(0x3F << FUNCT6_SHIFT) | funct6 << FUNCT6_SHIFT


REPEAT = 1 << 31  # a run's count with this bit: a pair of words repeated by parity
MIN_REPEAT = 4


def descriptor_words(value: int, vlen: int) -> list[int]:
    """A register image as 32-bit words (runner.S's tg_apply): the fill pair (word j of the
    image is fill[j % 2]: 64-bit elements repeat with period two), the number of runs, then
    per run its word offset and either a count and that many words, or (count | REPEAT) and a
    pair repeated by parity."""
    count = max(1, vlen // 32)
    data = value.to_bytes(count * 4, "little")
    words = [int.from_bytes(data[k : k + 4], "little") for k in range(0, len(data), 4)] + [0]
    fill = Counter(zip(words[0:count:2], words[1 : count + 1 : 2])).most_common(1)[0][0]

    def pair_at(k: int) -> tuple[int, int]:
        return (words[k], words[k + 1]) if k % 2 == 0 else (words[k + 1], words[k])

    def repeats(k: int, pair) -> int:
        j = k
        while j < count and words[j] == pair[j % 2]:
            j += 1
        return j - k

    runs, k = [], 0
    while k < count:
        if words[k] == fill[k % 2]:
            k += 1
            continue
        pair = pair_at(k)
        same = repeats(k, pair)
        if same >= MIN_REPEAT:
            runs.append([k, same | REPEAT, *pair])
            k += same
            continue
        start = k  # literal words up to the fill or to a repeat worth its own run
        k += 1
        while k < count and words[k] != fill[k % 2] and repeats(k, pair_at(k)) < MIN_REPEAT:
            k += 1
        runs.append([start, k - start, *words[start:k]])
    out = [*fill, len(runs)]
    for run in runs:
        out += run
    return out


class Emitter:
    def __init__(self, vlen: int):
        if vlen < 32 or vlen % 32:
            raise ValueError(f"vlen: the runner needs a multiple of 32 bits, got {vlen}")
        self.vlen = vlen
        self.descriptors: dict[int, str] = {}
        self.data: list[str] = []

    def descriptor(self, value: int) -> str:
        label = self.descriptors.get(value)
        if label is None:
            label = self.descriptors[value] = f"tg_d{len(self.descriptors)}"
            words = descriptor_words(value, self.vlen)
            self.data.append(f"{label}:")
            for k in range(0, len(words), 8):
                self.data.append("        .word " + ", ".join(f"{w:#x}" for w in words[k : k + 8]))
        return label


def cases_source(
    vlen: int, elen: int, numbered, funct6: int | None = None, title: str = "", after_word: str = ""
) -> str:
    """cases.S for the cases [(number, TestCase, Check)]: the table the runner walks.
    `after_word` (assembly placed after every word, trap or not) lets tests play a faulty
    implementation that also changes something else."""
    emit = Emitter(vlen)
    table, stubs, names = [], [], []
    for number, case, check in numbered:
        pre, insn = case.pre, case.insn
        flags = (
            (F_RETIRE if check.may_retire else 0)
            | (F_TRAP if check.may_trap else 0)
            | (F_SKIP if check.skip else 0)
            | (F_VSOFF if pre.vs == 0 else 0)
            | (F_OPTIONAL if case.setup_optional else 0)
            | (F_TAILFREE if check.tail_free else 0)
        )
        listed = [(r, emit.descriptor(value)) for r, value in enumerate(pre.regs) if value]
        emit.data += ["        .balign 8", f"tg_p{number}:"]
        for r, label in listed:
            emit.data.append(f"        .dword {r}, {label}")
        expected = emit.descriptor(check.expected_vd) if check.expected_vd is not None else "0"
        word = instruction_word(insn, funct6)
        table.append(
            f"        # case {number}: {case.name}: {format_asm(insn)}\n"
            f"        .dword {number}, tg_n{number}, tg_s{number}, {case.requested_vtype:#x}, "
            f"{case.avl}, {pre.vstart}, {pre.vs}, {flags}, {pre.vl}, {pre.vtype:#x}, "
            f"{insn.vd}, {check.sew_bytes}, {check.vs_retire}, {check.vs_trap}, {len(listed)}, "
            f"tg_p{number}, {expected}"
        )
        stubs.append(
            f"tg_s{number}:\n        .insn {word:#010x}\n"
            + (f"        {after_word}\n" if after_word else "")
            + "        ret"
        )
        names.append(f'tg_n{number}: .asciz "{case.name}"')
    regs_bytes = 32 * (vlen // 8)
    head = [
        f"# {title}" if title else "# vredmax testgen cases",
        f"# VLEN={vlen} ELEN={elen}, {len(table)} cases. Written by `vredmax testgen`; the runner is runner.S.",
        "",
        "        .data",
        "        .balign 8",
        "        .globl tg_vlenb, tg_ncases, tg_cases, tg_pre, tg_post, tg_exp",
        f"tg_vlenb:  .dword {vlen // 8}",
        f"tg_ncases: .dword {len(table)}",
        "tg_cases:",
    ]
    return "\n".join(
        head
        + table
        + ["", "        .balign 8"]
        + emit.data
        + ["", "        .section .rodata"]
        + names
        + ["", "        .text", "        .balign 4"]
        + stubs
        + [
            "",
            "        .bss",
            "        .balign 64",
            f"tg_pre:  .skip {regs_bytes}",
            f"tg_post: .skip {regs_bytes}",
            f"tg_exp:  .skip {regs_bytes}",
            "",
        ]
    )
