"""The model-spec string used by the CLI and configs, and the cache location: one place that builds models."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote, urlsplit

from arkg.data import TUNED_ADAPTERS, tuned_adapter_path
from arkg.errors import SpecError
from arkg.llm.base import ChatModel
from arkg.llm.bundled import bundled_model_path
from arkg.llm.cache import CachedModel
from arkg.llm.testing import TestModel
from arkg.paths import user_cache_dir

if TYPE_CHECKING:
    from arkg.llm.llamacpp import LlamaCppModel

ACCEPTED_FORMS = """\
  (none)                             the bundled model with the adapter tuned for the run's strategy where
                                     one ships (llamacpp:tuned for ark, ...), else the plain bundled model
  llamacpp                           the bundled SmolLM2-135M-Instruct, plain: no adapter
  llamacpp:tuned                     the bundled model with arkg's tuned LoRA adapter (shipped in arkg)
  llamacpp:tuned-kg-agent            the bundled model with the adapter tuned on KG-Agent's programs
  llamacpp:/path/to/model.gguf       a local GGUF model run by llama.cpp
  llamacpp:+/path/to/adapter.gguf    the bundled model with a llama.cpp LoRA adapter (e.g. from arkg tune)
  llamacpp:/path/to/model.gguf+/path/to/adapter.gguf
                                     a local GGUF model with a LoRA adapter made for it
  openai:MODEL                       OpenAI's API, key from $OPENAI_API_KEY
  openai:MODEL@http://HOST:PORT/v1   any OpenAI-compatible server (vLLM, Ollama, llama.cpp, OpenRouter, ...)
  openai:...?timeout=30&retries=1    options: seconds to wait per attempt (default 60), retries of a failed
                                     attempt (default 3); one call takes at most timeout x (retries + 1) s
  openai:...?body.FIELD=VALUE        option: a field added to each request's body, VALUE read as JSON if it
                                     is JSON (else as text), dots nesting objects; e.g. for Qwen3 on vLLM:
                                     ?body.chat_template_kwargs.enable_thinking=false
  openai:...#ENV_VAR                 suffix: read the API key from $ENV_VAR instead
  test                               arkg.llm.testing.TestModel: the smallest valid reply to every request,
                                     no model loaded (for testing a pipeline, not for answers)"""

# A quantisation tag at the end of a GGUF file's stem: ".Q4_1", "-q4_k_m", ".IQ3_XS", ".f16".
_QUANTISATION = re.compile(r"[.-](?:I?Q\d\w*|B?F16|F32)$", re.IGNORECASE)
_SHIPPED_ADAPTERS = {file: name for name, file in TUNED_ADAPTERS.items()}
_ENV_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# BASE+ADAPTER: the split is the first "+" right after ".gguf" (or a leading "+": the bundled base),
# so that a "+" inside a directory name stays part of the path.
_WITH_ADAPTER = re.compile(r"(?P<base>(?:.*?\.gguf)?)\+(?P<adapter>.+)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec. `model` is a GGUF path (None: bundled) for llamacpp, a model name for openai;
    `adapter` a LoRA adapter GGUF path for llamacpp, or the name of one shipped in arkg
    (a key of arkg.data.TUNED_ADAPTERS: `llamacpp:tuned` is ModelSpec("llamacpp", adapter="tuned"))."""

    backend: Literal["llamacpp", "openai", "test"]
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float | None = None  # None: the backend's default
    retries: int | None = None
    body: dict[str, Any] = field(default_factory=dict, hash=False)  # extra request fields (body.FIELD=VALUE)
    adapter: str | None = None  # last, so that positional construction keeps its meaning


def default_model_spec(tuned_adapter: str | None) -> str:
    """The spec of a run that names no model: the bundled model with the adapter tuned for the run's
    strategy (its StrategyInfo.tuned_adapter, passed by the caller), else the plain bundled model."""
    return f"llamacpp:{tuned_adapter}" if tuned_adapter is not None else "llamacpp"


def model_name_parts(name: str) -> tuple[str, str | None]:
    """A model's name (ChatModel.name) as short names of its base and its LoRA adapter (None: none):
    "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf+smollm2-135m-arkg-lora.gguf" is ("SmolLM2-135M-Instruct",
    "tuned"), a shipped adapter by its spec name and another by its file; "openai:gpt-4o-mini@http://host/v1"
    is ("gpt-4o-mini", None)."""
    backend, colon, rest = name.partition(":")
    if not colon:
        return name, None
    rest = rest.partition("@")[0]
    if backend != "llamacpp":
        return rest or name, None
    base, _, adapter = rest.partition("+")  # llama.cpp names a tuned model BASE.gguf+ADAPTER.gguf
    return _file_stem(base), (_SHIPPED_ADAPTERS.get(adapter) or _file_stem(adapter)) if adapter else None


