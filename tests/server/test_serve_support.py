"""The page shows what `arkg ask` prints beside the answer: its basis and, when unsupported, why."""

from __future__ import annotations

from pathlib import Path

from arkg.agents.kaping import Kaping
from arkg.agents.strategy import AnswerKind, Query
from arkg.graph import open_graph
from arkg.llm.scripted import ScriptedModel
from arkg.server.steps import result_view

PAGE_SCRIPT = Path(__file__).parents[2] / "src" / "arkg" / "server" / "static" / "app.js"


def test_the_result_view_carries_the_basis_and_the_reasons_an_answer_is_not_supported() -> None:
    model = ScriptedModel.from_replies([{"cited_keys": ["T1"], "explanation": "I recall it.", "answer": "Paris"}])
    result = Kaping(open_graph(None), model).ask(Query(text="Where was Marie Curie born?", kind=AnswerKind.OPEN))
    view = result_view(result.model_dump(mode="json"))
    assert view["basis"] == "unsupported"
    assert view["support"]["supported"] is False and view["support"]["reasons"][0].startswith("Paris is in no cited fact")
    # The page draws them on the line under the answer, worded as the terminal words them.
    script = PAGE_SCRIPT.read_text(encoding="utf-8")
    assert '$("basis").textContent = basisText(result);' in script and "unsupported: " in script


def test_a_saved_result_of_an_older_version_shows_its_basis_without_reasons() -> None:
    view = result_view({"strategy": "ark", "question": "q", "answer": True, "basis": "kg", "cited_triples": []})
    assert view["basis"] == "kg" and view["support"] is None
