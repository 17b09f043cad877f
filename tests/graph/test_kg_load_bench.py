"""bench/kg_load.py, CI-sized: a load through the real CLI, and with --floor SQLite's own work on its rows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "kg_load.py"


def test_the_load_bench_times_the_cli_and_the_sqlite_floor_of_the_same_rows(tmp_path: Path) -> None:
    command = [sys.executable, str(BENCH), "--n", "3000", "--runs", "2", "--floor", "--workdir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Loaded 3,000 triples" in done.stdout
    steps = dict(re.findall(r"^  ((?:edges|entities|index|FTS5|folded)[^\n]*?)\s+(\d+\.\d+)$", done.stdout, re.M))
    assert set(steps) == {
        "edges: insert (executemany)",
        "entities: insert with counts",
        "index entities_name",
        "index edges_key",
        "index edges_in",
        "index entities_edges",
        "FTS5 trigram index",
        "folded-name table",
    }
    first, second = (float(seconds) for seconds in re.findall(r"^  floor: (\d+\.\d+) s CPU", done.stdout, re.M))
    assert second < 10 * first  # each run's floor is its own steps' time, nothing carried over from the run before
    ratio = float(re.search(r"load CPU / floor\s+(\d+\.\d+)", done.stdout).group(1))
    assert ratio > 1  # the CLI's start-up alone outweighs SQLite's work on 3,000 rows
    assert re.search(r"^bound: [\d,]+ triples per CPU second", done.stdout, re.M)
    assert list(tmp_path.iterdir()) == []  # the graph and every store were removed
