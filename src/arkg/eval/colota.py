"""CoLoTa / CR-LT-KGQA data sets as published: questions, gold triples, and what could not be used.

    dataset = load_dataset("CR-LT-QA.json")
    print(dataset.summary())          # counts, and every entry or item that was not used, with why
    kg = build_graph(dataset)         # the union of all gold triples, in an in-memory SQLite store

Any file with the same schema (e.g. a claim-verification subset with ids C1...) loads unchanged.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, StrictBool, ValidationError

from arkg.agents.question import is_claim
from arkg.eval.dataset import Dataset, Effect, Problem, Question, build_graph
from arkg.errors import LoadError
from arkg.graph.loaders import read_json
from arkg.eval.triples_text import ItemError, RawItem, Resolver, split_items
from arkg.graph.model import Triple

TRIPLES_FIELD = "KG Triples"


class _Entry(BaseModel):
    """The fields of one published entry that arkg uses (others, e.g. the reasoning steps, are ignored)."""

    id: str
    query: str = Field(min_length=1)
    answer: StrictBool
    entities: dict[str, str] = Field(alias="KG Entities")
    triples: str = Field(alias=TRIPLES_FIELD)
    strategies: list[str] = Field(alias="Reasoning Strategy")


def load_dataset(path: str | Path) -> Dataset:
    """Read a CoLoTa-format JSON file. Unusable entries and items are listed in `problems`, never dropped silently.

    Raises LoadError when the file itself is unreadable or not a JSON list of objects.
    """
    path = Path(path)
    entries = _read_entries(path)
    dataset = Dataset(path=path, entries=len(entries))
    raw_items: dict[str, list[RawItem]] = {}
    valid: dict[str, _Entry] = {}
    for index, entry in enumerate(entries):
        entry_id = str(entry.get("id") or f"entry #{index + 1}")
        if entry_id in raw_items:
            dataset.problems.append(Problem(entry_id, "id", "duplicate id; this later entry is ignored", Effect.QUESTION_SKIPPED))
            continue
        raw_items[entry_id] = _split_triples(entry_id, entry.get(TRIPLES_FIELD), dataset.problems)
        try:
            valid[entry_id] = _Entry.model_validate(entry)
        except ValidationError as error:
            dataset.problems.extend(_field_problems(entry_id, entry, error))

    all_entities = [name for entry in valid.values() for name in entry.entities]
    resolver = Resolver((item for items in raw_items.values() for item in items), all_entities)
    unique: dict[tuple, Triple] = {}
    for entry_id, items in raw_items.items():
        entry = valid.get(entry_id)
        triples: list[Triple] = []
        for item in items:
            try:
                triples += resolver.resolve(item, entry.entities if entry else ())
            except ItemError as error:
                dataset.problems.append(Problem(entry_id, TRIPLES_FIELD, f"item ({item.text}): {error}", Effect.ITEM_SKIPPED))
                continue
            dataset.items_parsed += 1
        for triple in triples:
            unique.setdefault(_triple_key(triple), triple)
        if entry is None:
            continue
        if not triples:
            dataset.problems.append(Problem(entry_id, TRIPLES_FIELD, "no parseable triple", Effect.QUESTION_SKIPPED))
            continue
        dataset.problems.extend(_missing_entities(entry_id, entry, triples))
        dataset.questions.append(
            Question(
                entry_id,
                entry.query,
                entry.answer,
                dict(entry.entities),
                tuple(entry.strategies),
                tuple(triples),
                claim=is_claim(entry.query),
            )
        )
    dataset.triples = list(unique.values())
    return dataset


def _read_entries(path: Path) -> list[dict]:
    # The loaders' strict reader: deep nesting, huge integers, duplicate keys and NaN are clear errors.
    try:
        data = read_json(path, item="entry")
    except OSError as error:
        raise LoadError(path, None, f"cannot read the file: {error.strerror or error}") from error
    if not isinstance(data, list):
        raise LoadError(path, None, f"expected a JSON list of entries, found {type(data).__name__}")
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise LoadError(path, f"entry #{index + 1}", f"expected a JSON object, found {type(entry).__name__}")
    return data


def _split_triples(entry_id: str, text: object, problems: list[Problem]) -> list[RawItem]:
    if not isinstance(text, str):
        return []  # reported with the entry's other field problems
    split = split_items(text)
    problems.extend(Problem(entry_id, TRIPLES_FIELD, error, Effect.ITEM_SKIPPED) for error in split.errors)
    return split.items


def _field_problems(entry_id: str, entry: dict, error: ValidationError) -> list[Problem]:
    problems = []
    for detail in error.errors():
        name = str(detail["loc"][0]) if detail["loc"] else "entry"
        value = entry.get(name)
        if detail["type"] == "missing":
            reason = "field is missing"
        elif name == "answer" and value == entry.get("query"):
            reason = "holds the question text instead of true/false"
        else:
            reason = f"{detail['msg']} (found {value!r:.60})"
        problems.append(Problem(entry_id, name, reason, Effect.QUESTION_SKIPPED))
    return problems


def _missing_entities(entry_id: str, entry: _Entry, triples: list[Triple]) -> list[Problem]:
    """Question entities that no gold triple mentions (often a spelling difference the agent must bridge)."""
    mentioned = {name for triple in triples for name in (triple.head, triple.tail, *map(str, triple.props.values()))}
    return [
        Problem(entry_id, "KG Entities", f"{name!r} occurs in none of the entry's triples", Effect.NOTE)
        for name in entry.entities
        if name not in mentioned
    ]


def _triple_key(triple: Triple) -> tuple:
    return triple.head, triple.relation, triple.tail, tuple(sorted(triple.props.items()))


__all__ = ["TRIPLES_FIELD", "Dataset", "Effect", "Problem", "Question", "build_graph", "load_dataset"]
