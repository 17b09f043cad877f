"""Verified questions from any KG arkg reads (`arkg questions`), in the gold question format of the
geography and domain questions (arkg.datasets.geo.questions), which `arkg eval` and `arkg synth` read.

    report = write_kg_questions("kg.db", Path("questions.jsonl"), limit=1000, test_share=0.2)

The KG is read through the KnowledgeGraph protocol only (SQLite, SPARQL, Bolt, the sample), around a
bounded sample of its entities; templates word questions from the KG's own relation names; every
gold answer is recomputed by replaying its gold program with the KG-Agent executor.
"""

from arkg.synth.kg_questions.files import Report, write_kg_questions
from arkg.synth.kg_questions.generate import Made, generate
from arkg.synth.kg_questions.split import split_by_anchor
from arkg.synth.kg_questions.templates import TEMPLATES

__all__ = ["TEMPLATES", "Made", "Report", "generate", "split_by_anchor", "write_kg_questions"]
