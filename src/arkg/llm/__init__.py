"""Language model backends behind one ChatModel interface.

    model = open_model("openai:qwen2.5:7b@http://127.0.0.1:11434/v1")   # or None for the bundled model
    step = model.complete(messages, MyPydanticModel, Sampling(temperature=0.7, seed=3)).value
    anchor = model.complete(messages, Choice(candidates)).value          # one of the candidates, verbatim

A model spec is one string for CLI and config: `llamacpp` (the bundled SmolLM2-135M-Instruct),
`llamacpp:/path/to/model.gguf`, `openai:MODEL`, `openai:MODEL@http://HOST:PORT/v1`; an openai form
may go on with options `?timeout=SECONDS&retries=N&body.FIELD=VALUE` (limits of a call, extra
request fields) and end in `#ENV_VAR` to read the API key from $ENV_VAR instead of $OPENAI_API_KEY
(ACCEPTED_FORMS lists them as error messages show them). The spec `test` loads no model: every
request gets the smallest reply that fits it (arkg.llm.testing.TestModel), for testing a pipeline.

open_model puts the model behind a SQLite response cache: $ARKG_CACHE_DIR/responses.sqlite, else
($XDG_CACHE_HOME or ~/.cache)/arkg/responses.sqlite; cache=False switches it off, a path picks the file.

The two real backends load heavy libraries (llama.cpp, the openai SDK); they are imported on first
use so that importing arkg stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arkg.llm.base import ChatModel, Choice, Completion, Message, OutputSpec, Sampling, Usage, output_spec_key
from arkg.llm.bundled import bundled_model_path
from arkg.llm.cache import CachedModel
from arkg.llm.scripted import ScriptedModel
from arkg.llm.spec import ACCEPTED_FORMS, ModelSpec, default_cache_path, open_model, parse_model_spec
from arkg.llm.testing import TestModel

if TYPE_CHECKING:
    from arkg.llm.llamacpp import LlamaCppModel
    from arkg.llm.openai_compat import OpenAICompatModel

_LAZY = {"LlamaCppModel": "arkg.llm.llamacpp", "OpenAICompatModel": "arkg.llm.openai_compat"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'arkg.llm' has no attribute {name!r}")


__all__ = [
    "ACCEPTED_FORMS",
    "CachedModel",
    "ChatModel",
    "Choice",
    "Completion",
    "LlamaCppModel",
    "Message",
    "ModelSpec",
    "OpenAICompatModel",
    "OutputSpec",
    "Sampling",
    "ScriptedModel",
    "TestModel",
    "Usage",
    "bundled_model_path",
    "default_cache_path",
    "open_model",
    "output_spec_key",
    "parse_model_spec",
]
