"""`arkg synth` on the command line: the files it writes, its summary, and one clear line for each
mistake (exit 1; 2 for a bad option value; 130 when interrupted)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arkg.cli import synth as synth_cli

runner = CliRunner()


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """A root, so that `synth` is a subcommand as in `arkg synth`."""

    synth_cli.register(app)
    return app


def _invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(_app(), ["synth", *args])


def test_synth_writes_the_pairs_and_provenance_and_prints_what_it_did(small_geo: tuple[Path, Path], tmp_path: Path) -> None:
    db, questions = small_geo
    out = tmp_path / "pairs.jsonl"
    result = _invoke("--out", str(out), "--geo-db", str(db), "--geo-questions", str(questions), "--sample", "--variant", "gold", "--seed", "4", "--plan")
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "pairs.jsonl.meta.json").read_text(encoding="utf-8"))
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == meta["pairs"]["total"] > 0
    assert meta["seed"] == 4 and meta["split"] == {"rule": "default"} and meta["options"]["plan"] is True
    assert meta["command"] == (
        f"arkg synth --out {out} --geo-db {db} --geo-questions {questions} --sample --seed 4 --variant gold --plan"
    )
    pairs = [json.loads(line) for line in lines]
    implications = [json.loads(p["messages"][-1]["content"])["implication"] for p in pairs if p["decision"] == "reasoning"]
    assert implications and all(re.search(r" (Next: .+|Enough to answer)\.$", text) for text in implications)
    assert "| geo |" in result.output and "| sample | 4 | 0 |" in result.output  # the sample questions are evaluation questions
    assert f"Wrote {len(lines):,} pairs" in result.output


def test_compare_values_puts_computed_lines_in_the_ark_answer_prompts(tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    result = _invoke("--out", str(out), "--sample", "--split", "all", "--strategy", "ark", "--variant", "gold", "--compare-values")
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "pairs.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["options"]["settings"]["ark"]["compare_values"] is True and meta["command"].endswith("--compare-values")
    pairs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    prompts = [p["messages"][-2]["content"] for p in pairs if p["decision"] == "answer"]
    # "Was Pierre Curie born before Marie Curie?" cites both birth dates: their order is stated.
    assert any("15 May 1859 is before 7 November 1867." in prompt for prompt in prompts)
    assert all("Computed" not in p["messages"][-2]["content"] for p in pairs if p["decision"] != "answer")


def test_an_answer_picked_by_an_extreme_copies_the_computed_line_that_names_it(small_geo: tuple[Path, Path], tmp_path: Path) -> None:
    db, questions = small_geo
    out = tmp_path / "pairs.jsonl"
    args = ["--geo-db", str(db), "--geo-questions", str(questions), "--split", "all", "--strategy", "ark", "--mode", "constrained"]
    result = _invoke("--out", str(out), *args, "--variant", "gold", "--compare-values")
    assert result.exit_code == 0, result.output
    answers = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if '"decision": "answer"' in line]
    picked = [p for p in answers if p["question_id"].startswith(("larger_population-", "larger_area-", "further_north-", "largest_neighbour-"))]
    assert picked
    for pair in picked:
        reply = json.loads(pair["messages"][-1]["content"])
        # The explanation is the prompt's line, word for word, and the answer the name it gives first.
        assert re.fullmatch(r"(Largest|Smallest) [^:]+ cited: .+", reply["explanation"])
        assert f"- {reply['explanation']}\n" in pair["messages"][-2]["content"]
        assert reply["explanation"].split(" cited: ")[1].startswith(reply["answer"] + " (")
    # Without the computed lines the prompt holds no such line, and the explanation names the facts.
    plain = tmp_path / "plain.jsonl"
    assert _invoke("--out", str(plain), *args, "--variant", "gold").exit_code == 0
    explanations = [json.loads(json.loads(line)["messages"][-1]["content"])["explanation"]
                    for line in plain.read_text(encoding="utf-8").splitlines() if '"decision": "answer"' in line]
    assert explanations and not any(" cited: " in text for text in explanations)


def test_retries_write_free_mode_retry_pairs_and_say_so_in_the_provenance(tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    result = _invoke("--out", str(out), "--sample", "--split", "all", "--strategy", "ark", "--mode", "free", "--retries")
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "pairs.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["options"]["retries"] is True
    pairs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    retries = [p for p in pairs if p["decision"].endswith("-retry")]
    assert {p["decision"] for p in retries} == {"anchor-retry", "relation-retry"}
    assert "mistake" not in {p["decision"] for p in pairs}
    # The prompt of each holds the rejected reply and the agent's feedback on it; after "explored
    # already" and the reply "" that leaves the anchor, the agent asks for another at once.
    after_leaving = [p for p in retries if p["messages"][-2]["role"] == "assistant"]
    assert after_leaving and all(
        p["decision"] == "anchor-retry"
        and p["messages"][-2]["content"] == '{"relation": ""}'
        and "was explored already" in p["messages"][-3]["content"]
        for p in after_leaving
    )
    rejected = [p for p in retries if p not in after_leaving]
    assert all(
        p["messages"][-3]["role"] == "assistant"
        and ("Not found" in p["messages"][-2]["content"] or "was explored already" in p["messages"][-2]["content"])
        for p in rejected
    )
    assert "| ark | relation-retry | free |" in result.output


def test_edges_both_lets_routes_follow_an_edge_into_an_entity(small_geo: tuple[Path, Path], tmp_path: Path) -> None:
    db, questions = small_geo
    replies = {}
    for edges in ("out", "both"):
        out = tmp_path / f"pairs-{edges}.jsonl"
        result = _invoke("--out", str(out), "--geo-db", str(db), "--geo-questions", str(questions), "--split", "all", "--strategy", "ark", "--variant", "gold", "--edges", edges)
        assert result.exit_code == 0, result.output
        meta = json.loads((tmp_path / f"pairs-{edges}.jsonl.meta.json").read_text(encoding="utf-8"))
        settings = meta["options"]["settings"]
        assert list(settings) == ["ark"] and settings["ark"]["edges"] == edges  # the settings of each strategy run
        pairs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        replies[edges] = {p["messages"][-1]["content"] for p in pairs if p["decision"] == "relation" and p["mode"] == "constrained" and p["question_id"].startswith("country_with_capital-")}
    # "Which country has Berlin as its capital?" is read along (Germany, capital, Berlin) backwards.
    assert replies["out"] == set() and replies["both"] == {"capital (incoming)"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "no source given: use --colota FILE, --geo-db DB --geo-questions FILE, --sample, or --domains N"),
        (("--geo-db", "x.db"), "--geo-db and --geo-questions go together"),
        (("--sample", "--split", "tests"), "unknown split 'tests'"),
        (("--sample",), "the split 'default' keeps no usable question of the sources (sample)"),
        (("--colota", "missing.json"), "missing.json: cannot read the file"),
    ],
)
def test_mistakes_are_one_line_naming_what_is_wrong(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = _invoke("--out", str(tmp_path / "pairs.jsonl"), *args)
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_strategy_is_a_bad_option(tmp_path: Path) -> None:
    result = _invoke("--out", str(tmp_path / "pairs.jsonl"), "--sample", "--strategy", "r3")
    assert result.exit_code == 2 and "r3; choose from ark, kaping, kg-agent" in result.output


def test_ctrl_c_says_where_the_finished_questions_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(synth_cli, "synthesize", interrupted)
    result = _invoke("--out", str(tmp_path / "pairs.jsonl"), "--sample", "--split", "all")
    assert result.exit_code == 130
    assert "Interrupted" in result.output and "pairs.jsonl.partial" in result.output and "run the same command again" in result.output


def test_the_arkg_command_has_synth() -> None:
    from arkg.cli import app

    result = runner.invoke(app, ["synth", "--help"])
    assert result.exit_code == 0, result.output
    assert "--geo-questions" in result.output
