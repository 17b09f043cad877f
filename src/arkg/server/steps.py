"""One strategy event as the page shows it: its text in the step list and the part of the graph it touches.

The graph is read from what events carry, whatever the strategy: every object with `head`,
`relation` and `tail` found anywhere in an event is an edge (TripleRecords of ARK, KAPING, R³,
KG-Agent, ...); a `cited_keys` list highlights the edges shown earlier under those keys; an `anchor`
or an `entities` list names entities. ARK's events add which anchor was chosen and which relation
was followed. The text is the one `arkg ask` prints, so terminal and page speak alike.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError
from rich.console import Console

from arkg.cli.render import describe

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

    def __init__(self) -> None:
        self.count = 0
        self._keys: dict[str, str] = {}  # triple key (T1, ...) -> edge id, for the whole run

    def step(self, event: Any) -> dict[str, Any]:
        data = event.model_dump(mode="json") if isinstance(event, BaseModel) else dict(event)
        triples = [edge(found) for found in _triples_in(data)]
        for item in triples:
            if item["key"]:
                self._keys[item["key"]] = item["id"]
        cited = [self._keys[key] for key in data.get("cited_keys") or [] if key in self._keys]
        self.count += 1
        return {
            "index": self.count,
            "kind": str(data.get("kind", type(event).__name__)),
            "text": step_text(event),
            "event": data,
            "graph": {
                "entities": _entities(data),
                "anchor": _anchor(data),
                "relation": _relation_followed(data),
                "triples": triples,
                "cited": list(dict.fromkeys(cited)),
            },
        }


def result_view(result: Mapping[str, Any]) -> dict[str, Any]:
    """What the page shows of a finished run: the answer, its explanation and the cited edges."""
    cited = [edge(triple) for triple in result.get("cited_triples") or []]
    return {
        "strategy": result.get("strategy"),
        "question": result.get("question"),
        "claim": result.get("claim", False),
        "answer": result.get("answer"),
        "explanation": result.get("explanation", ""),
        "stop_reason": result.get("stop_reason", ""),
        "cited": cited,
        "computed": _computed(result.get("trace")),
        "usage": result.get("usage") or {},
    }


def _computed(trace: Any) -> list[str]:
    """The lines computed from the cited facts that the final answer step was shown (ARK's compare_values)."""
    events = trace.get("events") if isinstance(trace, Mapping) else None
    return [
        str(line.get("text", ""))
        for event in events or []
        if isinstance(event, Mapping) and event.get("kind") == "answer"
        for line in event.get("computed") or []
        if isinstance(line, Mapping)
    ]


def typed_event(data: Mapping[str, Any]) -> Any:
    """An event read back from a trace file as its strategy's event type (so it reads as it did live),
    or the dict itself when no loaded event type fits it: one whose `kind` is the same, whose fields
    cover the event's and that validates it."""
    for kind in _event_types(data.get("kind")):
        fields = set(kind.model_fields) | set(kind.model_computed_fields)
        if set(data) <= fields:
            try:
                return kind.model_validate(data)
            except ValidationError:
                continue
    return dict(data)


def _event_types(kind: Any) -> list[type[BaseModel]]:
    found, pending = [], list(BaseModel.__subclasses__())
    while pending:
        candidate = pending.pop()
        pending.extend(candidate.__subclasses__())
        field = candidate.model_fields.get("kind")
        if field is not None and field.default == kind and candidate.__module__.startswith("arkg.agents"):
            found.append(candidate)
    return found


def step_text(event: Any) -> str:
    """The lines `arkg ask` prints for this event, without colours."""
    console = Console(file=io.StringIO(), width=160, color_system=None, highlight=False, soft_wrap=True)
    console.print(describe(event))
    return console.file.getvalue().rstrip()  # type: ignore[attr-defined]


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


def _entities(data: Mapping[str, Any]) -> list[str]:
    names = [name for name in data.get("entities") or [] if isinstance(name, str)]
    anchor = _anchor(data)
    return list(dict.fromkeys([*names, *([anchor] if anchor else [])]))


def _anchor(data: Mapping[str, Any]) -> str | None:
    if data.get("kind") == "anchor" and "proposed" in data:  # ARK's anchor attempt
        return data["proposed"] if data.get("valid") else None
    anchor = data.get("anchor")
    return anchor if isinstance(anchor, str) and anchor else None


def _relation_followed(data: Mapping[str, Any]) -> dict[str, str] | None:
    if data.get("kind") == "relation" and "outcome" in data:  # ARK's relation attempt
        if data["outcome"] != "valid":
            return None
        return {"entity": data["anchor"], "relation": data["proposed"]}
    anchor, relation = data.get("anchor"), data.get("relation")
    if isinstance(anchor, str) and isinstance(relation, str):
        return {"entity": anchor, "relation": relation}
    return None
