"""Which earlier `arkg adapt` work a run takes up: an unfinished run of the same KG and options is resumed,
one of other options is refused until --restart, a finished one gives way to a run of other options or a
KG that has changed since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import arkg.tune.adapt.run
from arkg.data import sample_graph_path
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.tune.adapt import AdaptError, AdaptOptions, adapt

OPTIONS = AdaptOptions(strategies=("kg-agent",), questions=20)


class Claimed(Exception):
    """Raised where the first stage would start: the claim is all these tests run."""


@pytest.fixture
def kg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    def stop(*args: object, **kwargs: object) -> None:
        raise Claimed

    monkeypatch.setattr(arkg.tune.adapt.run, "write_kg_questions", stop)
    path = tmp_path / "kg.db"
    with SQLiteGraph(path) as graph:
        graph.load(sample_graph_path())
    return path


def _plan(kg: Path) -> dict[str, object]:
    return json.loads((kg.parent / "kg.db.adapted" / "stages" / "plan.json").read_text(encoding="utf-8"))


def test_an_unfinished_run_of_other_options_is_refused_until_restart(kg: Path) -> None:
    with pytest.raises(Claimed):
        adapt(str(kg), OPTIONS)
    marker = kg.parent / "kg.db.adapted" / "stages" / "kept.txt"
    marker.write_text("work of the first run", encoding="utf-8")
    with pytest.raises(AdaptError, match=r"holds an unfinished adapt run with other steps, seed; run it with the same options to go on, or add --restart"):
        adapt(str(kg), OPTIONS.model_copy(update={"steps": 9, "seed": 1}))
    assert marker.is_file() and _plan(kg)["options"] == OPTIONS.identity()
    with pytest.raises(Claimed):
        adapt(str(kg), OPTIONS)  # the same options: taken up, nothing removed
    assert marker.is_file()
    with pytest.raises(Claimed):
        adapt(str(kg), OPTIONS.model_copy(update={"steps": 9}), restart=True)
    assert not marker.exists() and _plan(kg)["options"]["steps"] == 9


def test_a_finished_run_gives_way_to_other_options_and_to_a_changed_kg(kg: Path) -> None:
    with pytest.raises(Claimed):
        adapt(str(kg), OPTIONS)
    work = kg.parent / "kg.db.adapted" / "stages"
    (work / "done").touch()
    with pytest.raises(Claimed):
        adapt(str(kg), OPTIONS.model_copy(update={"steps": 9}))
    assert not (work / "done").exists() and _plan(kg)["options"]["steps"] == 9
    (work / "done").touch()
    with SQLiteGraph(kg) as graph:
        graph.add_triples([Triple("Marie Curie", "hobby", "cycling")])
    with pytest.raises(Claimed):
        adapt(str(kg), OPTIONS.model_copy(update={"steps": 9}))
    assert _plan(kg)["kg_size"]["triples"] == 44 and not (work / "done").exists()
    with SQLiteGraph(kg) as graph:
        graph.add_triples([Triple("Pierre Curie", "hobby", "cycling")])
    with pytest.raises(AdaptError, match="other KG contents"):
        adapt(str(kg), OPTIONS.model_copy(update={"steps": 9}))
