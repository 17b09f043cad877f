"""The sample knowledge graph shipped with arkg, and yes/no questions it can answer.

`sample_kg.jsonl` holds 43 edges about the Curie family and the Nobel Prizes, written for this
project. It has parallel edges (Marie Curie -spouse-> and -collaborator-> Pierre Curie; Warsaw
-country-> and -capital of-> Poland), props (start/end time and point-in-time qualifiers, a
source), and entities reached only by incoming edges (Poland, France, Nobel Prize).

Each SAMPLE_QUESTIONS entry gives the answer and the edges that ground it; the first needs a single
hop, so it is the demo for the smallest models.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SampleQuestion:
    question: str
    answer: bool
    path: tuple[tuple[str, str, str], ...]
    """The (head, relation, tail) edges that ground the answer, in the order an agent visits them."""
    reasoning: str
    """The commonsense step that turns those edges into the answer."""


SAMPLE_QUESTIONS: tuple[SampleQuestion, ...] = (
    SampleQuestion(
        question="Was Marie Curie born in Warsaw?",
        answer=True,
        path=(("Marie Curie", "place of birth", "Warsaw"),),
        reasoning="Her place of birth is Warsaw.",
    ),
    SampleQuestion(
        question="Was Pierre Curie born before Marie Curie?",
        answer=True,
        path=(
            ("Pierre Curie", "date of birth", "15 May 1859"),
            ("Marie Curie", "date of birth", "7 November 1867"),
        ),
        reasoning="1859 is earlier than 1867.",
    ),
    SampleQuestion(
        question="Was Pierre Curie born in Poland?",
        answer=False,
        path=(("Pierre Curie", "place of birth", "Paris"), ("Paris", "country", "France")),
        reasoning="Paris lies in France, not in Poland.",
    ),
    SampleQuestion(
        question="Did a child of Marie Curie receive a Nobel Prize?",
        answer=True,
        path=(
            ("Marie Curie", "child", "Irène Joliot-Curie"),
            ("Irène Joliot-Curie", "award received", "Nobel Prize in Chemistry"),
        ),
        reasoning="The Nobel Prize in Chemistry is a Nobel Prize.",
    ),
)


def sample_graph_path() -> Path:
    """The bundled sample KG file (JSON Lines)."""
    return Path(str(files(__package__) / "sample_kg.jsonl"))


# LoRA adapters of the bundled SmolLM2-135M-Instruct made by `arkg tune` from `arkg synth` pairs, by the
# model-spec name that selects each (`llamacpp:NAME`). The JSON beside each records the data, seed,
# hyper-parameters, command, loss and time of its making (of each part, for adapters merged by `arkg
# merge-adapters`). "tuned" is tuned for ARK's steps; "tuned-kg-agent", from the same start, for KG-Agent's programs.
TUNED_ADAPTERS = {
    "tuned": "smollm2-135m-arkg-lora.gguf",
    "tuned-kg-agent": "smollm2-135m-arkg-kg-agent-lora.gguf",
}


def tuned_adapter_path(name: str = "tuned") -> Path:
    """A tuned adapter shipped with arkg (the model spec `llamacpp:NAME`); its provenance is the path
    with the suffix .json."""
    if name not in TUNED_ADAPTERS:
        raise ValueError(f"no adapter named {name!r} ships with arkg; there are {', '.join(TUNED_ADAPTERS)}")
    return Path(str(files(__package__) / TUNED_ADAPTERS[name]))


__all__ = ["SAMPLE_QUESTIONS", "TUNED_ADAPTERS", "SampleQuestion", "sample_graph_path", "tuned_adapter_path"]
