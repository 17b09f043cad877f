"""What every strategy takes and returns, and the one registry that every caller reads.

A strategy answers a `Query` (a question or a claim) and returns a `Result`. It is registered once,
with its name, its typed settings, a constructor, its trace type and its view; `arkg ask`, `arkg eval`,
reports, the page, synthesis and the Python API all find it by name and ask nothing else of it:

    register(StrategyInfo(name="echo", summary="...", settings=EchoSettings, build=make_echo, uses_kg=False))
    strategy = build_strategy("echo", model, kg=None, settings={"loud": True})
    result = strategy.ask("Is the sky blue?", RunOptions(sampling=Sampling(temperature=0.7, seed=3)))

Sampling, budget and the event callback come with each call (`RunOptions`), so one strategy object
serves a whole evaluation run. Installed packages add strategies through the entry-point group
`arkg.strategies` (each entry names a StrategyInfo), loaded when the registry is first read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    ValidationInfo,
    computed_field,
    field_validator,
    model_validator,
)

from arkg.agents.question import is_claim, is_yes_no_question
from arkg.agents.support import Support, check_support
from arkg.agents.trace import Trace
from arkg.agents.view import View
from arkg.errors import ArkgError
from arkg.graph.model import KnowledgeGraph, Triple
from arkg.llm.base import ChatModel, Usage

# True / False / None for yes/no questions and claims (None: the strategy could not settle it);
# free text for other questions.
Answer = bool | str | None
# What an answer rests on: cited facts that support it ("kg"), with stated rules too ("kg+commonsense"),
# rules alone or beside facts that do not support it ("commonsense"), cited facts that do not support it
# and no rule ("unsupported"), nothing at all ("neither"); "no answer" for None, "unknown entity" for the
# None of a question naming what the KG does not have. "kg (closed world)": a False answer resting on
# every edge of the asked relation having been read (none is the asked value).
Basis = Literal["kg", "kg (closed world)", "commonsense", "kg+commonsense", "unsupported", "neither", "no answer", "unknown entity"]
# The longest question (or claim) asked, in characters: `arkg ask` refuses a longer one, `arkg eval`
# skips it, `arkg serve` and `arkg mcp` take it as their default cap. Strategies search the KG with
# the question's words and put it in every prompt: megabytes of text would run for minutes.
MAX_QUESTION_CHARS = 1000


class AnswerKind(str, Enum):
    AUTO = "auto"  # decided from the wording
    YES_NO = "yes_no"  # True / False / None
    OPEN = "open"  # free text


class Query(BaseModel):
    """What a strategy is asked: a question, or a claim to verify (answered True / False / None alike)."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1)
    kind: AnswerKind = AnswerKind.AUTO
    claim: bool | None = None  # None: decided from the wording
    # The entities the question names, where a data set lists them (CoLoTa's "KG Entities"): what the run
    # checks the KG has before exploring, in place of the names it reads off the wording ("German" in
    # "of a German breed" is commonsense, not an entity).
    entities: tuple[str, ...] = ()

    @field_validator("text")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("the question is empty")
        return text.strip()

    @property
    def is_claim(self) -> bool:
        return is_claim(self.text) if self.claim is None else self.claim

    @property
    def yes_no(self) -> bool:
        if self.kind is not AnswerKind.AUTO:
            return self.kind is AnswerKind.YES_NO
        return self.is_claim or is_yes_no_question(self.text)

    @property
    def noun(self) -> str:
        """How prompts name the input: "claim" or "question"."""
        return "claim" if self.is_claim else "question"


def as_query(query: str | Query) -> Query:
    """A Query from a plain string (or the Query itself); an empty string is an error."""
    if isinstance(query, Query):
        return query
    try:
        return Query(text=query)
    except ValidationError:
        raise ArkgError("The question is empty: ask something, e.g. \"Was Marie Curie born in Warsaw?\"") from None


