"""The held-out domains as files a user could have written: a KG (JSON lines of triples, loaded with
`arkg kg load`) and a hand-written question file (`question`, `answer`, `id`, `entities`; read by
`arkg eval`), one folder per domain. The questions come in a seeded random order.

Each question line also holds `hops`, `kind` and `template`, which the question-file reader ignores
and bench/heldout_eval.py breaks the accuracy down by.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import TextIO

from arkg.datasets.geo.questions import GeoQuestion
from arkg.paths import write_atomically
from arkg.synth.domains import DEFAULT_PER_TEMPLATE, HELD_OUT_DOMAINS, build_domains, generate_questions
from arkg.synth.domains.build import DomainGraph

KG_FILE = "kg.jsonl"
QUESTIONS_FILE = "questions.jsonl"


def folder_name(domain: str) -> str:
    return domain.replace(" ", "-")


def write_held_out(out: str | Path, seed: int = 0, per_template: int = DEFAULT_PER_TEMPLATE) -> list[Path]:
    """Write OUT/<domain>/kg.jsonl and questions.jsonl for every held-out domain; returns the folders."""
    out = Path(out)
    folders = []
    for graph in build_domains(HELD_OUT_DOMAINS, seed):
        folder = out / folder_name(graph.domain.name)
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(folder / KG_FILE, lambda file, graph=graph: _write_triples(graph, file))
        questions = generate_questions(graph, seed, per_template)
        # Shuffled, so that the first N (`arkg eval --limit N`) are a mix of every template.
        random.Random(f"held-out:{seed}:{graph.domain.name}").shuffle(questions)
        write_atomically(folder / QUESTIONS_FILE, lambda file, questions=questions: _write_questions(questions, file))
        folders.append(folder)
    return folders


def _write_triples(graph: DomainGraph, file: TextIO) -> None:
    for triple in graph.triples:
        file.write(json.dumps(triple.as_dict(), ensure_ascii=False) + "\n")


def _write_questions(questions: list[GeoQuestion], file: TextIO) -> None:
    for question in questions:
        entry = {
            "id": question.id,
            "question": question.question,
            "answer": question.answer,
            "entities": question.entities,
            "hops": question.hops,
            "kind": question.kind,
            "template": question.template,
        }
        file.write(json.dumps(entry, ensure_ascii=False) + "\n")
