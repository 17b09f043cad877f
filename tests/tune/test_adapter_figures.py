"""bench/adapter_figures.py on a hand-made adapter sidecar: the training table, and files it refuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "adapter_figures.py"


def _sidecar(path: Path, **fields: object) -> Path:
    sidecar = {
        "format": "arkg-adapter/1", "data": {"used": 1200, "left_out_too_long": 3, "tokens": 600_000},
        "steps": 150, "train_s": 2400.0, "first_loss": 1.5, "final_loss": 0.0712, "device": "cpu, bf16 autocast", **fields,
    }  # fmt: skip
    path.write_text(json.dumps(sidecar), encoding="utf-8")
    return path


def test_a_row_per_adapter_with_its_rate(tmp_path: Path) -> None:
    sidecar = _sidecar(tmp_path / "adapter.json")
    printed = subprocess.run([sys.executable, SCRIPT, f"recipe 1={sidecar}"], capture_output=True, text=True, check=True).stdout
    # 600,000 tokens in 2,400 s: 250 tokens a second.
    assert "| recipe 1 | 1,200 | 3 | 600,000 | 150 | 2,400 | 250 | 1.500, 0.071 | cpu, bf16 autocast |" in printed


def test_a_merged_adapter_s_json_or_a_missing_file_is_refused_by_name(tmp_path: Path) -> None:
    merged = _sidecar(tmp_path / "merged.json", format="arkg-merged-adapter/1")
    run = subprocess.run([sys.executable, SCRIPT, f"m={merged}"], capture_output=True, text=True)
    assert run.returncode == 2 and "merged.json: not the JSON `arkg tune` writes" in run.stderr
    run = subprocess.run([sys.executable, SCRIPT, f"x={tmp_path / 'none.json'}"], capture_output=True, text=True)
    assert run.returncode == 2 and "none.json" in run.stderr
