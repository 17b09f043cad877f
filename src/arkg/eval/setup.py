"""Everything an evaluation needs, assembled from what a user types: data set, model, KG, strategy."""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from pydantic import ValidationError

from arkg.agents import Strategy, build_strategy, strategy_info, strategy_settings
from arkg.agents.abstention import Abstaining, Abstention
from arkg.errors import ArkgError
from arkg.eval.colota import Dataset, Question, build_graph, load_dataset
from arkg.eval.results import GOLD_KG, NO_KG, RunConfig
from arkg.graph import open_graph
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import Sampling
from arkg.llm.spec import open_model, parse_model_spec


@dataclass
class EvalPlan:
    dataset: Dataset
    questions: list[Question]
    config: RunConfig
    strategy: Strategy
    concurrency: int
    kg: KnowledgeGraph | None
    # Setting it stops the run at the next model call (the strategies check it before each call).
    stop: threading.Event
    notices: list[str] = field(default_factory=list)

    def close(self) -> None:
        if self.kg is not None:
            self.kg.close()


def plan_evaluation(
    dataset_path: Path,
    strategy: str,
    model_spec: str | None,
    *,
    temperature: float = 0.0,
    seed: int = 0,
    max_tokens: int | None = None,
    settings: Mapping[str, Any] | None = None,
    db: str | None = None,
    ids: Sequence[str] = (),
    limit: int | None = None,
    concurrency: int = 1,
    cache: bool = True,
    timeout: float | None = None,
    retries: int | None = None,
    abstention: Abstention | None = None,
) -> EvalPlan:
    """Load the data set and model, open the KG (the data set's gold triples unless `db` names a
    store) and build the registered strategy with `settings`; the in-process llama.cpp model runs one
    question at a time.

    timeout (seconds per model request) and retries go to the model's backend (see open_model).
    """
    try:
        Sampling(temperature=temperature)
    except ValidationError as error:
        raise ArkgError(f"temperature {temperature}: {error.errors()[0]['msg']}") from None
    info = strategy_info(strategy)
    typed_settings = strategy_settings(strategy, settings)
    dataset = load_dataset(dataset_path)
    questions = dataset.select(ids, limit)
    notices = []
    if parse_model_spec(model_spec).backend == "llamacpp" and concurrency > 1:
        notices.append("the in-process llama.cpp model answers one call at a time: running with concurrency 1")
        concurrency = 1
    model = open_model(model_spec, cache=None if cache else False, timeout=timeout, retries=retries)
    kg: KnowledgeGraph | None = None
    if info.uses_kg:
        kg = open_graph(db) if db else build_graph(dataset)
    config = RunConfig(
        dataset=dataset_path.name,
        dataset_sha256=hashlib.sha256(dataset_path.read_bytes()).hexdigest(),
        kg=(db or GOLD_KG) if info.uses_kg else NO_KG,
        strategy=strategy,
        model=model.name,
        model_identity=getattr(model, "identity", model.name),
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens or info.max_tokens,
        settings={
            **typed_settings.model_dump(mode="json"),
            **({"abstention": abstention.model_dump(mode="json")} if abstention and abstention.active else {}),
        },
    )
    agent = build_strategy(strategy, model, kg, typed_settings)
    if abstention is not None and abstention.active:
        agent = Abstaining(agent, abstention)
    return EvalPlan(dataset, questions, config, agent, concurrency, kg, threading.Event(), notices)
