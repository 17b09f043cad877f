"""One knowledge graph and one model, opened once and asked any number of questions.

This is the library call behind `arkg ask` (and what a server keeps open between requests):

    with Session(db=None) as session:          # the sample KG; the bundled model with each strategy's tuned adapter
        result = session.ask("Was Marie Curie born in Warsaw?", on_event=print)   # the default strategy

With no model named, each strategy gets the bundled model with the adapter tuned for it, if one ships
(StrategyInfo.tuned_adapter; `model="llamacpp"` is the plain bundled model): the weights are loaded
once, and the adapters are loaded onto them as strategies first ask.

Events stream to `on_event` as they happen; nothing here draws on a screen.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path, PurePath
from types import TracebackType
from typing import Any

from pydantic import BaseModel

from arkg.agents import REGISTRY, Budget, Query, Result, RunOptions, as_query, build_strategy, default_abstains, default_strategy, strategy_info
from arkg.agents.abstention import Abstaining, Abstention
from arkg.agents.run import EventCallback
from arkg.graph import open_graph
from arkg.graph.model import KnowledgeGraph
from arkg.llm.adapted import ADAPTER_PREFIX, kg_model_spec, read_adapted
from arkg.llm.base import ChatModel, Sampling
from arkg.llm.spec import default_model_spec, model_name_parts, open_model, parse_model_spec


class Session:
    """A KG (`db`: a graph spec, see arkg.graph.open_graph) and a model: a ChatModel, a spec string, or
    None for the bundled model with the adapter tuned for each run's strategy (default_model_spec).
    A spec is checked at once and its model loaded on first use (model_for, ask)."""

    def __init__(
        self,
        db: str | Path | KnowledgeGraph | None = None,
        model: str | ChatModel | None = None,
        *,
        cache: bool | str | Path = True,
        timeout: float | None = None,
        retries: int | None = None,
        kg_spec: str | Path | None = None,
    ) -> None:
        """kg_spec: the spec a KnowledgeGraph given as `db` was opened from, so that its `arkg adapt`
        adapters are used as they are when `db` is the spec itself."""
        if isinstance(model, str):
            parse_model_spec(model)  # a mistyped spec is refused before anything opens
        self.kg = db if isinstance(db, KnowledgeGraph) else open_graph(db)
        # The spec the KG was opened from (None is the sample KG), whose `arkg adapt` record is read once here;
        # a KnowledgeGraph given without its spec has none.
        self._kg_spec = kg_spec if isinstance(db, KnowledgeGraph) else db
        known = kg_spec is not None or not isinstance(db, KnowledgeGraph)
        self._adapted = read_adapted(self._kg_spec) if model is None and known else None
        self._model = model
        self._options: dict[str, Any] = {"cache": cache, "timeout": timeout, "retries": retries}
        self._loaded: dict[Path, Any] = {}  # llama.cpp weights by GGUF file, shared by specs that differ in adapter
        self._by_spec: dict[str, ChatModel] = {}
        self._lock = threading.Lock()

    def model_for(self, strategy: str) -> ChatModel:
        """The model that answers `strategy`'s runs: the one given, else the bundled model with the
        strategy's tuned adapter. Opened on first use; the bundled weights are loaded once for all."""
        if isinstance(self._model, ChatModel):
            return self._model
        if self._model is not None:
            return self._open(self._model)
        return self._open(self._default_spec(strategy))

    def _default_spec(self, strategy: str) -> str:
        """The spec of `strategy`'s model when none is given: the KG's adapter (arkg adapt), else the shipped one."""
        tuned = strategy_info(strategy).tuned_adapter
        return kg_model_spec(self._kg_spec, self._adapted, strategy, tuned)

    @property
    def model_name(self) -> str:
        """The model's name; with none given, the bundled model's and the adapters the strategies get
        (which loads them all: a server reads it at start, so that no run waits for a load)."""
        if isinstance(self._model, ChatModel):
            return self._model.name
        if self._model is not None:
            return self._open(self._model).name
        plain = self._open(default_model_spec(None)).name
        names = {strategy: self.model_for(strategy).name for strategy in REGISTRY}
        # A shipped adapter by its spec name, one of `arkg adapt` by its file's.
        adapters = [
            f"{strategy}: {PurePath(parse_model_spec(self._default_spec(strategy)).adapter or '').stem}"
            for strategy, name in names.items()
            if name != plain
        ]
        if not adapters:
            return plain
        return f"{plain} with the adapter tuned for each strategy ({', '.join(adapters)}; none for the others)"

    def _open(self, spec: str) -> ChatModel:
        with self._lock:
            if spec not in self._by_spec:
                self._by_spec[spec] = open_model(spec, loaded=self._loaded, **self._options)
            return self._by_spec[spec]

    @property
    def default_strategy(self) -> str:
        """The strategy of a question that names none, for this session's model (arkg.agents.default_strategy)."""
        return default_strategy(self._model, self._adapted.best_strategy if self._adapted is not None else None)

    @property
    def default_abstention(self) -> Abstention:
        """The abstention of a question asked with none, for this session's model (arkg.agents.default_abstains)."""
        return Abstention(abstain_unsupported=default_abstains(self._model))

    def ask(
        self,
        question: str | Query,
        strategy: str | None = None,
        settings: BaseModel | Mapping[str, Any] | None = None,
        *,
        sampling: Sampling | None = None,
        budget: Budget | None = None,
        on_event: EventCallback | None = None,
        cancel: threading.Event | None = None,
        abstention: Abstention | None = None,
    ) -> Result:
        """Answer one question (or verify one claim) with a registered strategy and an abstention policy
        (None: the session's default, `default_abstention`)."""
        query = as_query(question)
        strategy = strategy or self.default_strategy
        info = strategy_info(strategy)
        agent = build_strategy(strategy, self.model_for(strategy), self.kg if info.uses_kg else None, settings)
        abstention = self.default_abstention if abstention is None else abstention
        if abstention.active:
            agent = Abstaining(agent, abstention)
        options = RunOptions(
            sampling=sampling or Sampling(max_tokens=info.max_tokens),
            budget=budget or Budget(),
            on_event=on_event,
            cancel=cancel,
        )
        return agent.ask(query, options)

    def close(self) -> None:
        self.kg.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def model_label(name: str) -> str:
    """Which model answered, from its name (ChatModel.name, a trace's `model`), as a person reads it:
    "SmolLM2-135M-Instruct + tuned (the adapter tuned for ark)"; a plain llama.cpp model says so."""
    if not name.startswith("llamacpp:"):
        return name
    base, adapter = model_name_parts(name)
    if adapter is None:
        return f"{base}, no adapter"
    if adapter.startswith(ADAPTER_PREFIX):
        return f"{base} + {adapter} (tuned for this KG by arkg adapt)"
    tuned_for = [info.name for info in REGISTRY.values() if info.tuned_adapter == adapter]
    return f"{base} + {adapter}" + (f" (the adapter tuned for {', '.join(tuned_for)})" if tuned_for else "")
