"""Question files of every format arkg reads besides CoLoTa: hand-written (JSON lines, JSON, CSV), RoG /
GCR per-question subgraphs (JSON lines, JSON, parquet), ARK-V1 open questions and MetaQA; each told by
content, each reporting its defects as problems. Small files in each schema, written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.errors import ArkgError, LoadError
from arkg.eval.dataset import Effect
from arkg.eval.datasets import open_dataset
from arkg.eval.kg_names import check_names
from arkg.eval.setup import plan_evaluation
from arkg.graph.loaders import detect_format, read_triples
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.scripted import ScriptedModel

KB_LINES = [
    "Kismet|directed_by|William Dieterle",
    "Kismet|release_year|1944",
    "Kismet|starred_actors|Ronald Colman",
    "Random Harvest|starred_actors|Ronald Colman",
    "Paris, Texas|starred_actors|Harry Dean Stanton",
    "Crazy, Stupid, Love|starred_actors|Steve Carell",
]
METAQA_LINES = [
    "what movies did [Ronald Colman] act in\tKismet|Random Harvest",
    "[Harry Dean Stanton] appears in which movies\tParis|Texas",
    "[Steve Carell] acted in which films\tCrazy|Stupid|Love",
    "who directed [Kismet]\tWilliam Dieterle",
]
ROG_ROWS = [
    {
        "id": "WebQTest-0", "question": "what does jamaican people speak",
        "answer": ["Jamaican English", "Jamaican Creole English Language"],
        "q_entity": ["Jamaica"], "a_entity": ["Jamaican English", "Jamaican Creole English Language"],
        "graph": [
            ["Jamaica", "location.country.languages_spoken", "Jamaican English"],
            ["Jamaica", "location.country.languages_spoken", "Jamaican Creole English Language"],
            ["Jamaica", "location.country.languages_spoken", "Jamaican English"],
        ],
        "choices": [],
    },
    {
        "id": "WebQTest-1", "question": "who did jackie robinson play for",
        "answer": [], "q_entity": ["Jackie Robinson"], "a_entity": ["Brooklyn Dodgers"],
        "graph": [
            ["Jackie Robinson", "sports.pro_athlete.teams", "m.0hpgh_h"],
            ["m.0hpgh_h", "sports.sports_team_roster.team", "Brooklyn Dodgers"],
        ],
        "choices": [],
    },
]  # fmt: skip


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_jsonl(path: Path, values: list) -> Path:
    return write_lines(path, [json.dumps(value) for value in values])


def kb_store(tmp_path: Path) -> SQLiteGraph:
    graph = SQLiteGraph(str(tmp_path / "kb.db"))
    graph.load(write_lines(tmp_path / "kb.txt", KB_LINES))
    return graph


# -- hand-written question files ----------------------------------------------------------------


def test_a_jsonl_question_file_reads_every_kind_of_answer(tmp_path):
    path = write_jsonl(tmp_path / "mine.jsonl", [
        {"id": "q1", "question": "Who directed Kismet?", "answer": "William Dieterle"},
        {"question": "Was Kismet released before 1950?", "answer": True, "entities": ["Kismet"]},
        {"question": "When was Kismet released?", "answer": 1944},
        {"id": 7, "question": "Which films did Ronald Colman star in?", "answers": ["Kismet", "Random Harvest", "Kismet"]},
    ])  # fmt: skip
    questions = open_dataset(path).questions
    assert [(q.id, q.answer) for q in questions] == [
        ("q1", ("William Dieterle",)), ("2", True), ("3", 1944), ("7", ("Kismet", "Random Harvest"))
    ]
    assert questions[1].entities == {"Kismet": ""} and questions[1].yes_no and not questions[0].yes_no


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_yes_no_words_are_yes_no_answers_in_json_as_in_csv(tmp_path, suffix):
    entries = [
        {"question": "Was Kismet released before 1950?", "answer": "yes"},
        {"question": "Was Kismet remade?", "answer": " No "},
        {"question": "Is Kismet a film?", "answer": "TRUE"},
        {"question": "Is Kismet a band?", "answer": "false"},
        {"question": "Which band recorded Close to the Edge?", "answers": ["Yes"]},
    ]
    path = tmp_path / f"mine{suffix}"
    path.write_text(json.dumps(entries) if suffix == ".json" else "\n".join(map(json.dumps, entries)), encoding="utf-8")
    questions = open_dataset(path).questions
    assert [q.answer for q in questions] == [True, False, True, False, ("Yes",)]
    assert [q.yes_no for q in questions] == [True, True, True, True, False]


def test_a_csv_question_file_reads_yes_no_words_numbers_and_names_separated_by_bars(tmp_path):
    path = write_lines(tmp_path / "mine.csv", [
        "Question;Answer;Entities",
        "Who directed Kismet?;William Dieterle;Kismet",
        "Is Kismet older than 1950?;YES;",
        "When was Kismet released?;1944;Kismet",
        '"Which films, with Ronald Colman?";Kismet | Random Harvest;Ronald Colman',
        "Was it remade?;no;",
    ])  # fmt: skip
    questions = open_dataset(path).questions
    assert [(q.id, q.text, q.answer) for q in questions] == [
        ("2", "Who directed Kismet?", ("William Dieterle",)),
        ("3", "Is Kismet older than 1950?", True),
        ("4", "When was Kismet released?", 1944),
        ("5", "Which films, with Ronald Colman?", ("Kismet", "Random Harvest")),
        ("6", "Was it remade?", False),
    ]
    assert questions[3].entities == {"Ronald Colman": ""}


def test_a_json_list_or_an_object_holding_one_is_a_question_file(tmp_path):
    questions = [{"question": "Who directed Kismet?", "answer": "William Dieterle"}]
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps(questions, indent=2), encoding="utf-8")
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"name": "movies", "questions": questions}), encoding="utf-8")
    for path in (as_list, wrapped):
        [question] = open_dataset(path).questions
        assert (question.id, question.answer) == ("1", ("William Dieterle",))


def test_defects_of_a_question_file_are_problems_naming_the_entry_and_field(tmp_path):
    path = write_jsonl(tmp_path / "mine.jsonl", [
        {"id": "ok", "question": "Who directed Kismet?", "answer": "William Dieterle"},
        {"id": "empty", "question": " ", "answer": "x"},
        {"id": "both", "question": "q?", "answer": "a", "answers": ["b"]},
        {"id": "nested", "question": "q?", "answer": {"name": "x"}},
        {"id": "none", "question": "q?", "answers": []},
        {"id": "unanswered", "question": "Who wrote Kismet?"},
        {"id": "ok", "question": "again?", "answer": 1},
        ["not", "an", "object"],
    ])  # fmt: skip
    dataset = open_dataset(path)
    assert [q.id for q in dataset.questions] == ["ok"]
    reasons = {(p.id, p.field): p.reason for p in dataset.problems}
    assert all(p.effect is Effect.QUESTION_SKIPPED for p in dataset.problems)
    assert reasons[("empty", "question")] == "missing or empty"
    assert "keep one" in reasons[("both", "answer")]
    assert "expected a name or a list of names" in reasons[("nested", "answer")]
    assert reasons[("none", "answers")] == "holds no name"
    assert reasons[("unanswered", "answer")].startswith("no answer, where other questions")
    assert reasons[("ok", "id")].startswith("duplicate id")
    assert "expected an object" in reasons[("8", "entry")]


def test_a_csv_row_of_the_wrong_width_is_a_problem_naming_its_line(tmp_path):
    path = write_lines(tmp_path / "mine.csv", ["question,answer", "Who directed Kismet?,William Dieterle", "a,b,c"])
    dataset = open_dataset(path)
    assert len(dataset.questions) == 1
    [problem] = dataset.problems
    assert (problem.id, problem.field, problem.reason) == ("3", "row", "3 field(s) where the header names 2")


def test_a_malformed_line_of_a_question_file_is_an_error_naming_line_and_column(tmp_path):
    """Question files and triple files share one strict JSON-line decoder and its wording."""
    path = write_lines(tmp_path / "mine.jsonl", ['{"question": "Q1?", "answer": true}', '{"question": "Q2?", "answer": tru}'])
    with pytest.raises(LoadError) as caught:
        open_dataset(path)
    assert (caught.value.where, caught.value.reason == "malformed JSON at column 31: Expecting value") == ("line 2", True)


def test_a_file_without_any_answer_is_a_batch_of_questions_that_is_not_scored(tmp_path):
    path = write_lines(tmp_path / "batch.csv", ["question,entities", "Who directed Kismet?,Kismet", "Who starred in Kismet?,"])
    dataset = open_dataset(path)
    assert [q.answer for q in dataset.questions] == [None, None] and not dataset.problems
    assert not dataset.scored and dataset.needs_kg


# -- RoG / GCR ----------------------------------------------------------------------------------


def test_rog_rows_run_each_on_its_own_graph_with_cvt_nodes_kept(tmp_path):
    dataset = open_dataset(write_jsonl(tmp_path / "webqsp.jsonl", ROG_ROWS))
    first, second = dataset.questions
    assert first.answer == ("Jamaican English", "Jamaican Creole English Language")
    assert first.entities == {"Jamaica": ""} and len(first.graph) == 2  # the repeated triple once
    assert second.answer == ("Brooklyn Dodgers",)  # `answer` empty: a_entity
    assert Triple("m.0hpgh_h", "sports.sports_team_roster.team", "Brooklyn Dodgers") in second.graph
    assert not dataset.problems and not dataset.needs_kg


def test_rog_defects_are_problems(tmp_path):
    rows = [
        {**ROG_ROWS[0], "graph": [*ROG_ROWS[0]["graph"], ["Jamaica", "only two"], "text"]},
        {**ROG_ROWS[1], "id": "no-graph", "graph": []},
        {**ROG_ROWS[1], "id": "no-question", "question": None},
        {**ROG_ROWS[1], "id": "unanswerable", "a_entity": ["Montreal Royals"], "q_entity": ["Jack Roosevelt Robinson"]},
        {**ROG_ROWS[1], "id": "no-gold", "a_entity": []},
    ]
    dataset = open_dataset(write_jsonl(tmp_path / "cwq.jsonl", rows))
    assert [q.id for q in dataset.questions] == ["WebQTest-0", "unanswerable"]
    found = {(p.id, p.field, p.effect): p.reason for p in dataset.problems}
    assert found[("WebQTest-0", "graph", Effect.ITEM_SKIPPED)].startswith("2 malformed triple(s) left out; the first: item 4")
    assert found[("no-graph", "graph", Effect.QUESTION_SKIPPED)] == "empty graph"
    assert found[("no-question", "question", Effect.QUESTION_SKIPPED)] == "missing or empty"
    assert found[("unanswerable", "answer", Effect.NOTE)] == "'Montreal Royals' is in no triple of the question's graph"
    assert ("unanswerable", "q_entity", Effect.NOTE) in found
    assert found[("no-gold", "answer", Effect.QUESTION_SKIPPED)].startswith("no gold answer")


def test_rog_rows_read_alike_from_a_json_list_and_from_parquet(tmp_path):
    pyarrow = pytest.importorskip("pyarrow", reason="parquet needs pyarrow, the `parquet` extra (in dev)")
    import pyarrow.parquet

    listed = tmp_path / "webqsp.json"
    listed.write_text(json.dumps(ROG_ROWS), encoding="utf-8")
    # Named .txt on purpose: the content tells the format.
    parquet = tmp_path / "test-00000-of-00001.txt"
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(ROG_ROWS), parquet)
    expected = open_dataset(write_jsonl(tmp_path / "webqsp.jsonl", ROG_ROWS)).questions
    assert open_dataset(listed).questions == expected
    assert open_dataset(parquet).questions == expected


# -- ARK-V1 open questions ----------------------------------------------------------------------


def test_an_ark_v1_entry_with_a_list_of_answer_names_is_an_open_question(tmp_path):
    entry = {
        "id": "O1", "question": "Which breed is Sablé?", "q_entity": {"Sablé": "Q1"}, "a_entity": ["dachshund"],
        "graph": [["Sablé", "dachshund", {"relation": "animal breed"}]],
    }  # fmt: skip
    empty = {**entry, "id": "O2", "a_entity": []}
    dataset = open_dataset(write_jsonl(tmp_path / "open.jsonl", [entry, empty]))
    [question] = dataset.questions
    assert question.answer == ("dachshund",) and not question.yes_no
    assert [(p.id, p.field, p.effect) for p in dataset.problems] == [("O2", "a_entity", Effect.QUESTION_SKIPPED)]


# -- MetaQA -------------------------------------------------------------------------------------


def test_metaqa_questions_link_their_bracketed_entity_and_drop_the_brackets(tmp_path):
    path = write_lines(tmp_path / "qa_test.txt", [*METAQA_LINES, "no topic here\tKismet", "who directed [Kismet]\t"])
    dataset = open_dataset(path)
    first = dataset.questions[0]
    assert (first.id, first.text, first.entities) == ("1", "what movies did Ronald Colman act in", {"Ronald Colman": ""})
    assert first.answer == ("Kismet", "Random Harvest") and dataset.needs_kg
    assert [(p.id, p.field) for p in dataset.problems] == [("5", "question"), ("6", "answers")]


def test_metaqa_names_split_at_their_commas_are_joined_again_once_the_kb_is_open(tmp_path):
    dataset = open_dataset(write_lines(tmp_path / "qa_test.txt", METAQA_LINES))
    with kb_store(tmp_path) as kb:
        checked = check_names(dataset, dataset.questions, kb)
    assert [q.answer for q in checked] == [
        ("Kismet", "Random Harvest"), ("Paris, Texas",), ("Crazy, Stupid, Love",), ("William Dieterle",)
    ]
    assert dataset.questions == checked
    notes = [(p.id, p.reason) for p in dataset.problems if p.effect is Effect.NOTE]
    assert ("2", "answer Paris | Texas read as Paris, Texas, names of the KG") in notes


def test_names_the_kg_lacks_are_noted_before_the_run(tmp_path):
    path = write_jsonl(tmp_path / "mine.jsonl", [{"question": "Who directed Kismett?", "answer": "W. Dieterle", "entities": ["Kismett"]}])
    dataset = open_dataset(path)
    with kb_store(tmp_path) as kb:
        check_names(dataset, dataset.questions, kb)
    assert [(p.field, p.reason) for p in dataset.problems] == [
        ("entities", "'Kismett' is not an entity of the KG"),
        (
            "answer",
            "'W. Dieterle' is not an entity of the KG; write a name as the KG spells it (`arkg kg show`),"
            " a yes/no answer as true/false or yes/no, a number as a number",
        ),
    ]


def test_the_metaqa_kb_is_told_by_content_and_read_as_triples(tmp_path):
    kb = write_lines(tmp_path / "kb.txt", KB_LINES)
    assert detect_format(kb) == "pipe"
    assert next(read_triples(kb)) == Triple("Kismet", "directed_by", "William Dieterle")
    assert detect_format(write_lines(tmp_path / "other.jsonl", ['{"head": "a|b|c", "relation": "r", "tail": "t"}'])) == "jsonl"
    bad = write_lines(tmp_path / "bad.txt", [*KB_LINES[:2], "Kismet|has_tags"])
    with pytest.raises(LoadError, match=r"bad.txt, line 3: expected head\|relation\|tail, found 2 field"):
        list(read_triples(bad))


# -- detection and the KG a data set needs ------------------------------------------------------


def test_formats_are_told_by_content_not_by_name(tmp_path):
    assert open_dataset(write_lines(tmp_path / "questions.json", METAQA_LINES)).questions[0].entities == {"Ronald Colman": ""}
    assert open_dataset(write_jsonl(tmp_path / "qa_test.txt", ROG_ROWS)).questions[0].graph is not None
    csv = write_lines(tmp_path / "data.jsonl", ["question,answer", "Who directed Kismet?,William Dieterle"])
    assert open_dataset(csv).questions[0].answer == ("William Dieterle",)


def test_a_file_of_no_known_format_says_which_are_known(tmp_path):
    with pytest.raises(LoadError, match="not a data set arkg knows; expected a CoLoTa"):
        open_dataset(write_lines(tmp_path / "notes.txt", ["just some text", "and more"]))


def test_a_question_file_needs_a_kg_and_the_error_says_which_options_give_one(tmp_path):
    path = write_jsonl(tmp_path / "mine.jsonl", [{"question": "Who directed Kismet?", "answer": "William Dieterle"}])
    with pytest.raises(ArkgError, match=r"mine.jsonl holds no KG: pass --db .* or --kb"):
        plan_evaluation(path, "ark", None)


def test_kb_loads_a_kg_file_for_the_run_and_checks_names_against_it(tmp_path, monkeypatch):
    import arkg.eval.setup

    monkeypatch.setattr(arkg.eval.setup, "open_model", lambda spec=None, **options: ScriptedModel(lambda *call: {}))
    kb = write_lines(tmp_path / "kb.txt", KB_LINES)
    plan = plan_evaluation(write_lines(tmp_path / "qa.txt", METAQA_LINES), "ark", None, kb=kb)
    try:
        assert plan.config.kg == f"kb:{kb}" and plan.kg.has_entity("Paris, Texas")
        assert plan.questions[1].answer == ("Paris, Texas",)
    finally:
        plan.close()
    with pytest.raises(ArkgError, match="give one"):
        plan_evaluation(tmp_path / "qa.txt", "ark", None, kb=kb, db=str(tmp_path / "kb.db"))
