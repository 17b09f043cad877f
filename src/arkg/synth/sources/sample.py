"""Sample-KG chains: the bundled SAMPLE_QUESTIONS, whose paths are the chains (in visiting order)."""

from __future__ import annotations

from arkg.agents.candidates import question_ngrams
from arkg.agents.teaching import Reason
from arkg.data import SAMPLE_QUESTIONS, sample_graph_path
from arkg.graph.model import Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth.chains import Chain, ChainStep, Unusable
from arkg.synth.grounding import Ungrounded, ground_fact
from arkg.synth.sources.base import Source

NAME = "sample"


def sample_question_id(number: int) -> str:
    """The id of the number-th sample question (1-based), stable as long as the list keeps its order."""
    return f"sample-{number}"


def sample_source() -> Source:
    kg = SQLiteGraph()
    kg.load(sample_graph_path())
    source = Source(NAME, kg, files=(sample_graph_path(),))
    for number, sample in enumerate(SAMPLE_QUESTIONS, start=1):
        question_id = sample_question_id(number)
        try:
            steps = tuple(ChainStep((ground_fact(kg, Triple(*edge)),)) for edge in sample.path)
        except Ungrounded as error:
            source.unusable.append(Unusable(NAME, question_id, "chain", Reason.UNGROUNDED, str(error)))
            continue
        named = tuple(text for text in question_ngrams(sample.question) if kg.has_entity(text))
        source.chains.append(
            Chain(NAME, question_id, sample.question, sample.answer, steps, named, conclusion=sample.reasoning)
        )
    return source