class Result(BaseModel):
    strategy: str
    question: str
    claim: bool = False
    answer: Answer
    explanation: str = ""
    # Triples the answer rests on, as {"head", "relation", "tail", "props"} dicts.
    cited_triples: list[dict[str, Any]] = Field(default_factory=list)
    # Every distinct triple the strategy showed the model on the way (the cited ones among them).
    retrieved_triples: list[dict[str, Any]] = Field(default_factory=list)
    # Commonsense the answer rests on, stated as rules (R³'s axioms); empty where none was stated.
    commonsense: list[str] = Field(default_factory=list)
    # Why the strategy stopped (its own wording; "the run budget was spent" when the budget ended it).
    stop_reason: str = "done"
    # The strategy's typed trace, exported with `model_dump(mode="json")` and read back by strategy name.
    trace: SerializeAsAny[Trace] | None = None
    usage: Usage = Field(default_factory=Usage)
    # Whether the cited facts, with the computations the trace records, support the answer
    # (arkg.agents.support). The run skeleton checks it with the KG at hand; a Result built or read
    # without it (a plugin's, an older file's) is checked from its own fields. Never None once built.
    support: Support | None = None

    @field_validator("trace", mode="before")
    @classmethod
    def _typed_trace(cls, trace: Any, info: ValidationInfo) -> Any:
        if isinstance(trace, Mapping) and "strategy" in info.data:
            return read_trace(info.data["strategy"], trace)
        return trace

    @model_validator(mode="after")
    def _checked(self) -> Result:
        if self.support is None:
            self.support = answer_support(self.answer, self.question, self.cited_triples, self.trace)
        return self

    @computed_field
    @property
    def basis(self) -> Basis:
        """What the answer rests on; KG facts count only where they support it (`support`)."""
        if self.answer is None:
            return "unknown entity" if self.support is not None and self.support.missing else "no answer"
        facts, rules = bool(self.cited_triples), bool(self.commonsense)
        supported = facts and self.support is not None and self.support.supported
        if rules:
            return "kg+commonsense" if supported else "commonsense"
        if supported:
            return "kg (closed world)" if self.support is not None and self.support.closed_world else "kg"
        return "unsupported" if facts else "neither"


def answer_support(
    answer: Answer,
    question: str,
    cited_triples: Sequence[Mapping[str, Any]],
    trace: Trace | None,
    kg: KnowledgeGraph | None = None,
) -> Support:
    """The support check of an answer, with the entities and computations its trace records."""
    cited = [Triple(t["head"], t["relation"], t["tail"], dict(t.get("props") or {})) for t in cited_triples]
    return check_support(
        answer=answer,
        question=question,
        cited=cited,
        entities=trace.linked_entities() if trace is not None else (),
        computations=trace.computations() if trace is not None else (),
        kg=kg,
    )


@runtime_checkable
class Strategy(Protocol):
    name: str

    def ask(self, query: str | Query, options: Any = None) -> Result:
        """Answer one query; `options` is an arkg.agents.run.RunOptions (None: defaults)."""
        ...


# Builds a strategy from the model, the KG (None for strategies that use none) and its settings.
Builder = Callable[[ChatModel, KnowledgeGraph | None, Any], Strategy]


@dataclass(frozen=True)
class PaperProtocol:
    """How a strategy's paper ran it: the settings that reproduce its procedure (`--protocol paper`),
    and the table of the paper whose figures a run in that mode compares with."""

    table: str  # "ARK-V1 Table III"
    settings: Mapping[str, Any]


@dataclass(frozen=True)
class StrategyInfo:
    """Everything the rest of arkg asks of a strategy."""

    name: str
    summary: str  # one line, shown in --help and listings
    settings: type[BaseModel]
    build: Builder
    uses_kg: bool = True
    max_tokens: int = 256  # default token budget of one model call
    trace_type: type[Trace] = Trace  # what a saved trace of the strategy is read back as
    view: View = field(default_factory=View)  # how its events and finished runs read, in the terminal and on the page
    # Where synthesis finds the strategy's teacher, as "module:attribute" (an arkg.agents.teaching.Lesson);
    # imported only when pairs are made, so answering never loads it. None: not taught.
    teacher: str | None = None
    # The shipped LoRA adapter tuned for the strategy (a name of arkg.data.TUNED_ADAPTERS), if one is.
    tuned_adapter: str | None = None
    # The paper's procedure, where the strategy follows a paper (None: arkg's own, or a baseline).
    paper: PaperProtocol | None = None


PLUGIN_GROUP = "arkg.strategies"


class Registry(MutableMapping[str, StrategyInfo]):
    """The strategies by name: the built-in ones, then those of installed plugins, loaded on first read.

    A plugin that cannot be loaded is left out, and asking for it by name is an error naming its entry point."""

    def __init__(self) -> None:
        self._infos: dict[str, StrategyInfo] = {}
        self._broken: dict[str, str] = {}  # entry-point name -> why it could not be loaded
        self._plugins_loaded = False

    def __getitem__(self, name: str) -> StrategyInfo:
        self._load_plugins()
        if name not in self._infos and name in self._broken:
            raise ArkgError(self._broken[name])
        return self._infos[name]

    def __setitem__(self, name: str, info: StrategyInfo) -> None:
        self._infos[name] = info

    def __delitem__(self, name: str) -> None:
        del self._infos[name]

    def __iter__(self) -> Iterator[str]:
        self._load_plugins()
        return iter(self._infos)

    def __contains__(self, name: object) -> bool:
        self._load_plugins()
        return name in self._infos

    def __len__(self) -> int:
        self._load_plugins()
        return len(self._infos)

    def _load_plugins(self) -> None:
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        for entry in entry_points(group=PLUGIN_GROUP):
            try:
                info = _plugin_info(entry)
                if self._infos.setdefault(info.name, info) is not info:
                    raise ArkgError(f"a strategy named {info.name!r} is registered already")
            except Exception as error:  # a broken plugin must not take the other strategies with it
                self._broken[entry.name] = (
                    f"the strategy plugin {entry.name!r} (entry point {entry.name} = {entry.value} in group "
                    f"{PLUGIN_GROUP}) cannot be loaded: {type(error).__name__}: {error}"
                )


