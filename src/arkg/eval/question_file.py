"""Questions a user writes by hand, evaluated over a KG of theirs (`arkg eval FILE --db STORE`).

    {"id": "q1", "question": "Who directed Kismet?", "answer": "William Dieterle"}
    {"question": "Was Kismet released before 1950?", "answer": true, "entities": ["Kismet"]}
    {"question": "Which films did Ronald Colman star in?", "answers": ["Kismet", "Random Harvest"]}

Entries come as JSON lines, a JSON list (or an object holding one) or CSV (arkg.eval.rows). An answer
is a yes/no (true/false, or the text yes/no/true/false in any case), a number, a name, or a list of names (`answers` is
accepted for the list; in CSV names are separated by `|`). `id` defaults to the entry's line (JSON
lines, CSV) or position (JSON list); `entities` names the question's topic entities. A file without
any answer is a batch of questions: answered, not scored. In a file with answers, a question
without one is skipped (a problem says so), so that every scored question counts the same way. A
number no results file can hold (beyond ±1.8e308, or of thousands of digits) is an error naming the
line, as malformed JSON is.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

from arkg.errors import LoadError
from arkg.eval.dataset import Dataset, Effect, GoldAnswer, Problem, Question
from arkg.eval.rows import Entries, Entry, place

NAME_SEPARATOR = "|"
_BOOLEANS = {"true": True, "yes": True, "false": False, "no": False}
_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
# Members of a question in another published format: such an entry is not a hand-written question.
FOREIGN_FIELDS = frozenset({"graph", "answer_type", "program", "KG Triples"})


class _Unusable(ValueError):
    """A field that makes its question unusable: the field's name and why."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field


class _Refused(ValueError):
    """A value refused as JSON refuses a number of thousands of digits: the file is an error, not a
    question skipped (it would be scored as no gold at all, silently)."""


def is_question_entry(value: object) -> bool:
    return isinstance(value, dict) and "question" in value and not FOREIGN_FIELDS & value.keys()


def load_question_file(path: Path, entries: Entries) -> Dataset:
    """The entries as questions; unusable entries become problems (never errors), each naming its field."""
    dataset = Dataset(path=path, entries=len(entries.items), needs_kg=True)
    text_cells = entries.container == "CSV"
    read: list[tuple[str, str, GoldAnswer | None, tuple[str, ...]]] = []
    seen: set[str] = set()
    for entry in entries.items:
        question_id = _id(entry)
        try:
            if entry.defect is not None:
                raise _Unusable("row", entry.defect)
            if not isinstance(entry.value, dict):
                raise _Unusable("entry", f"expected an object with a question, found {type(entry.value).__name__}")
            text = _question(entry.value)
            answer = _answer(entry.value, text_cells)
            entities = _names(entry.value.get("entities"), "entities", text_cells) or ()
        except _Unusable as unusable:
            dataset.problems.append(Problem(question_id, unusable.field, str(unusable), Effect.QUESTION_SKIPPED))
            continue
        except _Refused as refused:
            raise LoadError(path, place(path, entries, entry), str(refused)) from None
        if question_id in seen:
            dataset.problems.append(Problem(question_id, "id", "duplicate id; this later entry is ignored", Effect.QUESTION_SKIPPED))
            continue
        seen.add(question_id)
        read.append((question_id, text, answer, entities))
    answered = any(answer is not None for _, _, answer, _ in read)
    for question_id, text, answer, entities in read:
        if answered and answer is None:
            reason = "no answer, where other questions of the file have one (a file without any answer is not scored)"
            dataset.problems.append(Problem(question_id, "answer", reason, Effect.QUESTION_SKIPPED))
            continue
        dataset.questions.append(Question(question_id, text, answer, dict.fromkeys(entities, ""), (), ()))
    return dataset


def _id(entry: Entry) -> str:
    value = entry.value.get("id") if isinstance(entry.value, dict) else None
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        return str(entry.number)
    return str(value).strip()


def _question(entry: dict[str, Any]) -> str:
    text = entry.get("question")
    if text is not None and not isinstance(text, str):
        raise _Unusable("question", f"not text (found {text!r:.60})")
    if not text or not text.strip():
        raise _Unusable("question", "missing or empty")
    return text.strip()


def _answer(entry: dict[str, Any], text_cells: bool) -> GoldAnswer | None:
    single, names = (_present(entry.get(field)) for field in ("answer", "answers"))
    if single is not None and names is not None:
        raise _Unusable("answer", "both `answer` and `answers` are given; keep one")
    if names is not None:
        return _names(names, "answers", text_cells)
    if single is None:
        return None
    if text_cells:
        return _cell_answer(single)
    if isinstance(single, float):
        return _finite(single)
    if isinstance(single, (bool, int)):
        return single
    if isinstance(single, str) and single.strip().casefold() in _BOOLEANS:
        # As in CSV: "yes" is a yes/no gold (an entity named Yes is written `"answers": ["Yes"]`).
        return _BOOLEANS[single.strip().casefold()]
    return _names(single, "answer", text_cells=False)


def _present(value: Any) -> Any:
    """None for an absent value, also one written as blank text."""
    return None if isinstance(value, str) and not value.strip() else value


def _cell_answer(cell: str) -> GoldAnswer:
    """A CSV answer: yes/no, a number, or names separated by `|`."""
    folded = cell.casefold()
    if folded in _BOOLEANS:
        return _BOOLEANS[folded]
    if _INTEGER.fullmatch(cell):
        try:
            return int(cell)
        except ValueError:  # more digits than Python converts (sys.set_int_max_str_digits)
            digits = sys.get_int_max_str_digits()
            raise _Refused(f"the answer is a number with more than {digits:,} digits; arkg reads none that long") from None
    if _DECIMAL.fullmatch(cell):
        return _finite(float(cell))
    return _names(cell, "answer", text_cells=True)


def _finite(number: float) -> float:
    """The number, unless it is too large to hold: JSON and CSV read 1e999 as infinity, which a results
    file writes as null (no gold answer)."""
    if not math.isfinite(number):
        sign = "-" if number < 0 else ""
        raise _Refused(f"the answer is a number too large to hold (it reads as {sign}infinity); write one within ±1.8e308")
    return number


def _names(value: Any, field: str, text_cells: bool) -> tuple[str, ...] | None:
    """A name or a list of names, each once, in order; None when absent."""
    if value is None:
        return None
    if isinstance(value, str):
        items = value.split(NAME_SEPARATOR) if text_cells else [value]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = value
    else:
        raise _Unusable(field, f"expected a name or a list of names, found {value!r:.60}")
    names = tuple(dict.fromkeys(name.strip() for name in items if name.strip()))
    if not names:
        raise _Unusable(field, "holds no name")
    return names
