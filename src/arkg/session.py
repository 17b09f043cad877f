"""One knowledge graph and one model, opened once and asked any number of questions.

This is the library call behind `arkg ask` (and what a server keeps open between requests):

    with Session(db=None, model="llamacpp") as session:          # the sample KG, the bundled model
        result = session.ask("Was Marie Curie born in Warsaw?", strategy="ark", on_event=print)

Events stream to `on_event` as they happen; nothing here draws on a screen.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel

from arkg.agents import Budget, Query, Result, RunOptions, as_query, build_strategy, strategy_info
from arkg.agents.abstention import Abstaining, Abstention
from arkg.agents.run import EventCallback
from arkg.graph import open_graph
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import ChatModel, Sampling
from arkg.llm.spec import open_model


class Session:
    """A KG (`db`: a graph spec, see arkg.graph.open_graph) and a model (a spec string or a ChatModel)."""

    def __init__(
        self,
        db: str | Path | KnowledgeGraph | None = None,
        model: str | ChatModel | None = None,
        *,
        cache: bool | str | Path = True,
        timeout: float | None = None,
        retries: int | None = None,
    ) -> None:
        self.kg = db if isinstance(db, KnowledgeGraph) else open_graph(db)
        try:
            self.model = (
                model
                if isinstance(model, ChatModel)
                else open_model(model, cache=cache, timeout=timeout, retries=retries)
            )
        except BaseException:
            self.kg.close()
            raise

    def ask(
        self,
        question: str | Query,
        strategy: str = "ark",
        settings: BaseModel | Mapping[str, Any] | None = None,
        *,
        sampling: Sampling | None = None,
        budget: Budget | None = None,
        on_event: EventCallback | None = None,
        cancel: threading.Event | None = None,
        abstention: Abstention | None = None,
    ) -> Result:
        """Answer one question (or verify one claim) with a registered strategy (and an abstention policy)."""
        query = as_query(question)
        info = strategy_info(strategy)
        agent = build_strategy(strategy, self.model, self.kg if info.uses_kg else None, settings)
        if abstention is not None and abstention.active:
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
