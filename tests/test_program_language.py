"""The program language: lines parse with `ast` into Calls, canonical text parses back, errors are clear."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arkg.programs import Call, Names, ParseError, VarRef, parse_call


def test_a_line_with_every_argument_form() -> None:
    call = parse_call('v4 = get_entity_by_constraint(v2, "population", ">", 59449, prop="start time")')
    assert call == Call("v4", "get_entity_by_constraint", (VarRef("v2"), "population", ">", 59449), (("prop", "start time"),))
    assert parse_call('v1 = union(["Marie Curie", "Pierre Curie"], [\'Paris\'])').args == (
        Names(("Marie Curie", "Pierre Curie")),
        Names(("Paris",)),
    )
    assert parse_call("v2 = judge(v1, '<', -1.5)").args == (VarRef("v1"), "<", -1.5)


def test_string_escapes_are_read_as_python_and_json_write_them() -> None:
    call = parse_call(r'v1 = get_candidate_entity("Ir\u00e8ne \"Curie\"\n")')
    assert call.args == ('Irène "Curie"\n',)
    assert call.text() == r'v1 = get_candidate_entity("Irène \"Curie\"\n")'


@given(
    name=st.text(min_size=1, max_size=20),
    number=st.one_of(st.integers(-10**9, 10**9), st.floats(allow_nan=False, allow_infinity=False)),
)
def test_canonical_text_is_one_line_and_parses_back_to_the_same_call(name: str, number: float) -> None:
    call = Call("v3", "tool", (Names((name, "x")), VarRef("v1"), name, number), (("prop", name),))
    text = call.text()
    assert len(text.splitlines()) == 1
    assert parse_call(text) == call


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("v1 = get_relation(", "not valid syntax"),
        ('get_relation(["A"])', "does not bind a variable"),
        ('x = get_relation(["A"])', "left side must be a variable"),
        ('v1 = v2 = get_relation(["A"])', "does not bind a variable"),
        ('v1 = get_relation(["A"]); v2 = count(v1)', "exactly one tool call"),
        ("v1 = 3", "must be one tool call"),
        ("v1 = tools.count(v2)", "must be one tool call"),
        ("v1 = count(entities)", "`entities` is neither a variable"),
        ("v1 = count([])", "empty list"),
        ("v1 = count([v2])", "only hold quoted entity names"),
        ("v1 = judge(v2, '<', True)", "a bool is not an argument"),
        ("v1 = judge(v2, '<', 1e999)", "not a finite number"),
        ("v1 = count(__import__('os'))", "expression is not an argument"),
        ("v1 = count(*v2)", "* and ** arguments"),
    ],
)
def test_bad_lines_get_an_error_that_says_what_to_write(line: str, message: str) -> None:
    with pytest.raises(ParseError, match=message.replace("*", r"\*").replace("(", r"\(")):
        parse_call(line)
