"""What kind of answer a question asks for: yes/no (True/False/None) or free text."""

from __future__ import annotations

import re

# A yes/no question puts an auxiliary verb before any wh-word: "Is ...?", "If both ..., is ...?",
# "Could X ...?". An open question puts the wh-word first: "Who ...?", "In which year was ...?".
_AUXILIARIES = frozenset(
    "am is are was were be do does did can could will would shall should may might must has have had".split()
)
_WH_WORDS = frozenset("what which who whom whose where when why how".split())
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def is_yes_no_question(question: str) -> bool:
    """True when the first auxiliary verb comes before any wh-word; questions with neither are open."""
    for word in _WORD.findall(question.casefold()):
        if word in _WH_WORDS:
            return False
        if word in _AUXILIARIES:
            return True
    return False
