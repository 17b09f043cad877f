"""One strategy event as the page shows it: its text in the step list and the part of the graph it touches.

The text is the block the strategy's view makes of the event, the same `arkg ask` draws, so terminal
and page speak alike. The graph is read from what events carry, whatever the strategy: every object
with `head`, `relation` and `tail` found anywhere in an event is an edge (TripleRecords of every
strategy); a `cited_keys` list highlights the edges shown earlier under those keys; an `entities`
list names entities; the view says which anchor the event chose and which relation it followed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from arkg.agents.strategy import REGISTRY, read_trace
from arkg.agents.trace import Trace
from arkg.agents.view import Progress, View
from arkg.errors import ArkgError

# Fields that hold no graph: a model call's prompt and reply quote facts as text, not as edges.
_SKIPPED_FIELDS = frozenset({"call", "calls", "settings"})


def edge_id(triple: Mapping[str, Any]) -> str:
    """One id per distinct edge: parallel edges, or the same edge with other props, differ."""
    identity = [triple["head"], triple["relation"], triple["tail"], triple.get("props") or {}]
    return hashlib.sha1(json.dumps(identity, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def edge(triple: Mapping[str, Any]) -> dict[str, Any]:
    """A triple (a TripleRecord's or a Result's dict) as the page draws it."""
    return {
        "id": edge_id(triple),
        "key": triple.get("key"),
        "head": triple["head"],
        "relation": triple["relation"],
        "tail": triple["tail"],
        "props": dict(triple.get("props") or {}),
        "incoming": bool(triple.get("incoming", False)),
    }


class StepMaker:
    """Turns the events of one run, in order, into steps (keys cited late refer to triples shown early)."""

    def __init__(self, view: View | None = None) -> None:
        self.view = view or View()
        self.count = 0
        self.progress = Progress()
        self._keys: dict[str, str] = {}  # triple key (T1, ...) -> edge id, for the whole run

    def step(self, event: Any) -> dict[str, Any]:
        data = event.model_dump(mode="json") if isinstance(event, BaseModel) else dict(event)
        triples = [edge(found) for found in _triples_in(data)]
        for item in triples:
            if item["key"]:
                self._keys[item["key"]] = item["id"]
        cited = [self._keys[key] for key in data.get("cited_keys") or [] if key in self._keys]
        focus = self.view.focus_of(event)
        names = [name for name in data.get("entities") or [] if isinstance(name, str)]
        self.count += 1
        self.progress.add(event)
        return {
            "index": self.count,
            # The run so far, as `arkg ask`'s status line counts it: reasoning steps are not events.
            "reasoning_steps": self.progress.steps,
            "model_calls": self.progress.calls,
            "kind": str(data.get("kind", type(event).__name__)),
            "text": self.view.block(event).text,
            "event": data,
            "graph": {
                "entities": list(dict.fromkeys([*names, *([focus.anchor] if focus.anchor else [])])),
                "anchor": focus.anchor,
                "relation": {"entity": focus.relation[0], "relation": focus.relation[1]} if focus.relation else None,
                "triples": triples,
                "cited": list(dict.fromkeys(cited)),
            },
        }


def saved_trace(strategy: str, trace: Any) -> Trace | dict[str, Any] | None:
    """A saved run's trace as its strategy's trace type (a trace of a strategy not registered here stays
    a dict, read generically); a trace its strategy cannot read is an ArkgError saying why."""
    if not isinstance(trace, Mapping):
        return None
    if strategy not in REGISTRY:
        return dict(trace)
    try:
        return read_trace(strategy, trace)
    except ValidationError as error:
        raise ArkgError(f"the trace does not read as a {strategy} trace ({error.error_count()} problems: {error.errors()[0]['msg']})") from None


def view_of(strategy: str | None) -> View:
    return REGISTRY[strategy].view if strategy in REGISTRY else View()


def result_view(result: Mapping[str, Any]) -> dict[str, Any]:
    """What the page shows of a finished run: the answer, what it rests on and, where its cited facts do
    not support it, why not (as `arkg ask` prints them), its explanation and the cited edges."""
    cited = [edge(triple) for triple in result.get("cited_triples") or []]
    return {
        "strategy": result.get("strategy"),
        "question": result.get("question"),
        "claim": result.get("claim", False),
        "answer": result.get("answer"),
        "basis": result.get("basis"),
        "support": result.get("support"),
        "explanation": result.get("explanation", ""),
        "stop_reason": result.get("stop_reason", ""),
        "cited": cited,
        "computed": _answer_notes(result),
        "usage": result.get("usage") or {},
    }


def _answer_notes(result: Mapping[str, Any]) -> list[str]:
    """What the final answer step was shown beside the facts, as the strategy's view says (e.g. values
    computed from the cited facts)."""
    strategy = str(result.get("strategy"))
    try:
        trace = saved_trace(strategy, result.get("trace"))
    except ArkgError:
        return []
    return view_of(strategy).notes(trace) if isinstance(trace, Trace) else []


def _triples_in(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        if all(isinstance(value.get(name), str) for name in ("head", "relation", "tail")):
            yield value
            return
        for name, item in value.items():
            if name not in _SKIPPED_FIELDS:
                yield from _triples_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _triples_in(item)
