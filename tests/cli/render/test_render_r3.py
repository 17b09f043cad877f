"""`arkg ask --strategy r3`: R³'s events as the CLI prints them, with a scripted model."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import arkg.session
from arkg.cli import app
from arkg.graph import open_graph
from arkg.llm.base import Choice
from arkg.llm.scripted import ScriptedModel

QUESTION = "Was Pierre Curie born in Poland?"


def pierre_curie(messages, output, sampling):
    """Replies to each R³ request over the sample KG: name the entity, state the axiom, judge it on the
    fact of his birthplace, then on that place's country."""
    request = messages[-1].content
    if isinstance(output, Choice):
        raise AssertionError("R³ asks for JSON only")
    fields = output.model_json_schema()["properties"]
    if "entities" in fields:
        return {"entities": ["Pierre Curie"]}
    if "rule" in fields:
        return {
            "rule": "Someone born in Poland has a place of birth in Poland.",
            "premises": [{"entity": "Pierre Curie", "property": "country of place of birth", "operator": "=", "value": "Poland"}],
        }
    if "picked_keys" in fields:
        return {"picked_keys": []}
    if "missing" in fields:
        return {"premise": "P1", "missing": "the country of Paris", "entity": "Paris"}
    keys = {line.split(": ", 1)[1]: line.split(": ", 1)[0] for line in request.splitlines() if line.startswith("T")}
    birthplace, country = keys.get("(Pierre Curie, place of birth, Paris)"), keys.get("(Paris, country, France)")
    if country is None:
        return {"judgements": [{"premise": "P1", "status": "unknown", "cited_keys": []}]}
    return {"judgements": [{"premise": "P1", "status": "unsatisfied", "cited_keys": [birthplace, country]}]}


@pytest.fixture
def scripted_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arkg.session, "open_model", lambda spec=None, **options: ScriptedModel(pierre_curie))


def test_ask_with_r3_prints_the_axiom_the_judgements_and_the_answer(scripted_model) -> None:
    outcome = CliRunner().invoke(app, ["ask", "--strategy", "r3", QUESTION])
    assert outcome.exit_code == 0, outcome.output
    text = " ".join(outcome.output.split())  # as one line, whatever the terminal's width
    assert "entities #1: Pierre Curie ✓" in text
    assert "anchors: Pierre Curie, Poland (linked: Pierre Curie, Poland; named: Pierre Curie)" in text
    assert "b1 #1 axiom (commonsense, temperature 0): Someone born in Poland has a place of birth in Poland. ✓" in text
    assert "P1: country of place of birth of Pierre Curie = Poland" in text
    assert "b1.d1 verdict: undetermined (not grounded: P1)" in text
    assert "b1.d1 #1 missing for P1: the country of Paris → Paris (new entity) ✓" in text
    assert "b1.d2 verdict: False (rests on P1)" in text
    assert "end: the premises settled the answer" in text
    assert "answer: False basis: kg+commonsense (2 cited facts, 1 rule)" in text
    assert "axioms: 1; 0 invalid attempts" in text
    assert "stopped because the premises settled the answer" in text
    # The events come in the order they happened.
    order = ["entities #1", "anchors:", "axiom", "b1.d1 verdict", "missing for P1", "b1.d2 verdict", "answer:"]
    positions = [text.index(marker) for marker in order]
    assert positions == sorted(positions)


def test_ask_with_r3_as_json_cites_the_facts_the_premise_rests_on(scripted_model, tmp_path) -> None:
    trace_file = tmp_path / "trace.json"
    outcome = CliRunner().invoke(app, ["ask", "-s", "r3", QUESTION, "--json", "--set", "max_breadth=1", "--trace", str(trace_file)])
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.stdout)
    assert result["strategy"] == "r3" and result["answer"] is False
    assert [(t["head"], t["relation"], t["tail"]) for t in result["cited_triples"]] == [
        ("Pierre Curie", "place of birth", "Paris"),
        ("Paris", "country", "France"),
    ]
    assert result["trace"]["settings"]["max_breadth"] == 1
    assert json.loads(trace_file.read_text())["trace"]["axioms"][0]["rule"].startswith("Someone born in Poland")
    kg = open_graph(None)
    try:
        assert all(kg.has_entity(t["head"]) for t in result["cited_triples"])
    finally:
        kg.close()


def test_an_option_r3_does_not_have_is_refused_naming_its_settings(scripted_model) -> None:
    outcome = CliRunner().invoke(app, ["ask", "--strategy", "r3", QUESTION, "--k-max", "2"])
    assert outcome.exit_code == 1
    assert "--k-max does not apply to strategy 'r3'" in outcome.output and "max_depth" in outcome.output


def test_escape_sequences_from_the_kg_or_the_model_are_shown_as_text() -> None:
    from rich.console import Console

    from arkg.agents.r3 import R3, R3Settings
    from arkg.cli.render import render_result
    from arkg.graph.model import Triple
    from arkg.graph.sqlite_store import SQLiteGraph

    kg = SQLiteGraph()
    kg.add_triples([Triple("Evil\x1b[2J", "has", "tail\x1b]0;title\x07")])
    # Constrained mode shows the name escaped; the reply names it so, and it stands for the stored name.
    replies = [
        {"rule": "clear \x1b[2J screen", "premises": [{"entity": "Evil\\x1b[2J", "property": "has", "operator": "holds", "value": ""}]},
        {"judgements": [{"premise": "P1", "status": "satisfied", "cited_keys": ["T1"]}]},
    ]
    result = R3(kg, ScriptedModel.from_replies(replies), R3Settings(max_named=0)).ask("Is Evil\x1b[2J a thing?")
    console = Console(width=200, record=True, force_terminal=True)
    console.print(render_result(result))
    text = console.export_text(styles=False)
    assert "\x1b" not in text and "\x07" not in text
    assert "Evil\\x1b[2J" in text and "tail\\x1b]0;title\\x07" in text and "clear \\x1b[2J screen" in text
    assert result.answer is True and result.trace.axioms[0].premises[0].entity == "Evil\x1b[2J"
