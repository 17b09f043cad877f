"""The ChatModel interface: messages + output spec -> (validated value, raw text, usage)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generic, Literal, Protocol, Sequence, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class Sampling(BaseModel):
    """Decoding parameters; part of the cache key."""

    model_config = ConfigDict(frozen=True)

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    seed: int | None = 0
    max_tokens: int = Field(512, gt=0)


class Usage(BaseModel):
    """What model calls cost. Adds up with `+` along a run."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # Of completion_tokens, those a server reports as spent on reasoning (0 when it reports none).
    reasoning_tokens: int = 0
    latency_s: float = 0.0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(**{name: getattr(self, name) + getattr(other, name) for name in Usage.model_fields})

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def total_calls(self) -> int:
        """Every call the strategy made, whether the model or the response cache answered it."""
        return self.calls + self.cached_calls


@dataclass(frozen=True)
class Choice:
    """Output spec: exactly one of `options`, returned verbatim as a str."""

    options: tuple[str, ...]

    def __init__(self, options: Sequence[str]) -> None:
        if not options:
            raise ValueError("Choice needs at least one option")
        object.__setattr__(self, "options", tuple(dict.fromkeys(options)))


OutputSpec = type[BaseModel] | Choice


@dataclass(frozen=True)
class Completion(Generic[T]):
    """A validated reply. `raw` is the text that was validated; a reasoning model's thinking, which
    came before it or beside it, is kept apart in `reasoning` (None when there was none)."""

    value: T
    raw: str
    usage: Usage
    reasoning: str | None = None


# Hex SHA-256 of a file's content; the response cache passes one to ChatModel.cache_identity.
FileHasher = Callable[[Path], str]


@runtime_checkable
class ChatModel(Protocol):
    """A language model that answers with a typed decision.

    `name` identifies backend and model for people (e.g. "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf",
    shown in reports and traces). The response cache keys replies on the model's identity instead:
    a model may define `cache_identity(file_sha256: FileHasher) -> str`, naming everything that
    determines its replies (e.g. "llamacpp:sha256:<hex digest of the GGUF>", where file_sha256 gives a
    file's content hash, remembered across runs); a model without it is known by its `name`.
    """

    name: str

    def complete(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()) -> Completion[Any]:
        """Return a value of the spec's type: a validated pydantic instance, or one of Choice.options."""
        ...


def output_spec_key(output: OutputSpec) -> dict[str, Any]:
    """A JSON-able description of an output spec, stable across runs (used for cache keys)."""
    if isinstance(output, Choice):
        return {"choice": list(output.options)}
    return {"schema": output.model_json_schema()}
