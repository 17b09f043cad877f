"""Whether an answer is right: yes/no answers exactly, numbers by value, names as a set of names.

A yes/no question answered with text (or a number) has no definite answer. An open question is
answered correctly when the answer names exactly the gold entities (each written the KG's way or
close to it: case, accents and small typos aside; "Paris, Lyon" or "Paris and Lyon" name two, and in
a list written with semicolons a name keeps its comma: "Tripoli, Libya; Abuja" names two), or gives the
gold number.
"""

from __future__ import annotations

import re

from arkg.agents.strategy import Answer
from arkg.eval.dataset import GoldAnswer
from arkg.eval.evidence import same_value

_LIST_SEPARATOR = re.compile(r"\s*(?:,|;|\band\b)\s*", re.IGNORECASE)
_SEMICOLON = re.compile(r"\s*;\s*")


def definite(answer: Answer, gold: GoldAnswer) -> bool:
    """Whether the answer is an answer at all for this kind of question (None and wrong kinds are not)."""
    if answer is None:
        return False
    return isinstance(answer, bool) if isinstance(gold, bool) else not isinstance(answer, bool)


def is_correct(answer: Answer, gold: GoldAnswer) -> bool:
    if not definite(answer, gold):
        return False
    if isinstance(gold, bool):
        return answer is gold
    text = str(answer).strip()
    if isinstance(gold, (int, float)):
        return same_value(text, str(gold))
    readings = [_names(_LIST_SEPARATOR, text)]
    if ";" in text:  # a list written with semicolons keeps a name's comma or "and" ("Tripoli, Libya; Abuja")
        readings.append(_names(_SEMICOLON, text))
    if len(gold) == 1:  # a single gold name may itself hold a comma or "and"
        readings.append([text])
    return any(_same_names(named, gold) for named in readings)


def _names(separator: re.Pattern[str], text: str) -> list[str]:
    """The names a list answer gives; a name given twice ("Senegal, Senegal") names one entity."""
    return list({name.casefold(): name for name in separator.split(text) if name}.values())


def _same_names(named: list[str], gold: tuple[str, ...]) -> bool:
    return len(named) == len(gold) and all(any(same_value(name, g) for name in named) for g in gold)


def outcome(answer: Answer, correct: bool, gold: GoldAnswer | list[str]) -> bool | None:
    """A recorded answer as the paper's metrics count it: None when no definite answer, else whether
    it is right. Scoring these against a gold of True everywhere gives answer rate and accuracy for
    every kind of question, and the same per-question agreement as the answers themselves."""
    return correct if definite(answer, gold_answer(gold)) else None


def gold_answer(gold: GoldAnswer | list[str]) -> GoldAnswer:
    """A gold answer as read back from a results file (JSON has lists, not tuples)."""
    return tuple(gold) if isinstance(gold, list) else gold
