"""Time per question of the defaults, paired against an earlier setting in one run on one machine.

    python bench/question_time.py --dir bench/heldout_kgs --limit 10 --rounds 2
    python bench/question_time.py --dir bench/heldout_kgs --limit 10 --rounds 2 --busy 2

Each round runs `arkg eval` (no cache, no --model) over the first LIMIT questions of every domain of DIR
(a folder per domain with kg.jsonl and questions.jsonl, as bench/heldout_eval.py reads them) once per
setting, the settings' order alternating from round to round:

- `before`: what `arkg ask` did with no options before the default strategy followed the model and
  llama.cpp's OpenMP threads spun only briefly while waiting: `--strategy ark`, GOMP_SPINCOUNT=300000;
- `after`: the defaults of this checkout (no --strategy, no environment).

With `--busy N`, N processes that only spin run beside every eval (a busy machine: the cores are
shared), stopped when it ends. The table gives each setting's median seconds per question (the
records' elapsed_s, over every round), its accuracy in the first round, the median of the paired
after/before ratios per question, and the exact McNemar p of the first round's right answers.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from arkg.eval.results import read_results
from arkg.eval.stats import mcnemar_p

ARKG = [sys.executable, "-m", "arkg"]
# GNU OpenMP's own spin count when nothing is set, which llama.cpp ran with before arkg chose one.
SETTINGS = {
    "before": (["--strategy", "ark"], {"GOMP_SPINCOUNT": "300000"}),
    "after": ([], {}),
}
SPIN = "while True: pass"


def _store(folder: Path, work: Path) -> Path:
    db = work / f"{folder.name}.db"
    if not db.exists():
        subprocess.run([*ARKG, "kg", "load", str(folder / "kg.jsonl"), "--db", str(db)], check=True, capture_output=True)
    return db


def _eval(folder: Path, db: Path, setting: str, out: Path, limit: int, busy: int) -> None:
    options, environment = SETTINGS[setting]
    command = [*ARKG, "eval", str(folder / "questions.jsonl"), "--db", str(db), "--no-cache", "--limit", str(limit), "--out", str(out)]
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(busy)]
    try:
        done = subprocess.run(command + options, env={**os.environ, **environment}, capture_output=True, text=True)
    finally:
        for spinner in spinners:
            spinner.send_signal(signal.SIGKILL)
            spinner.wait()
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(command + options)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def _records(path: Path) -> dict[str, tuple[float, bool]]:
    return {question: (record.elapsed_s, record.correct) for (question, _), record in read_results(path).latest().items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=10, help="questions per domain")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--busy", type=int, default=0, help="spinning processes beside each eval")
    arguments = parser.parse_args()
    domains = sorted(path for path in arguments.dir.iterdir() if (path / "questions.jsonl").exists())
    work = Path(tempfile.mkdtemp(prefix="question-time-"))
    seen: dict[str, dict[tuple[int, str], tuple[float, bool]]] = {setting: {} for setting in SETTINGS}
    for round_ in range(arguments.rounds):
        order = list(SETTINGS) if round_ % 2 == 0 else list(reversed(SETTINGS))
        for setting in order:
            for folder in domains:
                out = work / f"{setting}-{round_}-{folder.name}.jsonl"
                _eval(folder, _store(folder, work), setting, out, arguments.limit, arguments.busy)
                for question, outcome in _records(out).items():
                    seen[setting][(round_, f"{folder.name}/{question}")] = outcome
                print(f"round {round_ + 1}: {setting} {folder.name} done", file=sys.stderr, flush=True)

    before, after = seen["before"], seen["after"]
    shared = sorted(before.keys() & after.keys())
    ratios = [after[key][0] / before[key][0] for key in shared if before[key][0] > 0]
    first = [key for key in shared if key[0] == 0]
    only_before = sum(before[key][1] and not after[key][1] for key in first)
    only_after = sum(after[key][1] and not before[key][1] for key in first)
    print(f"{len(domains)} domains, {arguments.limit} questions each, {arguments.rounds} rounds, busy {arguments.busy}")
    print("| setting | questions | median s/question | right (round 1) |")
    print("| --- | --- | --- | --- |")
    for setting, outcomes in seen.items():
        times = [elapsed for elapsed, _ in outcomes.values()]
        right = sum(correct for (round_, _), (_, correct) in outcomes.items() if round_ == 0)
        print(f"| {setting} | {len(first)} | {statistics.median(times):.2f} | {right}/{len(first)} |")
    print(f"median of the paired after/before ratios: {statistics.median(ratios):.2f} ({len(ratios)} pairs)")
    print(f"round 1: only before right {only_before}, only after right {only_after}, McNemar p = {mcnemar_p(only_before, only_after):.3f}")
    print(json.dumps({"work": str(work)}))


if __name__ == "__main__":
    main()
