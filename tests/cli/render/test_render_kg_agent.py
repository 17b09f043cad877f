"""The readable rendering of a KG-Agent run."""

from __future__ import annotations

from rich.console import Console

from arkg.agents.kg_agent import KgAgent, KgAgentSettings
from arkg.agents.modes import SelectionMode
from arkg.cli.render import render_result
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel


def rendered(result, **console_options) -> str:
    console = Console(width=200, record=True, **console_options)
    console.print(render_result(result))
    return console.export_text(styles=False)


def kg_of(*triples: Triple) -> SQLiteGraph:
    kg = SQLiteGraph()
    kg.add_triples(triples)
    return kg


def test_the_rendering_shows_attempts_results_the_note_and_the_program() -> None:
    kg = kg_of(*(Triple("Sablé", "owned by", owner) for owner in ("Yui", "Hachiman", "Iroha", "Yukino", "Komachi", "Saki")))
    replies = [{"line": "v1 = get_tail_entity(['Sablé'], 'owner')"}, {"line": "v1 = get_tail_entity(['Sablé'], 'owned by')"}, {"line": "v2 = end(v1)"}]
    result = KgAgent(kg, ScriptedModel.from_replies(replies), KgAgentSettings(mode=SelectionMode.FREE)).ask("Is Sablé owned by Yui?")
    text = rendered(result)
    assert "topic entities: Sablé, Yui" in text
    assert "1.1 line: v1 = get_tail_entity(['Sablé'], 'owner') ✗  no edge 'owner' leaves Sablé; relations that do: owned by" in text
    assert '1.2 line: v1 = get_tail_entity(["Sablé"], "owned by") ✓' in text  # the canonical line once it ran
    assert "→ 6 entities: Yui, Hachiman, Iroha, Yukino, Komachi, …  (6 triples read)" in text
    assert "end: the program ended" in text
    assert "answer: None (not settled by the knowledge graph)  basis: no answer" in text
    assert "note: the program ended on entities, not on a judge verdict: a yes/no question needs judge" in text
    assert 'program (2 lines, 1 invalid attempts):\n  v1 = get_tail_entity(["Sablé"], "owned by")\n  v2 = end(v1)' in text
    assert "kg-agent: 3 model calls" in text


def test_terminal_escape_sequences_from_the_kg_or_the_model_are_shown_as_text() -> None:
    kg = kg_of(Triple("Evil\x1b[2J", "has", "tail\x1b]0;title\x07"))
    replies = [{"line": "v1 = fly('\x1b[31m')"}, {"line": 'v1 = get_tail_entity(["Evil\\u001b[2J"], "has")'}, {"line": "v2 = end(v1)"}]
    result = KgAgent(kg, ScriptedModel.from_replies(replies), KgAgentSettings(mode=SelectionMode.FREE)).ask("What has Evil\x1b[2J?")
    text = rendered(result, force_terminal=True)
    assert "\x1b[2J" not in text and "\x07" not in text and "\x1b[31m" not in text
    assert "tail\\x1b]0;title\\x07" in text and "fly('\\x1b[31m')" in text
