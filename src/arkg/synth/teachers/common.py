"""What the teachers share: the answer field of a final reply."""

from __future__ import annotations

from arkg.agents.answers import MAX_TEXT_CHARS
from arkg.synth.capture import NotFollowed
from arkg.synth.chains import Reason
from arkg.synth.readings import Reading
from arkg.synth.wording import answer_text


def reply_answer(reading: Reading, yes_no: bool) -> str:
    """The answer field a reply must hold for the reading; NotFollowed when no reply schema can hold it."""
    try:
        text = answer_text(reading.answer, yes_no)
    except ValueError as error:
        raise NotFollowed(Reason.NOT_FOLLOWED, str(error)) from None
    if len(text) > MAX_TEXT_CHARS:
        raise NotFollowed(Reason.NOT_FOLLOWED, f"the answer has {len(text)} characters, more than a reply may hold ({MAX_TEXT_CHARS})")
    return text
