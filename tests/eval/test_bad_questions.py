"""Questions that cannot be asked, and answers that cannot be held: each unaskable question is a
problem (skipped, with its reason), each unholdable number an error naming file and line; one question
that fails in the runner fails alone, and a run that fails before its first answer leaves no file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.agents import MAX_QUESTION_CHARS
from arkg.agents import Result
from arkg.agents.cot import ChainOfThought
from arkg.errors import LoadError
from arkg.eval.dataset import Effect, Question
from arkg.eval.datasets import open_dataset
from arkg.eval.results import RunConfig
from arkg.eval.runner import run_evaluation
from arkg.llm.scripted import ScriptedModel
from arkg.server import Limits

CONFIG = RunConfig(
    dataset="d.json", dataset_sha256="abc", kg="gold", strategy="cot", model="scripted",
    temperature=0.0, seed=0, max_tokens=64,
)  # fmt: skip


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def skipped(path: Path) -> dict[str, tuple[str, str]]:
    dataset = open_dataset(path)
    assert all(problem.effect is Effect.QUESTION_SKIPPED for problem in dataset.problems)
    return {problem.id: (problem.field, problem.reason) for problem in dataset.problems}


def cot(answer: str) -> ChainOfThought:
    return ChainOfThought(ScriptedModel(lambda messages, output, sampling: {"reasoning": "r", "answer": answer}))


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]


# -- questions no strategy can be asked: problems, the others kept ------------------------------------


def test_a_metaqa_topic_entity_that_is_blank_is_a_problem(tmp_path: Path) -> None:
    path = write(tmp_path / "qa.txt", "who directed [Kismet]\tWilliam Dieterle\n[ ]\tx\nwho directed [ Kismet ]\tWilliam Dieterle\n")
    assert skipped(path) == {"2": ("question", "the [topic entity] is blank")}
    assert [question.id for question in open_dataset(path).questions] == ["1", "3"]


def test_a_lone_surrogate_in_a_question_or_its_names_is_a_problem_naming_the_field(tmp_path: Path) -> None:
    """JSON escapes such as `\\ud800` decode to half a character, which no prompt or results file can hold."""
    lines = [
        '{"id": "ok", "question": "Who directed Kismet?", "answer": "William Dieterle"}',
        '{"id": "text", "question": "Was \\ud800 born?", "answer": "x"}',
        '{"id": "gold", "question": "Who?", "answers": ["a", "b\\udfff"]}',
        '{"id": "topic", "question": "Who?", "answer": "a", "entities": ["\\ud83d"]}',
        '{"id": "\\ud800", "question": "Who?", "answer": "a"}',
    ]
    found = skipped(write(tmp_path / "mine.jsonl", "\n".join(lines) + "\n"))
    assert {key: field for key, (field, _) in found.items()} == {"text": "question", "gold": "answer", "topic": "entities", "\ud800": "id"}
    assert found["text"][1] == "holds \\ud800, half of a UTF-16 surrogate pair and not a character; write the character itself"


def test_a_question_longer_than_the_limit_is_a_problem_in_every_format(tmp_path: Path) -> None:
    """The limit of `arkg ask`, `arkg serve` and `arkg mcp` holds for data sets too: one definition."""
    assert Limits().max_question_chars == MAX_QUESTION_CHARS == 1000
    longest, too_long = "w" * (MAX_QUESTION_CHARS - 1) + "?", "w" * MAX_QUESTION_CHARS + "?"
    mine = write(tmp_path / "mine.jsonl", "\n".join(json.dumps({"question": q, "answer": "a"}) for q in (longest, too_long)) + "\n")
    assert skipped(mine) == {"2": ("question", "1,001 characters; a question is at most 1,000")}
    metaqa = write(tmp_path / "qa.txt", f"[Kismet] {'w' * 2000}\tx\n[Kismet] by whom\tx\n")
    assert skipped(metaqa) == {"1": ("question", "2,007 characters; a question is at most 1,000")}
    assert [question.text for question in open_dataset(mine).questions] == [longest]


# -- files whose lines end in a lone CR ---------------------------------------------------------


def test_csv_and_metaqa_files_with_cr_line_endings_are_read_line_by_line(tmp_path: Path) -> None:
    csv = write(tmp_path / "mac.csv", "id,question,answer\rc1,Is Kismet from 1944?,yes\r\r\"c2\",\"Who,\rthen?\",a|b\r,y,z,w\r")
    dataset = open_dataset(csv)
    assert [(q.id, q.text, q.answer) for q in dataset.questions] == [("c1", "Is Kismet from 1944?", True), ("c2", "Who,\rthen?", ("a", "b"))]
    assert [(p.id, p.field) for p in dataset.problems] == [("6", "row")]  # lines as an editor counts them
    metaqa = write(tmp_path / "qa.txt", "who directed [Kismet]\tWilliam Dieterle\r[Kismet] starred who\tRonald Colman\r")
    assert [(q.id, q.text) for q in open_dataset(metaqa).questions] == [("1", "who directed Kismet"), ("2", "Kismet starred who")]


# -- numbers no results file can hold: errors naming file and line --------------------------------


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("mine.jsonl", '{"question": "Q1?", "answer": 1}\n{"question": "Q2?", "answer": 1e999}\n', "line 2"),
        ("mine.jsonl", '{"question": "Q1?", "answer": 1}\n{"question": "Q2?", "answer": -1E999}\n', "line 2"),
        ("mine.json", '[{"question": "Q1?", "answer": 1},\n\n {"question": "Q2?",\n  "answer": 1e999}]', "entry 2 (line 3)"),
        ("mine.json", '{"name": "m", "questions": [\n {"question": "Q1?", "answer": 1}, {"question": "Q2?", "answer": -1e999}]}', "entry 2 (line 2)"),
        ("mine.csv", "question,answer\nQ1?,1\nQ2?,1e999\n", "line 3"),
        ("mine.csv", "question,answer\nQ1?,1\nQ2?,-1" + "0" * 400 + ".5\n", "line 3"),
    ],
)
def test_an_answer_too_large_to_hold_is_an_error_naming_file_and_line(tmp_path: Path, name: str, text: str, where: str) -> None:
    """Read as infinity, it would be written as null: a question scored as having no gold answer."""
    path = write(tmp_path / name, text)
    with pytest.raises(LoadError) as caught:
        open_dataset(path)
    assert (caught.value.path, caught.value.where) == (str(path), where)
    assert "the answer is a number too large to hold (it reads as" in caught.value.reason


def test_a_csv_answer_of_thousands_of_digits_is_refused_as_json_refuses_it(tmp_path: Path) -> None:
    digits = "9" * 5000
    with pytest.raises(LoadError) as csv:
        open_dataset(write(tmp_path / "mine.csv", f"question,answer\nQ1?,1\nQ2?,{digits}\n"))
    assert (csv.value.where, csv.value.reason) == ("line 3", "the answer is a number with more than 4,300 digits; arkg reads none that long")
    with pytest.raises(LoadError) as json_file:
        open_dataset(write(tmp_path / "mine.jsonl", f'{{"question": "Q1?", "answer": 1}}\n{{"question": "Q2?", "answer": {digits}}}\n'))
    assert json_file.value.where == "line 2" and "more than 4,300 digits" in json_file.value.reason


# -- the runner: one question's failure is its record; an early failure leaves no file ----------------------


def test_a_question_that_fails_outside_its_strategy_fails_alone(tmp_path: Path) -> None:
    """An empty text fails the query itself (before any strategy runs); a lone surrogate in the answer
    fails the record's writing. Each becomes its question's failed record, and the next question runs."""
    questions = [Question("Q1", "Who?", ("a",), {}, (), ()), Question("Q2", "", ("a",), {}, (), ()), Question("Q3", "Who?", ("a",), {}, (), ())]
    out = tmp_path / "r.jsonl"
    summary = run_evaluation(questions, cot("a"), CONFIG, out)
    assert [(r["question_id"], r["error"] is None) for r in records(out)] == [("Q1", True), ("Q2", False), ("Q3", True)]
    assert records(out)[1]["error"].startswith("internal error (ValidationError: 1 validation error for Query")
    assert (summary.done, summary.failed) == (3, 1)

    class CitesHalfACharacter:
        def ask(self, query, options=None) -> Result:
            return Result(strategy="cot", question=query.text, answer="a", cited_triples=[{"head": "half \ud800", "relation": "r", "tail": "t"}])

    unwritable = tmp_path / "u.jsonl"
    run_evaluation(questions[:2], CitesHalfACharacter(), CONFIG, unwritable)
    record, _ = records(unwritable)
    assert record["answer"] is None and record["error"].startswith("internal error (the answer could not be written:")


def test_a_run_that_fails_before_its_first_answer_leaves_nothing_that_blocks_a_rerun(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    questions = [Question("Q1", "Who?", ("a",), {}, (), ())]

    def broken(summary) -> None:
        raise RuntimeError("progress display broke")

    with pytest.raises(RuntimeError):
        run_evaluation(questions, cot("a"), CONFIG, out, on_progress=broken)
    assert not out.exists()
    run_evaluation(questions, cot("a"), CONFIG, out)  # no "already exists"
    assert len(records(out)) == 1

    def broken_after_one(summary) -> None:
        if summary.done:
            raise RuntimeError("progress display broke")

    kept = tmp_path / "kept.jsonl"
    with pytest.raises(RuntimeError):
        run_evaluation(questions, cot("a"), CONFIG, kept, on_progress=broken_after_one)
    assert len(records(kept)) == 1  # an answered question is kept, for --resume
