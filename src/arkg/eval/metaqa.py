"""MetaQA question files (`1-hop/vanilla/qa_test.txt` and the like): one question per line, its topic
entity in brackets, a tab, then the answers separated by `|`.

    what movies did [Ronald Colman] act in	Kismet|Random Harvest|Lost Horizon

The questions run on the KB that comes with them (`kb.txt`, `head|relation|tail` lines that
`arkg kg load` reads): `--db` a store built from it, or `--kb kb.txt`. The topic entity becomes the
question's entity and its brackets are removed from the text; a question's id is its line number.
The KB's edges go from a movie to its attributes, so questions asked from a person or a year need
incoming edges (`--edges both`).

A documented quirk: answer names that hold a comma were split at it ("Paris, Texas" is written
`Paris|Texas`). Once the KB is open, neighbouring pieces whose comma-joined name is an entity of it
are joined again (`rejoin_split_names`), and a note says so.
"""

from __future__ import annotations

import re
from pathlib import Path

from arkg.eval.dataset import Dataset, Effect, Problem, Question
from arkg.eval.rows import text_lines
from arkg.graph.model import KnowledgeGraph

# Commas in one name that are mended ("Crazy, Stupid, Love"): each more costs a KG look-up per answer.
_MOST_COMMAS = 2
_TOPIC = re.compile(r"\[([^\[\]\t]+)\]")
# The first line of a MetaQA file: a question holding a bracketed entity, one tab, the answers.
_LINE = re.compile(r"[^\t{\"]*\[[^\[\]\t]+\][^\t]*\t[^\t]*")


def is_metaqa_line(text: str) -> bool:
    return _LINE.fullmatch(text.rstrip("\r\n")) is not None


def load_metaqa(path: Path) -> Dataset:
    dataset = Dataset(path=path, entries=0, needs_kg=True, repair_names=rejoin_split_names)
    for number, line in text_lines(path):
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        dataset.entries += 1
        question, problem = _question(str(number), text)
        if problem is not None:
            dataset.problems.append(problem)
        else:
            dataset.questions.append(question)
    return dataset


def _question(question_id: str, line: str) -> tuple[Question | None, Problem | None]:
    def skipped(field: str, reason: str) -> tuple[None, Problem]:
        return None, Problem(question_id, field, reason, Effect.QUESTION_SKIPPED)

    if line.count("\t") != 1:
        return skipped("line", f"expected QUESTION<TAB>ANSWERS, found {line.count(chr(9))} tab(s)")
    text, answers = line.split("\t")
    topics = _TOPIC.findall(text)
    if len(topics) != 1:
        return skipped("question", f"expected one [topic entity], found {len(topics)}")
    names = tuple(dict.fromkeys(name.strip() for name in answers.split("|") if name.strip()))
    if not names:
        return skipped("answers", "no answer")
    topic = topics[0].strip()
    if not topic:
        return skipped("question", "the [topic entity] is blank")
    question = _TOPIC.sub(lambda match: match.group(1), text).strip()
    return Question(question_id, question, names, {topic: ""}, (), ()), None


def rejoin_split_names(names: tuple[str, ...], kg: KnowledgeGraph) -> tuple[str, ...]:
    """Join neighbouring pieces into "A, B" (or "A, B, C") where the KG has an entity of that name."""
    joined: list[str] = []
    index = 0
    while index < len(names):
        for width in range(_MOST_COMMAS + 1, 1, -1):
            candidate = ", ".join(names[index : index + width])
            if index + width <= len(names) and kg.has_entity(candidate):
                break
        else:
            width, candidate = 1, names[index]
        joined.append(candidate)
        index += width
    return tuple(dict.fromkeys(joined))
