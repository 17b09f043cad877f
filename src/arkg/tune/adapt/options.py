"""What one `arkg adapt` run is asked to do; with the KG, these fix its questions, pairs and adapters."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from arkg.tune.options import MAX_LEARNING_RATE


class AdaptOptions(BaseModel):
    # An infinite or NaN number can only end in a run that never stops or NaN weights.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    strategies: tuple[str, ...] = ("ark", "kg-agent")
    questions: int = Field(600, ge=10, description="questions made from the KG (train and test together)")
    test_share: float = Field(0.2, gt=0, lt=1, description="share of anchor entities held out as test questions")
    test_questions: int = Field(30, ge=1, description="test questions each strategy is evaluated on, before and after")
    pairs: int = Field(1200, ge=8, description="training pairs per strategy, the KG's and the replayed ones together")
    # The shipped adapters were tuned on invented domains and geography: a share of pairs from the same
    # invented domains keeps what they learned there from being overwritten by one KG's vocabulary.
    replay_share: float = Field(0.25, ge=0, lt=1, description="share of the pairs drawn from the shipped training mix")
    steps: int = Field(150, ge=1, description="at most this many optimizer steps per strategy")
    learning_rate: float = Field(3e-4, gt=0, le=MAX_LEARNING_RATE)
    batch_size: int = Field(8, ge=1)
    time_budget_s: float = Field(3600.0, gt=0, description="the whole run's wall time; tuning ends early to keep it")
    seed: int = 0

    def identity(self) -> dict[str, object]:
        """What a resumed run must share with the run it resumes: all but the time budget."""
        return self.model_dump(mode="json", exclude={"time_budget_s"})