def _plugin_info(entry: EntryPoint) -> StrategyInfo:
    loaded = entry.load()
    if not isinstance(loaded, StrategyInfo):
        raise ArkgError(f"{entry.value} is a {type(loaded).__name__}, not an arkg.agents.StrategyInfo")
    return loaded


REGISTRY = Registry()


def register(info: StrategyInfo, *, replace: bool = False) -> StrategyInfo:
    """Add a strategy to the registry (an existing name is an error unless `replace`)."""
    if info.name in REGISTRY._infos and not replace:
        raise ArkgError(f"a strategy named {info.name!r} is registered already")
    REGISTRY[info.name] = info
    return info


def strategy_names() -> list[str]:
    return list(REGISTRY)


def strategy_info(name: str) -> StrategyInfo:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ArkgError(f"unknown strategy {name!r}; choose one of: {', '.join(REGISTRY)}") from None


def read_trace(strategy: str, data: Mapping[str, Any]) -> Trace:
    """A saved trace (its JSON) read back as the trace type its strategy registered; a strategy no longer
    registered gives the generic Trace. A wrapper's trace (an abstention policy's) is read as its own type."""
    if data.get("kind") == "abstention":
        from arkg.agents.abstention import AbstentionTrace  # it wraps Results, so it cannot be imported above

        return AbstentionTrace.model_validate(data)
    trace_type = REGISTRY[strategy].trace_type if strategy in REGISTRY else Trace
    return trace_type.model_validate({"strategy": strategy, **data})


def protocol_settings(name: str, protocol: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings of a run under `protocol`: "arkg" (the strategy's defaults) or "paper" (its paper's
    procedure), with `overrides` on top. A strategy without a paper has no paper protocol."""
    if protocol not in PROTOCOLS:
        raise ArkgError(f"unknown protocol {protocol!r}; choose one of: {', '.join(PROTOCOLS)}")
    info = strategy_info(name)
    if protocol == "arkg":
        return dict(overrides or {})
    if info.paper is None:
        with_paper = ", ".join(n for n, i in REGISTRY.items() if i.paper is not None)
        raise ArkgError(f"strategy {name!r} follows no paper, so it has no paper protocol (strategies that do: {with_paper})")
    return {**info.paper.settings, **(overrides or {})}


def follows_protocol(name: str, settings: Mapping[str, Any]) -> PaperProtocol | None:
    """The paper protocol that a run's recorded settings (JSON values) follow, if any."""
    info = REGISTRY.get(name) if name in REGISTRY else None
    if info is None or info.paper is None:
        return None
    paper = info.settings.model_validate(dict(info.paper.settings)).model_dump(mode="json")
    return info.paper if all(settings.get(key) == value for key, value in paper.items()) else None


PROTOCOLS = ("arkg", "paper")


def strategy_settings(name: str, values: BaseModel | Mapping[str, Any] | None = None) -> BaseModel:
    """The strategy's typed settings from overrides; an unknown or invalid one is an error naming it."""
    info = strategy_info(name)
    if isinstance(values, info.settings):
        return values
    data = values.model_dump() if isinstance(values, BaseModel) else dict(values or {})
    unknown = sorted(set(data) - set(info.settings.model_fields))
    if unknown:
        known = ", ".join(info.settings.model_fields)
        raise ArkgError(f"strategy {name!r} has no setting {', '.join(map(repr, unknown))}; its settings: {known}")
    try:
        return info.settings.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise ArkgError(f"strategy {name!r}: invalid setting ({problems})") from None


def build_strategy(
    name: str,
    model: ChatModel,
    kg: KnowledgeGraph | None = None,
    settings: BaseModel | Mapping[str, Any] | None = None,
) -> Strategy:
    """The registered strategy `name`, built over the model and KG with these settings."""
    info = strategy_info(name)
    if info.uses_kg and kg is None:
        raise ArkgError(f"strategy {name!r} needs a knowledge graph")
    return info.build(model, kg, strategy_settings(name, settings))
