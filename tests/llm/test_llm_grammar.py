"""GBNF generation: literal escaping, the prefix-tree choice grammar, the JSON-schema grammar."""

from __future__ import annotations

import json
import re
from typing import Literal

import pytest
from pydantic import BaseModel

from arkg.llm.base import Choice
from arkg.llm.grammar import choice_grammar, gbnf_literal, grammar_for, schema_grammar

_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _decode_literal(body: str) -> str:
    """Undo GBNF literal escaping (\\n, \\", \\\\, \\xHH)."""
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] == "x":
                out.append(chr(int(body[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append(_ESCAPES[body[i + 1]])
            i += 2
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


def choice_language(gbnf: str) -> re.Pattern[str]:
    """A regex accepting exactly what a choice grammar accepts.

    Choice grammars use only literals, grouping, `|` and `?`, which map one to one onto regex syntax.
    """
    (line,) = gbnf.strip().splitlines()
    assert line.startswith("root ::= ")
    body = line.removeprefix("root ::= ")
    pieces, position = [], 0
    for match in _LITERAL.finditer(body):
        pieces.append(body[position : match.start()].replace(" ", ""))
        pieces.append(re.escape(_decode_literal(match.group(1))))
        position = match.end()
    pieces.append(body[position:].replace(" ", ""))
    structure = "".join(pieces[0::2])
    assert set(structure) <= set("()|?"), f"unexpected GBNF syntax in {structure!r}"
    return re.compile("".join(pieces), re.DOTALL)


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("plain", '"plain"'),
        ('say "hi"', r'"say \"hi\""'),
        ("back\\slash", r'"back\\slash"'),
        ("two\nlines\r\ttab", r'"two\nlines\r\ttab"'),
        ("bell\x07 del\x7f", r'"bell\x07 del\x7F"'),
        ("Zürich, São Paulo, 東京, 🙂", '"Zürich, São Paulo, 東京, 🙂"'),
        ("", '""'),
    ],
)
def test_gbnf_literal_escapes_only_what_gbnf_cannot_hold(text: str, literal: str) -> None:
    assert gbnf_literal(text) == literal
    assert _decode_literal(literal[1:-1]) == text


TRICKY = [
    "Paris",
    "Paris, Texas",
    "Par",
    'The "Big" Apple',
    "C:\\Windows\\",
    "line\nbreak",
    "Ça va",
    "Çà",
    "北京",
    "北海道",
    "",
    "a | b",
    "(x)?",
    '"',
    "\\",
]


def test_choice_grammar_accepts_exactly_the_options() -> None:
    language = choice_language(choice_grammar(Choice(TRICKY)))
    for option in TRICKY:
        assert language.fullmatch(option), option
    for other in ["Pari", "Paris,", "Paris, Texas!", "北", "x", "a", " Paris", '""', "C:\\Windows"]:
        assert not language.fullmatch(other), other


def test_choice_grammar_is_one_line_and_shares_prefixes() -> None:
    options = [f"Entity {i:03d}" for i in range(500)]
    gbnf = choice_grammar(Choice(options))
    assert gbnf.count("\n") == 1
    # "Entity " is written once, not 500 times: the alternation branches where the options differ.
    assert gbnf.count("Entity") == 1
    language = choice_language(gbnf)
    assert all(language.fullmatch(option) for option in options)
    assert not language.fullmatch("Entity 500")


def test_single_empty_option() -> None:
    assert choice_language(choice_grammar(Choice([""]))).fullmatch("")


class Inner(BaseModel):
    note: str
    flag: bool


class Outer(BaseModel):
    verdict: Literal["True", "False", "None"]
    tag: Literal['say "yes"', "C:\\dir", "Café"]
    items: list[Inner]


def _rule(gbnf: str, name: str) -> str:
    (line,) = [line for line in gbnf.splitlines() if line.startswith(f"{name} ::= ")]
    return line.removeprefix(f"{name} ::= ")


def test_schema_grammar_keeps_control_characters_and_escapes_other_than_quote_and_backslash_out_of_json_strings() -> None:
    """A string is one line of text: no raw control character (JSON forbids them), and no \\n, \\t or
    \\uXXXX escape, which a small model can repeat until its token budget is spent."""
    char = _rule(schema_grammar(Outer), "char")
    assert char == r'[^"\\\x7F\x00-\x1F] | "\\" ["\\]'


def test_schema_grammar_enum_literals_are_json_strings_escaped_for_gbnf() -> None:
    tag = _rule(schema_grammar(Outer), "tag")
    literals = [_decode_literal(body) for body in _LITERAL.findall(tag)]
    assert literals == ['"say \\"yes\\""', '"C:\\\\dir"', '"Café"']
    assert [json.loads(text) for text in literals] == ['say "yes"', "C:\\dir", "Café"]


def test_grammar_for_memoises_per_spec() -> None:
    assert grammar_for(Outer) is grammar_for(Outer)
    assert grammar_for(Choice(["a", "b"])) is grammar_for(Choice(["a", "b"]))
    assert grammar_for(Choice(["a", "b"])) != grammar_for(Choice(["a", "c"]))
