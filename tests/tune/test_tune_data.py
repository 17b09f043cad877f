"""Training pairs: reading chat JSON Lines strictly, and labelling the reply alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arkg.llm.base import Message
from arkg.tune.data import IGNORED, Pair, TrainingDataError, encode, read_pairs, sample_pairs


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines), encoding="utf-8")
    return path


PAIR = {
    "messages": [
        {"role": "system", "content": "You explore a knowledge graph."},
        {"role": "user", "content": "Pick a relation."},
        {"role": "assistant", "content": "place of birth"},
    ],
    "source": "geo",
    "decision": "relation",
}


def test_pairs_are_read_with_their_prompt_reply_and_line(tmp_path: Path) -> None:
    second = {"messages": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A"}]}
    [first, other] = read_pairs(_write(tmp_path / "p.jsonl", [PAIR, "", second]))
    assert first.prompt == (
        Message(role="system", content="You explore a knowledge graph."),
        Message(role="user", content="Pick a relation."),
    )
    assert first.reply == "place of birth" and first.line == 1
    assert other.reply == "A" and other.line == 3


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ("{not json", "line 2: not a chat pair"),
        ({"messages": [{"role": "user", "content": "Q"}]}, "line 2: not a chat pair (messages:"),
        ({"text": "Q"}, "line 2: not a chat pair (messages: Field required)"),
        ({"messages": [{"role": "user", "content": "Q"}, {"role": "user", "content": "A"}]}, "last message is a 'user' turn"),
        ({"messages": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": ""}]}, "line 2: the assistant's reply is empty"),
        ({"messages": [{"role": "tool", "content": "Q"}, {"role": "assistant", "content": "A"}]}, "messages.0.role"),
    ],
)
def test_a_bad_line_is_an_error_naming_file_and_line(tmp_path: Path, line: object, complaint: str) -> None:
    path = _write(tmp_path / "bad.jsonl", [PAIR, line])
    with pytest.raises(TrainingDataError) as caught:
        read_pairs(path)
    assert str(path) in str(caught.value) and complaint in str(caught.value)


def test_missing_empty_and_non_utf8_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(TrainingDataError, match="no such file"):
        read_pairs(tmp_path / "absent.jsonl")
    with pytest.raises(TrainingDataError, match="no pairs"):
        read_pairs(_write(tmp_path / "empty.jsonl", [""]))
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(json.dumps(PAIR).encode() + b"\n" + b'{"messages": "caf\xe9"}\n')
    with pytest.raises(TrainingDataError, match="line 2.*not valid UTF-8"):
        read_pairs(latin)


def test_a_sample_is_seeded_and_keeps_file_order() -> None:
    pairs = [Pair((), f"r{n}", n) for n in range(50)]
    sample = sample_pairs(pairs, 10, seed=3)
    assert sample == sample_pairs(pairs, 10, seed=3) != sample_pairs(pairs, 10, seed=4)
    assert [pair.line for pair in sample] == sorted(pair.line for pair in sample)
    assert sample_pairs(pairs, None, seed=3) == pairs == sample_pairs(pairs, 99, seed=3)


def test_only_the_reply_and_its_end_of_turn_are_labelled(tokenizer) -> None:
    pair = Pair((Message(role="system", content="S"), Message(role="user", content="Which relation?")), "place of birth", 1)
    encoded = encode(pair, tokenizer)
    labelled = [token for token, label in zip(encoded.input_ids, encoded.labels) if label != IGNORED]
    assert tokenizer.decode(labelled) == "place of birth<|im_end|>"
    prompt = [token for token, label in zip(encoded.input_ids, encoded.labels) if label == IGNORED]
    # The prompt is the chat template's text up to the assistant's header, as llama.cpp formats it.
    assert tokenizer.decode(prompt) == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nWhich relation?<|im_end|>\n<|im_start|>assistant\n"
    assert encoded.labels[-len(labelled):] == labelled
    assert encoded.as_features()["attention_mask"] == [1] * len(encoded.input_ids)


def test_decision_tokens_weigh_what_is_asked_and_prose_weighs_one(tokenizer) -> None:
    reply = '{"cited_keys": ["T1"], "implication": "Marie Curie was born in Warsaw.", "continue_exploring": true}'
    pair = Pair((Message(role="user", content="Facts?"),), reply, 1)
    encoded = encode(pair, tokenizer, decision_weight=5.0)
    weighted = [(tokenizer.decode([token]), weight) for token, weight, label in zip(encoded.input_ids, encoded.weights, encoded.labels) if label != IGNORED]
    heavy = "".join(text for text, weight in weighted if weight == 5.0)
    assert "T1" in heavy and "true" in heavy
    assert "Warsaw" not in heavy and "born" not in heavy
    assert {weight for _, weight in weighted} == {1.0, 5.0}
    assert weighted[-1] == ("<|im_end|>", 1.0)
    assert all(weight == 0.0 for weight, label in zip(encoded.weights, encoded.labels) if label == IGNORED)
    plain = encode(pair, tokenizer)
    assert plain.input_ids == encoded.input_ids and {w for w, label in zip(plain.weights, plain.labels) if label != IGNORED} == {1.0}
