"""`arkg questions --paraphrase-model`: a model's rewrite replaces a template's wording only when it keeps
every name, names no answer, asks for the same kind of answer and adds no name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.question_kg import question_kg_store
from typer.testing import CliRunner

from arkg.cli import app
from arkg.datasets.geo.questions import GeoQuestion
from arkg.llm.scripted import ScriptedModel
from arkg.synth.kg_questions.paraphrase import paraphrase, rejection


def _question(text: str, answer: bool | list[str], entities: list[str]) -> GeoQuestion:
    return GeoQuestion(
        id="q-1", question=text, answer=answer, answer_type="boolean" if isinstance(answer, bool) else "entities",
        program=[], evidence=[], hops=1, template="lookup", kind="lookup", entities=entities, split="test",
    )  # fmt: skip


OPEN = _question("Which entity is reports to Gareth Lynwood?", ["Mira Holt"], ["Gareth Lynwood"])
YES_NO = _question("Is the in post since of Gareth Lynwood after that of Martin Kowalczyk?", True, ["Gareth Lynwood", "Martin Kowalczyk"])


@pytest.mark.parametrize(
    ("question", "rewrite", "reason"),
    [
        (OPEN, "Who reports to Gareth Lynwood?", None),
        (YES_NO, "Did Gareth Lynwood take up his post after Martin Kowalczyk did?", None),
        (OPEN, "Name whoever reports to Gareth Lynwood.", "not a question"),
        (OPEN, "Who reports to Gary Lynwood?", "dropped or changed a name"),
        (OPEN, "Does Mira Holt report to Gareth Lynwood?", "names the answer"),
        (YES_NO, "When did Gareth Lynwood and Martin Kowalczyk take up their posts?", "changed the kind of answer"),
        (OPEN, "Who reports to Gareth Lynwood at Saint Aldric?", "added a name"),
    ],
)
def test_each_rewrite_is_checked(question: GeoQuestion, rewrite: str, reason: str | None) -> None:
    assert rejection(question, rewrite) == reason


def test_a_rejected_rewrite_keeps_the_template_wording() -> None:
    model = ScriptedModel.from_replies([{"question": "  Who   reports to Gareth Lynwood? "}, {"question": "Is Gareth Lynwood older?"}])
    seen: list[tuple[int, int]] = []
    done = paraphrase([OPEN, YES_NO], model, progress=lambda index, total: seen.append((index, total)))
    assert [question.question for question in done.questions] == ["Who reports to Gareth Lynwood?", YES_NO.question]
    assert (done.rewritten, dict(done.rejected)) == (1, {"dropped or changed a name": 1})
    assert done.questions[0].answer == OPEN.answer and done.questions[0].program == OPEN.program
    assert seen == [(1, 2), (2, 2)]
    assert '"Gareth Lynwood", "Martin Kowalczyk"' in model.calls[1].messages[0].content


def test_the_command_reports_what_was_reworded(tmp_path: Path) -> None:
    db = question_kg_store(tmp_path)
    out = tmp_path / "q.jsonl"
    made = CliRunner().invoke(app, ["questions", "--db", str(db), "--out", str(out), "--limit", "5", "--paraphrase-model", "test"])
    assert made.exit_code == 0, made.output
    assert "Reworded 0 by test; kept the template's wording for the rest (5 " in made.output
    plain = tmp_path / "plain.jsonl"
    assert CliRunner().invoke(app, ["questions", "--db", str(db), "--out", str(plain), "--limit", "5"]).exit_code == 0
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == [json.loads(line) for line in plain.read_text(encoding="utf-8").splitlines()]
