"""`arkg questions` as one library call: open the KG, generate, split, write the file whole or not at all."""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from arkg.datasets.geo.questions import write_questions
from arkg.errors import ArkgError
from arkg.graph.open import open_graph
from arkg.paths import check_writable_file
from arkg.llm.base import ChatModel
from arkg.synth.kg_questions.generate import Made, Progress, generate
from arkg.synth.kg_questions.paraphrase import Paraphrased, paraphrase
from arkg.synth.kg_questions.split import split_by_anchor


@dataclass(frozen=True)
class Report:
    made: Made
    written: int
    test: int
    dropped: int  # training questions that named a test anchor
    paraphrased: Paraphrased | None = None  # with a paraphrase model: what it rewrote and what was rejected


def write_kg_questions(
    db: str,
    out: Path,
    *,
    limit: int,
    seed: int = 0,
    test_share: float | None = None,
    progress: Progress | None = None,
    paraphrase_model: ChatModel | None = None,
) -> Report:
    """Write up to `limit` questions over the KG `db` names to `out` (JSON Lines). With `test_share`,
    that share of the anchors is `test` and the rest `train` (arkg.synth.kg_questions.split); without,
    every question is `test`, for `arkg eval`. With `paraphrase_model`, each wording is rewritten by it
    where the rewrite passes arkg.synth.kg_questions.paraphrase's checks."""
    if limit < 1:
        raise ArkgError(f"--limit must be at least 1, not {limit}")
    if test_share is not None and not 0 < test_share < 1:
        raise ArkgError(f"--split is the share of anchors held out for testing, between 0 and 1 (such as 0.2), not {test_share}")
    check_writable_file(out, "questions file")
    with closing(open_graph(db, read_only=True)) as kg:
        made = generate(kg, limit, seed, progress)
    if not made.questions:
        raise ArkgError(f"{db}: no question could be made from this KG (it visited {made.visited} entities)")
    questions, dropped = split_by_anchor(made.questions, test_share, seed) if test_share is not None else (made.questions, 0)
    paraphrased = None
    if paraphrase_model is not None:
        paraphrased = paraphrase(questions, paraphrase_model, progress and (lambda done, total: progress("paraphrasing", done, total)))
        questions = paraphrased.questions
    written = write_questions(questions, out)
    return Report(made, written, sum(question.split == "test" for question in questions), dropped, paraphrased)
