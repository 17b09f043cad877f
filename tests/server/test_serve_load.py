"""The load test (bench/serve_load.py), CI-sized: concurrent clients on 127.0.0.1, the scripted model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "serve_load.py"


@pytest.mark.slow
def test_every_request_is_answered_or_refused_none_lost_or_mixed_up(tmp_path):
    figures_file = tmp_path / "figures.json"
    command = [sys.executable, str(BENCH), "--clients", "20", "--requests", "3", "--queue-size", "4"]
    command += ["--model-delay", "0.01", "--time-limit", "150", "--json", str(figures_file)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(figures_file.read_text())
    assert (figures["asked"], figures["answered"], figures["lost"], figures["mixed_up"], figures["unfinished"]) == (60, 60, 0, 0, 0)
    assert figures["refused_503"] > 0  # 20 clients at once against a queue of 4: the queue filled and said so
    assert figures["run_latency_p99_ms"] >= figures["run_latency_p50_ms"] > 0
    first, *_, last = figures["server_rss_mib_by_quarter"]
    assert last - first < 25, figures["server_rss_mib_by_quarter"]  # memory flat, not growing with each run