def _file_stem(name: str) -> str:
    stem = PurePath(name).name.removesuffix(".gguf")
    return _QUANTISATION.sub("", stem) or stem


def adapter_hint(spec: str | None, strategy: str, meant: str | None) -> str | None:
    """A note for a run of `strategy` on one shipped adapter when another, `meant` (the strategy's
    registered StrategyInfo.tuned_adapter), ships tuned for that strategy."""
    parsed = parse_model_spec(spec)
    shipped = parsed.backend == "llamacpp" and parsed.model is None and parsed.adapter in TUNED_ADAPTERS
    if not shipped or meant in (None, parsed.adapter):
        return None
    return f"llamacpp:{meant} is the adapter tuned for {strategy}; this run uses llamacpp:{parsed.adapter}"


def parse_model_spec(spec: str | None) -> ModelSpec:
    """Parse a model spec (see ACCEPTED_FORMS); SpecError names the accepted forms. None (or "") reads
    as the plain bundled model: resolve a run's missing spec with default_model_spec first."""
    if spec is None or spec.strip() in ("", "llamacpp"):
        return ModelSpec("llamacpp")
    spec = spec.strip()
    if spec == "test":
        return ModelSpec("test")
    backend, _, body = spec.partition(":")
    if backend == "llamacpp":
        return _parse_llamacpp(spec, body)
    if backend == "openai":
        return _parse_openai(spec, body)
    raise _spec_error(spec, f"unknown backend {backend!r}")


def _parse_llamacpp(spec: str, body: str) -> ModelSpec:
    if not body:
        raise _spec_error(spec, "the model path after 'llamacpp:' is missing")
    if body in TUNED_ADAPTERS:
        return ModelSpec("llamacpp", adapter=body)
    split = _WITH_ADAPTER.fullmatch(body)
    if split is None:
        return ModelSpec("llamacpp", model=body)
    adapter = split["adapter"]
    if adapter in TUNED_ADAPTERS:
        raise _spec_error(spec, f"the tuned adapters fit the bundled model only: write 'llamacpp:{adapter}'")
    return ModelSpec("llamacpp", model=split["base"] or None, adapter=adapter)


def adapter_path(parsed: ModelSpec) -> str | None:
    """The LoRA adapter file of a llamacpp spec: a shipped adapter's path in the package, else as written."""
    if parsed.adapter in TUNED_ADAPTERS:
        return str(tuned_adapter_path(parsed.adapter))
    return parsed.adapter


def _parse_openai(spec: str, body: str) -> ModelSpec:
    api_key_env = "OPENAI_API_KEY"
    if "#" in body:
        body, _, api_key_env = body.rpartition("#")
        if not _ENV_VAR.fullmatch(api_key_env):
            raise _spec_error(spec, f"{api_key_env!r} after '#' is not an environment variable name")
    body, _, query = body.partition("?")
    model, _, base_url = body.partition("@")
    if not model:
        raise _spec_error(spec, "the model name is missing")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise _spec_error(spec, f"the server URL {base_url!r} must start with http:// or https://")
    try:
        urlsplit(base_url).port  # a bad IPv6 host or port raises here, not in the HTTP client later
    except ValueError as error:
        raise _spec_error(spec, f"the server URL {base_url!r} is not valid ({error})") from None
    options = _parse_options(spec, query) if query else {}
    return ModelSpec("openai", model=model, base_url=base_url or None, api_key_env=api_key_env, **options)


def _parse_options(spec: str, query: str) -> dict[str, Any]:
    """`timeout=30&retries=1&body.a.b=true` -> {"timeout": 30.0, "retries": 1, "body": {"a": {"b": True}}};
    values may be %-escaped."""
    options: dict[str, Any] = {}
    body: dict[str, Any] = {}
    for item in query.split("&"):
        name, has_value, text = item.partition("=")
        value = unquote(text)
        if not has_value or not name:
            raise _spec_error(spec, f"option {item!r} is not written NAME=VALUE")
        if name in options:
            raise _spec_error(spec, f"option {name!r} is given twice")
        if name.startswith("body."):
            _set_field(spec, body, name, value)
        elif name == "timeout":
            options[name] = _seconds(spec, value)
        elif name == "retries":
            if not (value.isascii() and value.isdigit()):
                raise _spec_error(spec, f"retries={value!r}: expected a whole number, 0 or more")
            options[name] = int(value)
        else:
            raise _spec_error(spec, f"unknown option {name!r} (known: timeout, retries, body.FIELD)")
    if body:
        options["body"] = body
    return options


