"""An `arkg adapt` record written by hand, for the tests of what runs take from it."""

from __future__ import annotations

import shutil
from pathlib import Path

from arkg.data import tuned_adapter_path
from arkg.llm.adapted import AdaptedRecord, AdaptedStrategy, BaseModelFile, Score
from arkg.llm.bundled import bundled_model_path


def write_record(folder: Path, best: str = "ark", used: bool = True, base: BaseModelFile | None = None) -> AdaptedRecord:
    """An adapt record for `folder` with an adapter for ark (a copy of the shipped one) and none for kg-agent."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tuned_adapter_path("tuned"), folder / "adapted-ark.gguf")
    model = bundled_model_path()
    record = AdaptedRecord(
        kg="kg.db",
        base_model=base or BaseModelFile(file=model.name, bytes=model.stat().st_size, sha256="0" * 64),
        questions=100,
        test_questions=20,
        strategies={"ark": AdaptedStrategy(adapter="adapted-ark.gguf", before=Score(right=9, questions=20), after=Score(right=15, questions=20), used=used, steps=40)},
        best_strategy=best,
        created="2026-12-05T00:00:00+00:00",
        elapsed_s=60.0,
    )
    (folder / "adapted.json").write_text(record.model_dump_json(), encoding="utf-8")
    return record
