"""A weighted sum of LoRA adapters as one adapter (`arkg merge-adapters`).

Each adapter i adds (alpha_i / r_i) B_i A_i to a weight; the merged one adds sum_i w_i (alpha_i / r_i)
B_i A_i, exactly, by stacking the A matrices and the scaled B matrices (rank: the sum of the ranks).
Asked for a smaller rank, each weight's update is replaced by its best approximation of that rank
(truncated SVD), and the share of the update kept is reported. Two adapters tuned from the same start
on different mixes often have complementary strengths; their average keeps much of both.

    result = merge_adapters([(Path("a.gguf"), 0.5), (Path("b.gguf"), 0.5)], Path("merged.gguf"), rank=8)
    result.adapter, result.sidecar, result.kept

The sidecar (`merged.json`) records each part's file, SHA-256, weight and provenance (the JSON that
`arkg tune` writes beside an adapter, when there is one).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

from arkg.errors import ModelError
from arkg.llm.file_digest import file_sha256
from arkg.paths import write_atomically
from arkg.tune.adapter_file import LoraFile, read_lora_file, read_sidecar, write_lora_file
from arkg.tune.deps import require_train_extra

MERGED_FORMAT = "arkg-merged-adapter/1"
A_SUFFIX, B_SUFFIX = ".lora_a", ".lora_b"
# Weights mix adapters (recipes use -1 to 1); one past this scales an update far beyond anything tuned,
# and its float16 values towards infinity.
MAX_WEIGHT = 100.0


@dataclass(frozen=True)
class MergeResult:
    adapter: Path
    sidecar: Path
    rank: int
    kept: float  # share of the updates' squared Frobenius norm kept (1.0: exact), the least over weights


def merge_adapters(parts: Sequence[tuple[Path, float]], out: Path, *, rank: int | None = None, command: str = "") -> MergeResult:
    """Write to `out` the adapter whose update is the weighted sum of the parts' updates, and its sidecar
    beside it (`out` with the suffix .json). `rank` None keeps the sum exactly."""
    require_train_extra()
    import numpy as np

    if not parts:
        raise ModelError("Name at least one adapter to merge")
    for path, weight in parts:
        if not math.isfinite(weight):
            raise ModelError(f"{path}: weight {weight} is not a finite number")
        if abs(weight) > MAX_WEIGHT:
            raise ModelError(f"{path}: weight {weight:g} is past ±{MAX_WEIGHT:g}; adapters are mixed with weights of about -1 to 1")
    if rank is not None and rank < 1:
        raise ModelError(f"rank must be at least 1, not {rank}")
    files = [(path, _read(path)) for path, _ in parts]
    layers = _common_layers(files)
    records = [_part(path, weight) for path, weight in parts]  # before writing: a bad sidecar refuses the merge
    merged: dict[str, Any] = {}
    kept = 1.0
    for layer in layers:
        a = np.concatenate([lora.tensors[layer + A_SUFFIX] for _, lora in files], axis=0).astype(np.float64)
        b = np.concatenate(
            [lora.tensors[layer + B_SUFFIX] * (weight * _scale(lora, path)) for (path, lora), (_, weight) in zip(files, parts)],
            axis=1,
        ).astype(np.float64)
        if rank is not None and rank < a.shape[0]:
            a, b, share = _truncated(a, b, rank)
            kept = min(kept, share)
        with np.errstate(over="ignore"):  # what overflows is infinite, and write_lora_file refuses it by name
            merged[layer + A_SUFFIX] = a.astype(np.float16)
            merged[layer + B_SUFFIX] = b.astype(np.float16)
    merged_rank = merged[layers[0] + A_SUFFIX].shape[0]
    out = Path(out)
    # alpha = rank: the scale alpha / r is 1, the weights and each part's scale are already in B.
    adapter = write_lora_file(merged, out, alpha=float(merged_rank))
    sidecar = out.with_suffix(".json")
    provenance = {
        "format": MERGED_FORMAT,
        "adapter": {"file": adapter.name, "sha256": file_sha256(adapter), "bytes": adapter.stat().st_size},
        "rank": merged_rank,
        "kept": kept,
        "parts": records,
        "command": command,
        "arkg_version": version("arkg"),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    write_atomically(sidecar, json.dumps(provenance, indent=2, ensure_ascii=False) + "\n")
    return MergeResult(adapter=adapter, sidecar=sidecar, rank=merged_rank, kept=kept)


def _read(path: Path) -> LoraFile:
    if not path.is_file():
        raise ModelError(f"{path}: no such adapter file")
    return read_lora_file(path)


def _scale(lora: LoraFile, path: Path) -> float:
    """alpha / r of a file (every weight of an adapter has the same rank; llama.cpp reads it from lora_a)."""
    ranks = {array.shape[0] for name, array in lora.tensors.items() if name.endswith(A_SUFFIX)}
    if len(ranks) != 1:
        raise ModelError(f"{path}: its weights have LoRA ranks {sorted(ranks)}; one rank is expected")
    rank = ranks.pop()
    return (lora.alpha if lora.alpha is not None else rank) / rank


def _common_layers(files: Sequence[tuple[Path, LoraFile]]) -> list[str]:
    """The adapted weights, which every part must share with the same shapes (ranks aside)."""
    first_path, first = files[0]
    layers = sorted(name.removesuffix(A_SUFFIX) for name in first.tensors if name.endswith(A_SUFFIX))
    if not layers:
        raise ModelError(f"{first_path}: holds no LoRA tensors")
    for path, lora in files:
        names = {name.removesuffix(A_SUFFIX).removesuffix(B_SUFFIX) for name in lora.tensors}
        if names != set(layers):
            differing = sorted(names ^ set(layers))
            raise ModelError(
                f"{path}: adapts other weights than {first_path} ({', '.join(differing[:3])}{', …' if len(differing) > 3 else ''});"
                " merge adapters tuned on the same layers"
            )
        for layer in layers:
            a, b = lora.tensors[layer + A_SUFFIX], lora.tensors[layer + B_SUFFIX]
            first_a, first_b = first.tensors[layer + A_SUFFIX], first.tensors[layer + B_SUFFIX]
            if a.shape[1] != first_a.shape[1] or b.shape[0] != first_b.shape[0] or a.shape[0] != b.shape[1]:
                raise ModelError(f"{path}: {layer} has LoRA shapes {a.shape} and {b.shape}, unlike {first_path}'s {first_a.shape} and {first_b.shape}")
    return layers


def _truncated(a: Any, b: Any, rank: int) -> tuple[Any, Any, float]:
    """The best rank-`rank` factors of B A (out x in), from the small stacked factors alone: with
    B = Qb Rb and A^T = Qa Ra, B A = Qb (Rb Ra^T) Qa^T, and the SVD of the k x k core gives it."""
    import numpy as np

    qb, rb = np.linalg.qr(b)
    qa, ra = np.linalg.qr(a.T)
    u, s, vt = np.linalg.svd(rb @ ra.T)
    root = np.sqrt(s[:rank])
    total = float(np.sum(s**2))
    share = float(np.sum(s[:rank] ** 2)) / total if total > 0 else 1.0
    return (root[:, None] * vt[:rank]) @ qa.T, (qb @ u[:, :rank]) * root[None, :], share


def _part(path: Path, weight: float) -> dict[str, Any]:
    sha256 = file_sha256(path)
    return {"file": path.name, "sha256": sha256, "weight": weight, "provenance": read_sidecar(path, sha256)}
