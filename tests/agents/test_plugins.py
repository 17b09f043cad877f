"""A strategy from an installed package: the example of docs/plugins.md, pip-installed, runs through
`arkg ask`; a plugin that cannot be loaded is named in the error, and the other strategies still run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from importlib.metadata import EntryPoint

import pytest

import arkg.agents.strategy
from arkg.agents.strategy import PLUGIN_GROUP, REGISTRY, Registry
from arkg.errors import ArkgError

DOC = Path(__file__).parents[2] / "docs" / "plugins.md"


def _arkg(*arguments: str, path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(path), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "arkg", *arguments], capture_output=True, text=True, env=env, timeout=120, check=False
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example package of docs/plugins.md, installed into a folder of its own."""
    package, site = tmp_path_factory.mktemp("arkg-coin"), tmp_path_factory.mktemp("site")
    blocks = dict(re.findall(r"`([\w.]+)`:\n\n```\w+\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL))
    for name in ("pyproject.toml", "arkg_coin.py"):
        (package / name).write_text(blocks[name], encoding="utf-8")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(site), str(package)]
    subprocess.run(pip, check=True, capture_output=True, timeout=120)
    return site


def test_the_documented_example_strategy_runs_through_arkg_ask_once_installed(installed: Path) -> None:
    shown = _arkg("ask", "Is the sky blue?", "--strategy", "coin", "--model", "test", "--set", "instruction=Reply yes or no.", path=installed)
    assert shown.returncode == 0, shown.stderr
    assert "  the model chose yes" in shown.stdout.splitlines()  # the plugin's own view
    assert "answer: True  basis: neither" in shown.stdout and "stopped because the model chose" in shown.stdout


def test_a_broken_plugin_is_named_and_leaves_the_other_strategies_working(tmp_path: Path) -> None:
    info = tmp_path / "arkg_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arkg-broken\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[arkg.strategies]\nbroken = arkg_broken_missing:STRATEGY\n", encoding="utf-8")
    failed = _arkg("ask", "Is it?", "--strategy", "broken", "--model", "test", path=tmp_path)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "the strategy plugin 'broken' (entry point broken = arkg_broken_missing:STRATEGY in group arkg.strategies)" in failed.stderr
    assert "No module named 'arkg_broken_missing'" in failed.stderr


def test_a_broken_plugin_leaves_the_registry_readable(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = EntryPoint("broken", "arkg_broken_missing:STRATEGY", PLUGIN_GROUP)
    not_a_strategy = EntryPoint("odd", "arkg.agents:REGISTRY", PLUGIN_GROUP)
    monkeypatch.setattr(arkg.agents.strategy, "entry_points", lambda group: [broken, not_a_strategy])
    registry = Registry()
    registry["cot"] = REGISTRY["cot"]
    assert list(registry) == ["cot"] and "broken" not in registry
    with pytest.raises(ArkgError, match=r"'odd' .*cannot be loaded: ArkgError: arkg.agents:REGISTRY is a Registry, not"):
        registry["odd"]
