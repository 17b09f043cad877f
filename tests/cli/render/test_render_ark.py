"""The readable rendering of an ARK run."""

from __future__ import annotations

from rich.console import Console

from arkg.agents.ark import ArkAgent, ArkSettings
from arkg.cli.render import render_result
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel

QUESTION = "Is Yui Yuigahama's pet a corgi?"


def kg_of(*triples: Triple) -> SQLiteGraph:
    kg = SQLiteGraph()
    kg.add_triples(triples)
    return kg


def rendered(result, **console_options) -> str:
    console = Console(width=200, record=True, **console_options)
    console.print(render_result(result))
    return console.export_text(styles=False)


def test_the_rendering_shows_attempts_facts_answer_and_cost():
    kg = kg_of(Triple("Yui Yuigahama", "has pet", "Sablé"), Triple("Sablé", "animal breed", "dachshund"))
    replies = [
        {"anchor_entity": "Yui"},
        {"anchor_entity": "Yui Yuigahama"},
        {"relation": "has pet"},
        {"cited_keys": ["T1"], "implication": "Her pet is Sablé.", "continue_exploring": True},
        {"anchor_entity": "Sablé"},
        {"relation": "animal breed"},
        {"cited_keys": ["T2"], "implication": "Sablé is a dachshund.", "continue_exploring": False},
        {"explanation": "A dachshund is not a corgi.", "answer": "no"},
    ]
    text = rendered(ArkAgent(kg, ScriptedModel.from_replies(replies), ArkSettings(mode="free")).ask(QUESTION))
    assert "1.1 anchor: Yui ✗" in text and 'Closest entities: "Yui Yuigahama"' in text
    assert "1.2 anchor: Yui Yuigahama ✓" in text
    assert "T1: (Yui Yuigahama, has pet, Sablé)" in text
    assert "cites T2 ✓ [stop] Sablé is a dachshund." in text
    assert "answer: False" in text
    assert "nodes: 1 → 2 → 3 → 4 → 3 → 4 → 5" in text and "1 invalid attempts" in text
    assert "ark: 8 model calls" in text and "stopped because the model stopped exploring" in text


def test_terminal_escape_sequences_from_the_kg_or_the_model_are_shown_as_text():
    """An ESC sequence in a KG name or a reply never reaches the terminal raw."""
    kg = kg_of(Triple("Evil\x1b[2J", "has", "tail\x1b]0;title\x07"))
    replies = [
        {"anchor_entity": "Evil\x1b[2J"},
        {"relation": "has"},
        {"cited_keys": ["T1"], "implication": "clear \x1b[2J screen", "continue_exploring": False},
        {"explanation": "\x1b[31mred", "answer": "yes"},
    ]
    result = ArkAgent(kg, ScriptedModel.from_replies(replies), ArkSettings(mode="free")).ask("Is Evil a thing?")
    text = rendered(result, force_terminal=True)
    assert "\x1b" not in text and "\x07" not in text
    assert "Evil\\x1b[2J" in text and "tail\\x1b]0;title\\x07" in text and "\\x1b[31mred" in text


def test_events_of_a_strategy_without_renderers_are_shown_generically():
    from pydantic import BaseModel

    from arkg.cli.render import describe

    class Probe(BaseModel):
        kind: str = "probe"
        looked_at: str

    console = Console(width=200, record=True)
    console.print(describe(Probe(looked_at="line\nbreak")))
    text = console.export_text()
    assert "probe" in text and "line\\nbreak" in text
