"""The `train` extra: torch and the fine-tuning libraries, imported only when tuning is asked for."""

from __future__ import annotations

import importlib.util

from arkg.errors import ArkgError

TRAIN_MODULES = ("torch", "transformers", "peft", "gguf")
INSTALL_HINT = "pip install 'arkg[train]'"


class TrainExtraMissing(ArkgError):
    """Tuning needs packages the core install leaves out."""


def require_train_extra() -> None:
    """Raise TrainExtraMissing, naming the extra and what is missing, unless every package is importable."""
    missing = [name for name in TRAIN_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise TrainExtraMissing(
            f"Tuning needs the `train` extra ({', '.join(missing)} not installed): {INSTALL_HINT}"
            " (torch is pinned to its CPU build; a CUDA GPU is used when present, never required)."
        )
