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

    from arkg.tune.data import IGNORED
    from arkg.tune.train import weighted_loss

    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 5, 7, generator=generator)
    labels = torch.tensor([[IGNORED, IGNORED, 3, 4, 1], [IGNORED, 2, 2, IGNORED, IGNORED]])
    ones = (labels != IGNORED).float()
    plain = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, 7), labels[:, 1:].reshape(-1), ignore_index=IGNORED)
    assert torch.allclose(weighted_loss(logits, labels, ones), plain)
    heavy = ones.clone()
    heavy[0, 3] = 1000.0  # the label 4, predicted from position 2
    one = torch.nn.functional.cross_entropy(logits[0, 2:3], labels[0, 3:4])
    assert torch.allclose(weighted_loss(logits, labels, heavy), one, rtol=0.01)


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

    from arkg.synth.wording import with_plan

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
