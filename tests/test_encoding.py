"""The 32-bit word and the assembler syntax of vredmax.vs."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vredmax.spec.encoding import (
    REDUCTIONS,
    EncodingError,
    Insn,
    decode,
    describe_fields,
    encode,
    format_asm,
    parse_asm,
)
from vredmax.impl.case import CaseError, parse_insn

ALL_FIELDS = list(itertools.product((0, 1), range(32), range(32), range(32)))


def test_round_trip_over_every_field_combination():
    words = set()
    for vm, vd, vs2, vs1 in ALL_FIELDS:
        insn = Insn(vd=vd, vs2=vs2, vs1=vs1, vm=vm)
        word = encode(insn)
        words.add(word)
        assert decode(word) == insn
        text = format_asm(insn)
        assert parse_asm(text) == insn
        assert format_asm(decode(encode(parse_asm(text)))) == text
    assert len(words) == len(ALL_FIELDS)


def test_fields_sit_where_the_table_says():
    for vm, vd, vs2, vs1 in ALL_FIELDS[::97]:
        word = encode(Insn(vd=vd, vs2=vs2, vs1=vs1, vm=vm))
        assert [value for _, _, value in describe_fields(word)] == [
            0b000111,
            vm,
            vs2,
            vs1,
            0b010,
            vd,
            0b1010111,
        ]


@pytest.mark.parametrize(
    "text, word",
    [
        ("vredmax.vs v8, v12, v4", 0x1EC22457),  # GNU as
        ("vredmax.vs v4, v8, v12, v0.t", 0x1C862257),  # GNU as; the seed's animation
        ("vredmax.vs v0, v0, v0", 0x1E002057),
        ("vredmax.vs v0, v0, v0, v0.t", 0x1C002057),
    ],
)
def test_known_words(text, word):
    assert encode(parse_asm(text)) == word
    assert format_asm(decode(word)) == text


def test_disassembled_fields_of_the_animation_word():
    assert [(name, bits) for name, bits, _ in describe_fields(0x1C862257)] == [
        ("funct6", "000111"),
        ("vm", "0"),
        ("vs2", "01000"),
        ("vs1", "01100"),
        ("funct3", "010"),
        ("vd", "00100"),
        ("opcode", "1010111"),
    ]


@pytest.mark.parametrize(
    "text", ["VREDMAX.VS V8,V12,V4", "  vredmax.vs   v8 ,v12,  v4  ", "vredmax.vs v8, v12, v4, V0.T"]
)
def test_syntax_is_case_and_space_free(text):
    assert parse_asm(text).vd == 8


@pytest.mark.parametrize("funct6, name", sorted((k, v) for k, v in REDUCTIONS.items() if v != "vredmax.vs"))
def test_other_reductions_are_named(funct6, name):
    word = encode(Insn(vd=1, vs2=2, vs1=3)) & ~(0b111111 << 26) | funct6 << 26
    with pytest.raises(EncodingError, match=rf"^insn: .*is {name}, not vredmax\.vs"):
        decode(word)


@pytest.mark.parametrize(
    "word",
    [
        0x00000013,  # addi x0, x0, 0
        0x1EC20457,  # funct3=000 (OPIVV): vmax.vv, not a reduction
        0x1EC22057 ^ 0x20,  # wrong opcode
        0x22C22457,  # OPMVV funct6=001000 (vaaddu.vv)
        0xFFFFFFFF,
    ],
)
def test_other_words_are_not_op_v_reductions(word):
    with pytest.raises(EncodingError, match="^insn: .*not an OP-V reduction"):
        decode(word)


@given(st.integers(0, 2**32 - 1))
def test_decode_accepts_exactly_the_vredmax_words(word):
    is_vredmax = word & 0x7F == 0b1010111 and word >> 12 & 7 == 0b010 and word >> 26 == 0b000111
    try:
        insn = decode(word)
    except EncodingError as error:
        assert not is_vredmax
        reduction = word & 0x7F == 0b1010111 and word >> 12 & 7 == 0b010 and word >> 26 < 8
        assert ("is vred" in str(error)) == reduction
    else:
        assert is_vredmax and encode(insn) == word


@pytest.mark.parametrize("word", [-1, 1 << 32])
def test_decode_rejects_non_words(word):
    with pytest.raises(EncodingError, match="^insn: must be a 32-bit word"):
        decode(word)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "vredmin.vs v1, v2, v3",
        "vredmax.vv v1, v2, v3",
        "vredmax.vs v1, v2",
        "vredmax.vs v1, v2, v3, v4",
        "vredmax.vs v1, v2, v3, v1.t",
        "vredmax.vs v32, v2, v3",
        "vredmax.vs v1, x2, v3",
        "vredmax.vs v1, v02, v3",
        "vredmax.vs v1 v2 v3",
        "vredmax.vs v1, v2, v3,",
    ],
)
def test_bad_assembly_names_the_insn(text):
    with pytest.raises(EncodingError, match="^insn: "):
        parse_asm(text)


@pytest.mark.parametrize(
    "fields", [dict(vd=32, vs2=0, vs1=0), dict(vd=0, vs2=-1, vs1=0), dict(vd=0, vs2=0, vs1=0, vm=2)]
)
def test_insn_fields_are_checked(fields):
    with pytest.raises(EncodingError):
        Insn(**fields)


@pytest.mark.parametrize(
    "value",
    [
        "vredmax.vs v4, v8, v12, v0.t",
        0x1C862257,
        "0x1c862257",
        "0b00011100100001100010001001010111",
        str(0x1C862257),
    ],
)
def test_case_insn_accepts_text_integer_and_hex(value):
    assert parse_insn(value) == Insn(vd=4, vs2=8, vs1=12, vm=0)


@pytest.mark.parametrize("value", [True, 1.5, None, [], "0x1ec22057 extra", 0x00000013])
def test_case_insn_rejects_the_rest(value):
    with pytest.raises(CaseError, match="^insn: "):
        parse_insn(value)
