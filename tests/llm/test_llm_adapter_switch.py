"""Specs that differ only in their adapter share one loaded bundled model, and each call runs under its
own adapter: the same replies as a model loaded with that adapter alone, whatever ran before."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from arkg.data import tuned_adapter_path
from arkg.llm import LlamaCppModel, Message, Sampling, bundled_model_path, open_model

pytestmark = pytest.mark.slow


class Verdict(BaseModel):
    answer: Literal["yes", "no"]
    why: str = Field(max_length=80)


MESSAGES = [
    Message(
        role="user",
        content="Was Marie Curie born in Warsaw? Facts: T1 (Marie Curie, place of birth, Warsaw). Answer yes or no, then explain.",
    )
]
SAMPLING = Sampling(max_tokens=40)


def test_adapters_switched_on_shared_weights_answer_as_if_loaded_alone() -> None:
    loaded: dict = {}
    plain, tuned, kg_agent = (open_model(spec, cache=False, loaded=loaded) for spec in ("llamacpp", "llamacpp:tuned", "llamacpp:tuned-kg-agent"))
    assert list(loaded) == [bundled_model_path()] and plain.llama is tuned.llama is kg_agent.llama
    assert tuned.name == "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf+smollm2-135m-arkg-lora.gguf"
    replies = [model.complete(MESSAGES, Verdict, SAMPLING).raw for model in (plain, tuned, kg_agent, plain, tuned)]
    assert replies[0] != replies[1]  # the adapter changes this reply, so the checks below can tell them apart
    # Back to an adapter after another ran: nothing of the other one's state is reused.
    assert replies[3] == replies[0] and replies[4] == replies[1]
    alone = LlamaCppModel(lora_path=tuned_adapter_path("tuned"))
    assert alone.complete(MESSAGES, Verdict, SAMPLING).raw == replies[1]
