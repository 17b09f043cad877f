"""The tuning base model's saved copy: the first load reads the GGUF and saves the float32 model, later
loads read the copy and get the same weights and tokenizer; a damaged copy is made again, and a cache
that cannot be written costs a warning, not the load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from arkg.llm.bundled import bundled_model_path
from arkg.llm.file_digest import file_sha256
from arkg.tune import base as tune_base

pytestmark = pytest.mark.slow

MESSAGES = [
    {"role": "system", "content": "Answer from the triples."},
    {"role": "user", "content": "Was Marie Curie born in Warsaw?"},
    {"role": "assistant", "content": '{"answer": "yes"}'},
]


def _reads(monkeypatch: pytest.MonkeyPatch, gguf_gives: tuple[Any, Any] | None) -> list[str]:
    """Record what each load reads: "gguf" or "copy". A GGUF read gives `gguf_gives`, or fails the test
    when None."""
    read = tune_base._read
    reads: list[str] = []

    def recording(folder: Path, gguf_file: str | None = None) -> tuple[Any, Any]:
        reads.append("copy" if gguf_file is None else "gguf")
        if gguf_file is None:
            return read(folder)
        assert gguf_gives is not None, "the GGUF was read although a whole copy was saved"
        return gguf_gives

    monkeypatch.setattr(tune_base, "_read", recording)
    return reads


def test_the_first_load_saves_a_copy_that_later_loads_read_instead_of_the_gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path / "cache"))
    first = tune_base.load_base()
    folder = tune_base.saved_copy_folder(bundled_model_path())
    assert folder.parent == tmp_path / "cache" / "tune-base"
    assert folder.name.startswith(file_sha256(bundled_model_path())[:16] + "-transformers-")
    assert (folder / "model.safetensors").is_file()
    assert [path.name for path in folder.parent.iterdir()] == [folder.name]  # no temporary folder left

    reads = _reads(monkeypatch, None)
    again = tune_base.load_base()
    assert reads == ["copy"]
    assert again.path == first.path == bundled_model_path()
    weights, read_back = first.model.state_dict(), again.model.state_dict()
    assert weights.keys() == read_back.keys()
    assert all(torch.equal(weights[name], read_back[name]) for name in weights)
    assert again.tokenizer.apply_chat_template(MESSAGES) == first.tokenizer.apply_chat_template(MESSAGES)

    # A damaged copy: read from the GGUF again, and saved whole.
    (folder / "model.safetensors").write_bytes(b"not a safetensors file")
    reads = _reads(monkeypatch, (first.model, first.tokenizer))
    assert tune_base.load_base().model is first.model
    assert reads == ["copy", "gguf"]
    reads = _reads(monkeypatch, None)
    repaired = tune_base.load_base().model.state_dict()
    assert reads == ["copy"] and all(torch.equal(weights[name], repaired[name]) for name in weights)

    # Without the cache: the GGUF every time, nothing saved.
    reads = _reads(monkeypatch, (first.model, first.tokenizer))
    tune_base.load_base(cache=False)
    assert reads == ["gguf"]


def test_a_cache_that_cannot_be_written_warns_and_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would be", encoding="utf-8")
    monkeypatch.setenv("ARKG_CACHE_DIR", str(blocker))
    model, tokenizer = object(), object()
    monkeypatch.setattr(tune_base, "_checked", lambda path, model, tokenizer: tune_base.TunableModel(path, model, tokenizer))
    reads = _reads(monkeypatch, (model, tokenizer))
    with pytest.warns(UserWarning, match=f"could not save the tuning base model's copy in {blocker}"):
        loaded = tune_base.load_base()
    assert reads == ["gguf"] and loaded.model is model and loaded.tokenizer is tokenizer
    assert blocker.read_text(encoding="utf-8").startswith("a file")
