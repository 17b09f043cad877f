"""Fixtures of the tuning tests: the base model's tokenizer and weights, loaded once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_shadowed_datasets() -> Iterator[None]:
    """pytest puts tests/ on sys.path, where the folder tests/datasets looks like the `datasets` package
    to transformers' Trainer, which then fails looking for `datasets.Dataset`. That package is not
    installed (nor needed): say so, for the whole session, since module fixtures train too."""
    import transformers.trainer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transformers.trainer, "is_datasets_available", lambda: False)
        yield


@pytest.fixture(scope="session")
def tokenizer():
    """The bundled model's tokenizer and chat template, read from its GGUF file."""
    import contextlib
    import io

    from transformers import AutoTokenizer

    from arkg.llm.bundled import bundled_model_path

    path = bundled_model_path()
    with contextlib.redirect_stderr(io.StringIO()):
        return AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
