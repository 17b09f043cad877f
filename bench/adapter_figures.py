"""How adapters were trained, from the JSON `arkg tune` writes beside each (docs/BENCHMARKS.md, "The tuned adapter").

Each argument is LABEL=ADAPTER.json. Per adapter it prints the pairs used and left out as too long,
the tokens of the used examples, the steps, the training time and tokens per second (the tokens of the
examples the steps drew, more than one pass over the data or less, / train_s), the loss (mean of the first logged steps, and the final loss the sidecar
records), and the device.

    python bench/adapter_figures.py "recipe 35=runs/k1/adapter.json" "recipe 36=runs/a1/adapter.json"
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def row(label: str, sidecar: dict) -> str:
    data = sidecar["data"]
    # `drawn` counts the examples the steps went through: 1.5 epochs draw each example 1.5 times on average.
    rate = data["tokens"] * data.get("drawn", data["used"]) / data["used"] / sidecar["train_s"]
    return (
        f"| {label} | {data['used']:,} | {data['left_out_too_long']:,} | {data['tokens']:,} | {sidecar['steps']:,} "
        f"| {sidecar['train_s']:,.0f} | {rate:,.0f} | {sidecar['first_loss']:.3f}, {sidecar['final_loss']:.3f} "
        f"| {sidecar['device']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("adapters", nargs="+", help="LABEL=ADAPTER.json (the path is what follows the last '=')")
    args = parser.parse_args()
    lines = [
        "| adapter | pairs used | left out (too long) | tokens | steps | train s | tokens/s | loss: first steps, final | device |",
        "|" + " --- |" * 9,
    ]
    for argument in args.adapters:
        label, _, path = argument.rpartition("=")
        if not label or not Path(path).is_file():
            parser.error(f"{argument!r}: expected LABEL=ADAPTER.json, and {path!r} is not a file")
        sidecar = json.loads(Path(path).read_text(encoding="utf-8"))
        if sidecar.get("format") != "arkg-adapter/1":
            parser.error(f"{path}: not the JSON `arkg tune` writes beside an adapter (format {sidecar.get('format')!r})")
        lines.append(row(label, sidecar))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
