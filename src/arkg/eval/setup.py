"""Everything an evaluation needs, assembled from what a user types: data set, model, KG, strategy."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from pydantic import ValidationError

from arkg.agents import Strategy, build_strategy, strategy_info, strategy_settings
from arkg.agents.abstention import Abstaining, Abstention
from arkg.errors import ArkgError, LoadError
from arkg.eval.dataset import Dataset, Question, build_graph
from arkg.eval.datasets import open_dataset
from arkg.eval.kg_names import check_names
from arkg.eval.question_graphs import Perturbation, QuestionSetup, SnapshotCache
from arkg.eval.results import GOLD_KG, NO_KG, RunConfig
from arkg.graph import open_graph
from arkg.graph.bolt import redact_spec
from arkg.graph.model import KnowledgeGraph
from arkg.graph.sparql import SparqlGraph, fetch_snapshot
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.llm.base import Sampling
from arkg.llm.adapted import kg_model_spec, read_adapted
from arkg.llm.spec import default_model_spec, open_model, parse_model_spec

# RunConfig.kg when every question runs on a graph of its own.
PER_QUESTION_KG = "per-question"
# RunConfig.kg prefix for a KG file given with --kb (loaded into a store in memory for the run).
KB_FILE_KG = "kb:"


@dataclass
class EvalPlan:
    dataset: Dataset
    questions: list[Question]
    config: RunConfig
    setup: QuestionSetup
    concurrency: int
    kg: KnowledgeGraph | None
    # Setting it stops the run at the next model call (the strategies check it before each call).
    stop: threading.Event
    notices: list[str] = field(default_factory=list)

    def prefetch(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Fetch the per-question snapshots not cached yet (before the run, so that questions never wait
        on the endpoint); returns how many were fetched. Interrupted, it keeps every finished one."""
        cache = self.setup.snapshots
        if cache is None:
            return 0
        missing = [question for question in self.questions if not cache.path(question).is_file()]
        for done, question in enumerate(missing, 1):
            cache.ensure(question)
            if progress is not None:
                progress(done, len(missing))
        return len(missing)

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
    kb: Path | None = None,
    neighbourhoods: Path | None = None,
    perturbation: Perturbation = Perturbation.NONE,
    ids: Sequence[str] = (),
    limit: int | None = None,
    concurrency: int = 1,
    cache: bool = True,
    timeout: float | None = None,
    retries: int | None = None,
    abstention: Abstention | None = None,
) -> EvalPlan:
    """Load the data set and model, decide the KG each question runs on, and build the strategy.

    KG: the questions' own graphs when the data set has them (ARK-V1 per-question files); else, with
    `neighbourhoods`, one snapshot per question of the 1-hop neighbourhood of its entities (fetched
    from the SPARQL endpoint `db` where not cached yet); else the store or endpoint `db`; else the
    union of the data set's gold triples. `kb`, a KG file of any format `arkg kg load` reads, is loaded
    into a store in memory and used as `db` would be. A data set that holds no KG (MetaQA, a
    hand-written file) needs one of these; its names are checked against a SQLite KG before the run
    (arkg.eval.kg_names). `perturbation` alters each question's KG (arkg.eval.question_graphs).
    timeout (seconds per model request) and retries go to the model's backend (see open_model).
    """
    try:
        Sampling(temperature=temperature)
    except ValidationError as error:
        raise ArkgError(f"temperature {temperature}: {error.errors()[0]['msg']}") from None
    info = strategy_info(strategy)
    if model_spec is None:  # no model named: the bundled one with the KG's adapter for the strategy, else the shipped one
        model_spec = kg_model_spec(db, read_adapted(db), strategy, info.tuned_adapter) if db is not None else default_model_spec(info.tuned_adapter)
    if perturbation is not Perturbation.NONE and not info.uses_kg:
        raise ArkgError(f"--perturb {perturbation.value}: strategy {strategy!r} reads no KG, so altering the KG changes nothing")
    typed_settings = strategy_settings(strategy, settings)
    dataset = open_dataset(dataset_path)
    questions = dataset.select(ids, limit)
    notices = []
    if parse_model_spec(model_spec).backend == "llamacpp" and concurrency > 1:
        notices.append("the in-process llama.cpp model answers one call at a time: running with concurrency 1")
        concurrency = 1
    # The KG before the model: a missing or bad KG is reported without waiting for a model to load.
    kg, snapshots, kg_label = _knowledge_graph(dataset, questions, info.uses_kg, db, kb, neighbourhoods)
    try:
        if dataset.needs_kg and (db or kb):
            questions = _checked_names(dataset, questions, kg, db, kb)
        model = open_model(model_spec, cache=None if cache else False, timeout=timeout, retries=retries)
    except BaseException:
        if kg is not None:
            kg.close()
        raise

    def build(graph: KnowledgeGraph | None) -> Strategy:
        agent = build_strategy(strategy, model, graph, typed_settings)
        return Abstaining(agent, abstention) if abstention is not None and abstention.active else agent

    setup = QuestionSetup(
        build,
        shared=kg,
        base=dataset.triples if kg_label == GOLD_KG else None,
        snapshots=snapshots,
        perturbation=perturbation,
        uses_kg=info.uses_kg,
    )
    config = RunConfig(
        dataset=dataset_path.name,
        dataset_sha256=hashlib.sha256(dataset_path.read_bytes()).hexdigest(),
        kg=kg_label,
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
        perturbation=perturbation.value,
    )
    return EvalPlan(dataset, questions, config, setup, concurrency, kg, threading.Event(), notices)


