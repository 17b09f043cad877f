"""Abstention any strategy can use: answer only when the cited facts support the answer, or when
several samples agree.

    policy = Abstention(abstain_unsupported=True, samples=5, temperature=0.7, agreement=0.6)
    strategy = Abstaining(build_strategy("ark", model, kg), policy)
    result = strategy.ask("Was Marie Curie born in Warsaw?")

- abstain_unsupported: an answer its cited facts do not support (`Result.support`) becomes None: one citing no
  fact, or facts that do not lead to it (the strategy answered anyway: that answer rests on the
  model's memory, not on the graph);
- self-consistency: the strategy runs `samples` times at `temperature` (seeds base + i); the answer is
  the most frequent one if its share of the samples is at least `agreement`, else None.
The policy's own decision is recorded in an AbstentionTrace around the samples' traces.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from arkg.agents.run import RunOptions
from arkg.agents.strategy import Answer, Query, Result, Strategy, as_query
from arkg.agents.trace import ModelCall, Trace
from arkg.llm.base import Usage


class Abstention(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    abstain_unsupported: bool = Field(
        False, validation_alias=AliasChoices("abstain_unsupported", "grounded"), description="an answer its cited facts do not support becomes None"
    )
    samples: int = Field(1, ge=1, description="runs per question for self-consistency (1: off)")
    temperature: float = Field(0.7, ge=0.0, le=2.0, description="sampling temperature of the samples")
    agreement: float = Field(0.6, gt=0.0, le=1.0, description="share of samples the answer needs")

    @property
    def active(self) -> bool:
        return self.abstain_unsupported or self.samples > 1


class Vote(BaseModel):
    seed: int | None
    answer: Answer
    cited: int


class AbstentionTrace(Trace):
    """The policy's decision around the samples' own traces (its events are theirs, in each sample)."""

    kind: Literal["abstention"] = "abstention"  # how a saved one is told from a strategy's own trace
    policy: Abstention
    votes: list[Vote]
    decided: Answer
    reason: str
    samples: list[Result]

    @property
    def calls(self) -> list[ModelCall]:
        return [call for sample in self.samples if sample.trace is not None for call in sample.trace.calls]


def grounded_answer(result: Result) -> Answer:
    """The answer, or None when its cited facts do not support it."""
    return result.answer if result.support is not None and result.support.supported else None


def agreed_answer(answers: list[Answer], agreement: float) -> Answer:
    """The most frequent definite answer if it has at least `agreement` of all votes, else None."""
    definite = Counter(answer for answer in answers if answer is not None)
    if not definite:
        return None
    answer, count = definite.most_common(1)[0]
    return answer if count / len(answers) >= agreement else None


class Abstaining:
    """Wraps a strategy with an abstention policy; itself a Strategy."""

    def __init__(self, strategy: Strategy, policy: Abstention) -> None:
        self.strategy = strategy
        self.policy = policy
        self.name = strategy.name

    def ask(self, query: str | Query, options: RunOptions | None = None) -> Result:
        query = as_query(query)
        options = options or RunOptions()
        policy = self.policy
        seeds = [options.sampling.seed] if policy.samples == 1 else _sample_seeds(options.sampling.seed, policy.samples)
        samples = [self.strategy.ask(query, self._options(options, seed)) for seed in seeds]
        votes = [
            Vote(seed=seed, answer=grounded_answer(sample) if policy.abstain_unsupported else sample.answer, cited=len(sample.cited_triples))
            for seed, sample in zip(seeds, samples)
        ]
        answers = [vote.answer for vote in votes]
        decided = agreed_answer(answers, policy.agreement) if policy.samples > 1 else answers[0]
        if policy.samples == 1 and decided == samples[0].answer:
            return samples[0]  # the policy changed nothing: the strategy's own result, trace and all
        # The result reported is a sample that gave the decided answer (its explanation and citations).
        chosen = next((sample for sample, answer in zip(samples, answers) if decided is not None and answer == decided), samples[0])
        reason = _reason(policy, samples[0], votes, decided)
        return chosen.model_copy(
            update={
                "answer": decided,
                "stop_reason": reason if decided is None and chosen.answer is not None else chosen.stop_reason,
                "trace": AbstentionTrace(
                    strategy=self.name,
                    model=samples[0].trace.model if samples[0].trace is not None else "",
                    question=query.text,
                    yes_no=query.yes_no,
                    claim=query.is_claim,
                    policy=policy,
                    votes=votes,
                    decided=decided,
                    reason=reason,
                    samples=samples,
                    stop_reason=reason,
                ),
                "usage": sum((sample.usage for sample in samples), Usage()),
            }
        )

    def _options(self, options: RunOptions, seed: int | None) -> RunOptions:
        if self.policy.samples == 1:
            return options
        sampling = options.sampling.model_copy(update={"temperature": self.policy.temperature, "seed": seed})
        return replace(options, sampling=sampling)


def _sample_seeds(base: int | None, samples: int) -> list[int | None]:
    # Far apart, so that the per-call seeds of one sample (base + call number) never meet another's.
    return [None if base is None else base + 1000 * index for index in range(samples)]

def _reason(policy: Abstention, first: Result, votes: list[Vote], decided: Answer) -> str:
    if decided is not None:
        return "answered"
    if policy.samples > 1:
        counts = Counter(vote.answer for vote in votes)
        shown = ", ".join(f"{answer}: {count}" for answer, count in counts.most_common())
        return f"abstained: no answer reached {policy.agreement:.0%} of {policy.samples} samples ({shown})"
    if policy.abstain_unsupported and first.answer is not None and first.support is not None:
        return f"abstained: not supported by its cited facts: {'; '.join(first.support.reasons)}"
    return first.stop_reason
