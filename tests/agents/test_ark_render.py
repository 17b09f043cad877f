"""The readable rendering of a trace."""

from __future__ import annotations

from ark_helpers import QUESTION, TWO_STEPS, anchor, sample_kg
from rich.console import Console

from arkg.agents.ark import Agent
from arkg.agents.ark_render import render_trace
from arkg.agents.ark_settings import ArkSettings
from arkg.llm.scripted import ScriptedModel


def rendered(result) -> str:
    console = Console(width=200, record=True)
    console.print(render_trace(result.trace))
    return console.export_text()


def test_the_rendering_shows_attempts_facts_answer_and_cost():
    model = ScriptedModel.from_replies([anchor("Yui"), *TWO_STEPS])
    text = rendered(Agent(sample_kg(), model, ArkSettings(mode="free")).ask(QUESTION))
    assert "1.1 anchor: Yui ✗" in text and 'Closest entities: "Yui Yuigahama"' in text
    assert "1.2 anchor: Yui Yuigahama ✓" in text
    assert "T1: (Yui Yuigahama, has pet, Sablé)" in text
    assert "cites T2 ✓ [stop] Sablé is a dachshund." in text
    assert "answer: False" in text
    assert "nodes: 1 → 2 → 3 → 4 → 3 → 4 → 5" in text and "8 model calls" in text and "1 invalid attempts" in text


def test_terminal_escape_sequences_from_the_kg_or_the_model_are_shown_as_text():
    """Hardening item 21: an ESC sequence in a KG name or a reply never reaches the terminal raw."""
    from arkg.graph.model import Triple
    from arkg.graph.sqlite_store import SQLiteGraph

    kg = SQLiteGraph()
    kg.add_triples([Triple("Evil\x1b[2J", "has", "tail\x1b]0;title\x07")])
    replies = [
        anchor("Evil\x1b[2J"),
        {"relation": "has"},
        {"cited_keys": ["T1"], "implication": "clear \x1b[2J screen", "continue_exploring": False},
        {"explanation": "\x1b[31mred", "answer": "yes"},
    ]
    result = Agent(kg, ScriptedModel.from_replies(replies), ArkSettings(mode="free")).ask("Is Evil a thing?")
    console = Console(width=200, record=True, force_terminal=True)
    console.print(render_trace(result.trace))
    text = console.export_text(styles=False)
    assert "\x1b" not in text and "\x07" not in text
    assert "Evil\\x1b[2J" in text and "tail\\x1b]0;title\\x07" in text and "\\x1b[31mred" in text
