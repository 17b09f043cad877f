"""Whether an answer is right: yes/no answers exactly, numbers by value, names as a set of names.

A yes/no question answered with text (or a number) has no definite answer. An open question's answer
is read as a list of names (arkg.graph.matching.name_readings: "Paris, Lyon" or "Paris and Lyon" name
two, in a list written with semicolons a name keeps its comma, and the whole text may be one name);
of those readings the one that pairs most names with gold names is scored. A name matches a gold
name written the KG's way or close to it (case, accents and small typos aside), and each pairs with
at most one. The answer is correct when its names and the gold names pair up exactly. A number is
read whole and compared by value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arkg.agents.strategy import Answer
from arkg.eval.dataset import GoldAnswer
from arkg.graph.matching import name_readings, same_value


@dataclass(frozen=True)
class NameMatch:
    """An open answer's names against the gold names."""

    named: tuple[str, ...]  # in the answer's order; a name given twice counts once
    gold: tuple[str, ...]
    matched: int  # names paired one to one with gold names
    first_is_gold: bool  # the first name given matches a gold name

    @property
    def exact(self) -> bool:
        return self.matched == len(self.named) == len(self.gold)


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
    return match_names(answer, gold).exact


def match_names(answer: Answer | Sequence[str], gold: GoldAnswer) -> NameMatch:
    """The answer's names paired with the gold names of an open question (names or a number).

    No definite answer names nothing. A list or tuple of names is taken as given; a string is read
    the way (of name_readings) that pairs the most names relative to both lists' lengths (the highest
    F1), the earlier reading on a tie."""
    if isinstance(gold, bool):
        raise ValueError("a yes/no question has no gold names")
    gold_names = (str(gold),) if isinstance(gold, (int, float)) else tuple(gold)
    if isinstance(answer, (list, tuple)):
        readings = [list(dict.fromkeys(answer))]
    elif not definite(answer, gold):
        readings = [[]]
    elif isinstance(gold, (int, float)):
        readings = [[str(answer).strip()]]  # "59,449" is one number, not a list
    else:
        readings = name_readings(str(answer))
    matches = [
        NameMatch(tuple(named), gold_names, _paired(named, gold_names), bool(named) and _is_gold(named[0], gold_names))
        for named in readings
    ]
    return max(matches, key=lambda match: 2 * match.matched / max(1, len(match.named) + len(gold_names)))


def _is_gold(name: str, gold: Sequence[str]) -> bool:
    return any(same_value(name, g) for g in gold)


def _paired(named: Sequence[str], gold: Sequence[str]) -> int:
    """The most names that can be paired one to one with gold names (augmenting paths: a fuzzy match
    must not let one answer stand for two gold names, nor two spellings of one name count twice)."""
    matches = [[j for j, g in enumerate(gold) if same_value(name, g)] for name in named]
    partner: dict[int, int] = {}  # gold index -> answer index

    def pair(i: int, tried: set[int]) -> bool:
        for j in matches[i]:
            if j not in tried:
                tried.add(j)
                if j not in partner or pair(partner[j], tried):
                    partner[j] = i
                    return True
        return False

    return sum(pair(i, set()) for i in range(len(named)))


def outcome(answer: Answer, correct: bool, gold: GoldAnswer | list[str]) -> bool | None:
    """A recorded answer as the paper's metrics count it: None when no definite answer, else whether
    it is right. Scoring these against a gold of True everywhere gives answer rate and accuracy for
    every kind of question, and the same per-question agreement as the answers themselves."""
    return correct if definite(answer, gold_answer(gold)) else None


def gold_answer(gold: GoldAnswer | list[str]) -> GoldAnswer:
    """A gold answer as read back from a results file (JSON has lists, not tuples)."""
    return tuple(gold) if isinstance(gold, list) else gold
