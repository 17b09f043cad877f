"""The JSON shapes of the HTTP API: what requests send and what answers hold (they make its OpenAPI page)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError


def _characters(text: str) -> str:
    """The text, unless it holds a lone surrogate: JSON's \\u escapes can spell half of a UTF-16 pair,
    which is no character, and neither the KG nor a trace could take it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise PydanticCustomError(
            "lone_surrogate",
            "holds \\u{code}, half of a UTF-16 surrogate pair and not a character; send the character itself",
            {"code": f"{ord(text[error.start]):04x}"},
        ) from None
    return text


class AskRequest(BaseModel):
    """A question to answer, how, and within which budget (the server caps the budget)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"question": "Was Marie Curie born in Warsaw?", "strategy": "ark", "settings": {"k_max": 3}}]},
    )

    question: Annotated[str, AfterValidator(_characters)] = Field(description="The question, or a claim to verify.")
    strategy: str | None = Field(None, description="A registered strategy (GET /api/info lists them); default: the server's.")
    settings: dict[str, Any] = Field(default_factory=dict, description="The strategy's settings to change, by name.")
    claim: bool | None = Field(None, description="Read the input as a claim (true) or a question (false); default: from its wording.")
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    seed: int = 0
    max_calls: int | None = Field(None, ge=1, description="Model calls at most (default and ceiling: the server's limit).")
    max_total_tokens: int | None = Field(None, ge=1, description="Prompt + completion tokens at most (capped likewise).")


class RunView(BaseModel):
    id: str
    state: str = Field(description="queued, running, done, failed or cancelled")
    question: str
    strategy: str
    settings: dict[str, Any]
    position: int = Field(description="Runs ahead of this one while it is queued; 0 once it runs.")
    steps: int = Field(description="Events so far.")
    error: str | None = None
    events: str = Field(description="Where to follow the run (server-sent events).")
    result_url: str
    result: dict[str, Any] | None = Field(None, description="The finished run's result with its whole trace.")


class ErrorView(BaseModel):
    error: str = Field(description="What went wrong and what to change.")
    status: int


class StrategyView(BaseModel):
    name: str
    summary: str
    uses_kg: bool
    settings: dict[str, Any] = Field(description="JSON schema of the strategy's settings.")


class LimitsView(BaseModel):
    max_body_bytes: int
    max_question_chars: int
    queue_size: int
    max_calls: int
    max_total_tokens: int
    keep_runs: int
    max_edges: int
    max_trace_bytes: int


class Info(BaseModel):
    model: str
    kg: str
    strategy: str
    strategies: list[StrategyView]
    limits: LimitsView
    queued: int


class EntityMatch(BaseModel):
    name: str
    score: float


class EdgesView(BaseModel):
    entity: str
    outgoing: list[dict[str, Any]]
    incoming: list[dict[str, Any]]
    not_shown: int = Field(description="Edges left out beyond the limit.")


class TraceFileView(BaseModel):
    name: str
    bytes: int
