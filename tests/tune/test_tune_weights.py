"""The decision of a reply, told from its prose, and the weighted loss that leans on it."""

from __future__ import annotations

import pytest

from arkg.tune.weights import decisive_fields, decisive_spans, token_weights


def _texts(reply: str) -> list[str]:
    return [reply[start:end] for start, end in decisive_spans(reply)]


def test_a_reasoning_reply_decides_its_keys_and_whether_to_go_on() -> None:
    reply = '{"cited_keys": ["T1", "T3"], "implication": "So: Warsaw, in Poland.", "continue_exploring": false}'
    assert _texts(reply) == ['["T1", "T3"]', "false"]


def test_an_answer_decides_its_answer_not_its_explanation() -> None:
    assert _texts('{"explanation": "1859 is before 1867, so yes.", "answer": "yes"}') == ['"yes"']
    assert _texts('{ "explanation" : "From T1." ,\n "answer" : "Warsaw" }') == ['"Warsaw"']


@pytest.mark.parametrize("reply", ["place of birth", 'get_relation("Marie Curie")', '["T1"]', '{"answer": "yes"} and more', " {}"])
def test_a_reply_that_is_no_json_object_is_all_decision(reply: str) -> None:
    assert decisive_spans(reply) == [(0, len(reply))]


def test_a_token_weighs_more_when_it_touches_a_decision() -> None:
    #                      "ab"  " c"   "de"   "f"
    offsets = [(0, 2), (2, 4), (4, 6), (6, 7)]
    assert token_weights(offsets, [(3, 5)], 4.0) == [1.0, 4.0, 4.0, 1.0]
    assert token_weights(offsets, [], 4.0) == [1.0] * 4


def test_the_weighted_loss_is_the_plain_mean_under_equal_weights_and_leans_on_heavy_tokens() -> None:
    import torch

    from arkg.tune.train import weighted_loss

    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 7, generator=generator)
    wanted = torch.tensor([3, 4, 1, 2])
    plain = torch.nn.functional.cross_entropy(logits, wanted)
    assert torch.allclose(weighted_loss(logits, wanted, torch.ones(4)), plain)
    heavy = torch.tensor([1.0, 1000.0, 1.0, 1.0])
    one = torch.nn.functional.cross_entropy(logits[1:2], wanted[1:2])
    assert torch.allclose(weighted_loss(logits, wanted, heavy), one, rtol=0.01)


def test_the_reply_loss_scores_only_reply_tokens_and_equals_the_loss_over_all_logits() -> None:
    """Projecting only the scored positions onto the vocabulary changes what is computed, not the loss
    or its gradient."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM

    from arkg.tune.data import IGNORED
    from arkg.tune.train import reply_loss

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    model = get_peft_model(LlamaForCausalLM(config), lora)
    inputs = {"input_ids": torch.tensor([[1, 5, 9, 2, 33, 7], [1, 8, 4, 6, 0, 0]]), "attention_mask": torch.tensor([[1] * 6, [1, 1, 1, 1, 0, 0]])}
    labels = torch.tensor([[IGNORED, IGNORED, IGNORED, 2, 33, 7], [IGNORED, IGNORED, 4, 6, IGNORED, IGNORED]])
    weights = torch.tensor([[0.0, 0.0, 0.0, 1.0, 5.0, 1.0], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]])

    loss, logits = reply_loss(model, inputs, labels, weights)
    assert logits.shape == (5, 64)  # five scored tokens, not 2 x 5 positions
    full = model(**inputs).logits[:, :-1]
    scored = labels[:, 1:] != IGNORED
    per_token = torch.nn.functional.cross_entropy(full[scored], labels[:, 1:][scored], reduction="none")
    expected = (per_token * weights[:, 1:][scored]).sum() / weights[:, 1:][scored].sum()
    assert torch.allclose(loss, expected, atol=1e-6)
    lora_a = next(parameter for name, parameter in model.named_parameters() if "lora_A" in name)
    (gradient,) = torch.autograd.grad(loss, lora_a)
    (expected_gradient,) = torch.autograd.grad(expected, lora_a)
    assert torch.allclose(gradient, expected_gradient, atol=1e-6)


def test_each_decision_is_named_by_its_field() -> None:
    reply = '{"cited_keys": ["T2"], "implication": "x", "continue_exploring": true}'
    assert [(field, reply[start:end]) for field, start, end in decisive_fields(reply)] == [("cited_keys", '["T2"]'), ("continue_exploring", "true")]
    assert decisive_fields("Warsaw") == [(None, 0, 6)]


@pytest.mark.parametrize(
    ("next_step", "plan"),
    [(("Serbia", "continent"), "Next: Serbia, continent."), (("The \"Big\" One", "country"), 'Next: The \\"Big\\" One, country.'), (None, "Enough to answer.")],
)
def test_the_plan_that_ends_an_implication_is_a_decision_of_its_own(next_step: tuple[str, str] | None, plan: str) -> None:
    import json

    from arkg.agents.ark.teacher import with_plan

    implication = with_plan("France capital: Paris.", next_step)
    reply = json.dumps({"cited_keys": ["T1"], "implication": implication, "continue_exploring": next_step is not None})
    assert [(field, reply[start:end]) for field, start, end in decisive_fields(reply)] == [
        ("cited_keys", '["T1"]'),
        ("plan", plan),
        ("continue_exploring", json.dumps(next_step is not None)),
    ]


def test_an_implication_without_a_plan_is_all_prose() -> None:
    reply = '{"cited_keys": [], "implication": "Next to nothing: Paris. Enough said.", "continue_exploring": false}'
    assert _texts(reply) == ["[]", "false"]


@pytest.mark.parametrize(
    ("steps", "examples", "batch", "drawn"),
    [(2, 8, 4, 8), (50, 714, 8, 400), (60, 451, 8, 451 + 3 * 8), (3, 10, 4, 10), (4, 10, 4, 14), (0, 10, 4, 0)],
)
def test_the_examples_a_run_went_through(steps: int, examples: int, batch: int, drawn: int) -> None:
    from arkg.tune.train import examples_drawn

    assert examples_drawn(steps, examples, batch) == drawn