def _set_field(spec: str, body: dict[str, Any], name: str, text: str) -> None:
    """Put the value of option `body.a.b=text` at body["a"]["b"]."""
    *parents, last = path = name.split(".")[1:]
    if not all(path):
        raise _spec_error(spec, f"option {name!r} has an empty field name")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = text  # plain words need no JSON quotes: body.reasoning_effort=low
    target = body
    for part in parents:
        target = target.setdefault(part, {})
        if not isinstance(target, dict):
            raise _spec_error(spec, f"option {name!r}: {part!r} is already set to a value, not an object")
    if last in target:
        raise _spec_error(spec, f"option {name!r} sets a field that is already set")
    target[last] = value


def _seconds(spec: str, value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise _spec_error(spec, f"timeout={value!r}: expected a positive number of seconds")
    return seconds


def _spec_error(spec: str, reason: str) -> SpecError:
    return SpecError(f"Model spec {spec!r}: {reason}. Accepted forms:\n{ACCEPTED_FORMS}")


def default_cache_path() -> Path:
    """responses.sqlite in arkg's cache folder ($ARKG_CACHE_DIR, else ($XDG_CACHE_HOME or ~/.cache)/arkg)."""
    return user_cache_dir() / "responses.sqlite"


def _llama_threads() -> int | None:
    """$ARKG_LLAMA_THREADS, if set: on a busy machine, or with several runs side by side, fewer threads
    per model are faster than llama.cpp's default of one per core."""
    value = os.environ.get("ARKG_LLAMA_THREADS")
    if value is None:
        return None
    if not value.isdigit() or int(value) < 1:
        raise SpecError(f"ARKG_LLAMA_THREADS={value!r}: expected a positive whole number of threads")
    return int(value)


def open_model(
    spec: str | None = None,
    *,
    cache: str | Path | bool | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    loaded: dict[Path, LlamaCppModel] | None = None,
) -> ChatModel:
    """Build the model a spec names, behind the response cache.

    cache: None or True -> the default cache file (default_cache_path()); False -> no cache;
    a path -> that SQLite file. timeout (seconds per attempt) and retries apply to server backends;
    given here (e.g. from command-line options) they win over the spec's own `?timeout=&retries=`;
    None keeps the spec's, else the backend's default. loaded: llama.cpp models opened before, by GGUF
    file; a llamacpp spec on one of them puts its adapter on those weights instead of loading them
    again, and a model loaded here is added (so that specs differing in their adapter share one copy).
    """
    parsed = parse_model_spec(spec)
    model: ChatModel
    if parsed.backend == "llamacpp":
        model = _llamacpp_model(parsed, {} if loaded is None else loaded)
    elif parsed.backend == "test":
        # Uncached: its replies cost nothing, and caching them would only fill the file. No call log:
        # nothing reads one here, and a server's (`arkg serve --model test`) grew with every run.
        return TestModel(keep_calls=False)
    else:
        from arkg.llm.openai_compat import OpenAICompatModel

        assert parsed.model is not None  # the parser guarantees a model name for openai
        options = {
            "timeout": timeout if timeout is not None else parsed.timeout,
            "max_retries": retries if retries is not None else parsed.retries,
        }
        model = OpenAICompatModel(
            parsed.model,
            parsed.base_url,
            api_key_env=parsed.api_key_env,
            extra_body=parsed.body,
            **{name: value for name, value in options.items() if value is not None},
        )
    if cache is False:
        return model
    return CachedModel(model, default_cache_path() if cache is None or cache is True else cache)


def _llamacpp_model(parsed: ModelSpec, loaded: dict[Path, LlamaCppModel]) -> LlamaCppModel:
    from arkg.llm.llamacpp import LlamaCppModel  # loads llama.cpp: only when asked for

    path = Path(parsed.model).expanduser() if parsed.model is not None else bundled_model_path()
    if path in loaded:
        return loaded[path].with_adapter(adapter_path(parsed))
    model = LlamaCppModel(path, n_threads=_llama_threads(), lora_path=adapter_path(parsed))
    loaded[path] = model
    return model