def _knowledge_graph(
    dataset: Dataset,
    questions: list[Question],
    uses_kg: bool,
    db: str | None,
    kb: Path | None,
    neighbourhoods: Path | None,
) -> tuple[KnowledgeGraph | None, SnapshotCache | None, str]:
    """The shared KG (if any), the snapshot cache (if any), and how the results file names the KG."""
    if db and kb:
        raise ArkgError(f"--db {db} and --kb {kb} both name a KG: give one")
    if dataset.needs_kg and not (db or kb or neighbourhoods):
        # Also for a strategy that reads no KG: the gold names are checked (and mended) against it.
        raise ArkgError(
            f"{dataset.path} holds no KG: pass --db with a store holding its entities (built by "
            "`arkg kg load`), or --kb with a KG file"
        )
    if not uses_kg:
        return None, None, NO_KG
    if any(question.graph is not None for question in questions):
        if db or kb or neighbourhoods:
            raise ArkgError(f"{dataset.path} brings a graph for each question: --db, --kb and --neighbourhoods do not apply")
        return None, None, PER_QUESTION_KG
    if kb is not None:
        if neighbourhoods is not None:
            raise ArkgError("--neighbourhoods fetches from a SPARQL endpoint given with --db, not from --kb")
        return _load_kb(kb), None, f"{KB_FILE_KG}{kb}"
    if neighbourhoods is not None:
        fetch = None
        if db:
            endpoint = open_graph(db)
            if not isinstance(endpoint, SparqlGraph):
                endpoint.close()
                raise ArkgError(f"--neighbourhoods fetches from a SPARQL endpoint: --db {db} is not one (wikidata:URL or rdf:URL)")
            fetch = lambda seeds, target: fetch_snapshot(endpoint, seeds, 1, target)  # noqa: E731
        return None, SnapshotCache(neighbourhoods, fetch), f"{PER_QUESTION_KG}:{neighbourhoods}"
    if db:
        return open_graph(db), None, redact_spec(db)  # the results file never holds a password
    return build_graph(dataset), None, GOLD_KG


def _checked_names(
    dataset: Dataset, questions: list[Question], kg: KnowledgeGraph | None, db: str | None, kb: Path | None
) -> list[Question]:
    """The questions with their gold names checked against the user's KG (arkg.eval.kg_names), opened
    for this alone when the strategy reads none, so that every strategy is scored against the same
    gold. Only a SQLite KG answers these look-ups at once; an endpoint would be asked once per name."""
    graph = kg if kg is not None else _load_kb(kb) if kb is not None else open_graph(db, read_only=True)
    try:
        return check_names(dataset, questions, graph) if isinstance(graph, SQLiteGraph) else questions
    finally:
        if graph is not kg:
            graph.close()


def _load_kb(kb: Path) -> SQLiteGraph:
    """The KG file in a store in memory: loaded per run, as a store file would go stale beside an edited KG file."""
    if not kb.is_file():
        raise LoadError(kb, None, "no such file" if not kb.exists() else "not a file")
    graph = SQLiteGraph()
    try:
        graph.load(kb)
    except BaseException:
        graph.close()
        raise
    return graph
