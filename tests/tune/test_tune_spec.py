"""Model specs that put a LoRA adapter on a llama.cpp model; the core package never needs torch."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arkg.data import TUNED_ADAPTERS, tuned_adapter_path
from arkg.errors import ModelError, SpecError
from arkg.llm import ModelSpec, open_model, parse_model_spec
from arkg.agents import strategy_info
from arkg.llm.spec import ACCEPTED_FORMS, adapter_hint
from arkg.tune import TrainExtraMissing, require_train_extra

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("llamacpp:tuned", ModelSpec("llamacpp", adapter="tuned")),
        ("llamacpp:tuned-kg-agent", ModelSpec("llamacpp", adapter="tuned-kg-agent")),
        ("llamacpp:+/runs/a/adapter.gguf", ModelSpec("llamacpp", adapter="/runs/a/adapter.gguf")),
        ("llamacpp:/m/base.gguf+/runs/adapter.gguf", ModelSpec("llamacpp", model="/m/base.gguf", adapter="/runs/adapter.gguf")),
        # A "+" inside a directory name stays in the path: the split is right after ".gguf".
        ("llamacpp:/w/owner+name/m.gguf", ModelSpec("llamacpp", model="/w/owner+name/m.gguf")),
        ("llamacpp:/w/a+b/m.GGUF+/w/c+d/l.gguf", ModelSpec("llamacpp", model="/w/a+b/m.GGUF", adapter="/w/c+d/l.gguf")),
    ],
)
def test_adapter_specs(spec: str, parsed: ModelSpec) -> None:
    assert parse_model_spec(spec) == parsed


def hint(spec: str | None, strategy: str) -> str | None:
    return adapter_hint(spec, strategy, strategy_info(strategy).tuned_adapter)


def test_a_shipped_adapter_tuned_for_another_strategy_gets_a_hint() -> None:
    assert hint("llamacpp:tuned", "kg-agent") == (
        "llamacpp:tuned-kg-agent is the adapter tuned for kg-agent; this run uses llamacpp:tuned"
    )
    assert hint("llamacpp:tuned-kg-agent", "ark") == "llamacpp:tuned is the adapter tuned for ark; this run uses llamacpp:tuned-kg-agent"
    # The adapter meant for the strategy, a strategy no adapter was tuned for, or another model: nothing to say.
    for spec, strategy in [("llamacpp:tuned", "ark"), ("llamacpp:tuned", "r3"), ("llamacpp", "kg-agent"),
                           ("llamacpp:+/runs/a.gguf", "kg-agent"), ("openai:gpt-4o", "kg-agent"), (None, "ark")]:  # fmt: skip
        assert hint(spec, strategy) is None, (spec, strategy)


def test_the_tuned_adapter_fits_the_bundled_model_only() -> None:
    with pytest.raises(SpecError, match="write 'llamacpp:tuned'"):
        parse_model_spec("llamacpp:/m/other.gguf+tuned")
    with pytest.raises(SpecError, match="write 'llamacpp:tuned-kg-agent'"):
        parse_model_spec("llamacpp:+tuned-kg-agent")


def test_accepted_forms_and_readme_name_every_adapter_form() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for form in ("llamacpp:tuned", "llamacpp:tuned-kg-agent", "llamacpp:+/path/to/adapter.gguf", "llamacpp:/path/to/model.gguf+/path/to/adapter.gguf"):
        assert form in ACCEPTED_FORMS
        assert f"`{form}`" in readme


def test_a_missing_adapter_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="LoRA adapter file not found: .*absent.gguf"):
        open_model(f"llamacpp:+{tmp_path / 'absent.gguf'}", cache=False)


def test_a_file_that_is_no_adapter_is_an_error_not_ignored(tmp_path: Path) -> None:
    """Refused by name before llama.cpp sees it; llama-cpp-python alone would go on with the bare base model."""
    bogus = tmp_path / "bogus.gguf"
    bogus.write_text('{"not": "a gguf"}', encoding="utf-8")
    with pytest.raises(ModelError, match=r"bogus.gguf: not a readable GGUF file \(no GGUF magic number\)"):
        open_model(f"llamacpp:+{bogus}", cache=False)


@pytest.mark.parametrize("name", sorted(TUNED_ADAPTERS))
def test_each_tuned_adapter_ships_in_the_package(name: str) -> None:
    path = tuned_adapter_path(name)
    assert path.is_file() and path.parent.name == "data" and path.with_suffix(".json").is_file()
    assert 1_000_000 < path.stat().st_size < 8_000_000  # a few MB
    assert open_model(f"llamacpp:{name}", cache=False).name.endswith("+" + path.name)


def test_the_core_package_never_imports_torch() -> None:
    code = (
        "import sys, arkg, arkg.cli, arkg.llm.spec, arkg.tune, arkg.cli.tune, arkg.session\n"
        "heavy = [name for name in ('torch', 'transformers', 'peft', 'gguf') if name in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT)


def test_without_the_extra_tuning_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "peft" else real(name, *a))
    with pytest.raises(TrainExtraMissing, match=r"peft not installed\): pip install 'arkg\[train\]'"):
        require_train_extra()

    import typer

    from arkg.cli import tune as tune_command

    app = typer.Typer()
    tune_command.register(app)
    app.command("noop")(lambda: None)  # a group of two, so that `tune` is a subcommand
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("{}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["tune", "--data", str(pairs), "--out", str(tmp_path / "run")])
    assert result.exit_code == 1
    assert "pip install 'arkg[train]'" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def test_an_adapter_name_arkg_does_not_ship_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no adapter named 'tuned-cot' ships with arkg; there are tuned, tuned-kg-agent"):
        tuned_adapter_path("tuned-cot")
