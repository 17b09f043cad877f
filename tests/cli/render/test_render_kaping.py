"""The readable rendering of a KAPING run."""

from __future__ import annotations

from rich.console import Console

from arkg.agents.kaping import Kaping, KapingSettings
from arkg.agents.modes import SelectionMode
from arkg.cli.render import render_result
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel


def rendered(result, **console_options) -> str:
    console = Console(width=200, record=True, **console_options)
    console.print(render_result(result))
    return console.export_text(styles=False)


def test_the_rendering_shows_linked_entities_facts_shown_and_each_attempt_as_lines_not_dicts() -> None:
    kg = SQLiteGraph()
    kg.add_triples([Triple("Yui Yuigahama", "has pet", "Sablé"), Triple("Sablé", "animal breed", "dachshund")])
    replies = [
        {"cited_keys": ["T9"], "explanation": "A guess.", "answer": "yes"},
        {"cited_keys": ["T1"], "explanation": "Her pet is Sablé.", "answer": "yes"},
    ]
    settings = KapingSettings(mode=SelectionMode.FREE)
    result = Kaping(kg, ScriptedModel.from_replies(replies), settings).ask("Does Yui Yuigahama have a pet?")
    text = rendered(result)
    assert "{" not in text  # no event falls back to a dump of its fields
    lines = text.splitlines()
    assert "  linked: Yui Yuigahama" in lines
    assert "  1 of 1 facts shown (lexical ranker)" in lines and "      T1: (Yui Yuigahama, has pet, Sablé)" in lines
    assert "  #1 cites T9 ✗ not shown: T9" in lines
    assert lines[lines.index("  #2 cites T1 ✓") + 1] == "      Her pet is Sablé."
    assert "answer: True  basis: kg (1 cited fact, 0 rules)  supported" in lines


def test_terminal_escape_sequences_from_the_kg_or_the_model_are_shown_as_text() -> None:
    kg = SQLiteGraph()
    kg.add_triples([Triple("Evil\x1b[2J", "has", "tail\x1b]0;title\x07")])
    replies = [{"cited_keys": ["T1"], "explanation": "\x1b[31mred", "answer": "yes"}]
    result = Kaping(kg, ScriptedModel.from_replies(replies), KapingSettings(mode=SelectionMode.FREE)).ask("Has Evil\x1b[2J a tail?")
    text = rendered(result, force_terminal=True)
    assert "\x1b" not in text and "\x07" not in text
    assert "Evil\\x1b[2J" in text and "\\x1b[31mred" in text
