"""What kind of answer a question asks for: yes/no (True/False/None) or free text.

English: a yes/no question puts an auxiliary verb before any wh-word ("Is ...?", "If both ..., is
...?", "Could X ...?"); an open question puts the wh-word first ("Who ...?", "In which year was
...?"). Other languages with an unambiguous yes/no form are recognised too: French `est-ce que` or
an inverted subject pronoun (`est-elle`, `a-t-il`), German and Dutch questions that start with a
verb (`Ist ...?`, `Hat ...?`). A question that matches none of these is treated as open; the
agent then still reads a plain yes or no reply as True or False.
"""

from __future__ import annotations

import re

_AUXILIARIES = frozenset(
    "am is are was were be do does did can could will would shall should may might must has have had".split()
)
_WH_WORDS = frozenset("what which who whom whose where when why how".split())
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

_FRENCH_WH = frozenset("qui que quoi où quand comment pourquoi quel quelle quels quelles combien lequel laquelle".split())
# A verb joined to its subject pronoun: "est-elle", "a-t-il", "peut-on" (never part of an open question's verb
# unless a wh-word comes first, which is checked).
_FRENCH_INVERSION = re.compile(r"\w-(?:t-)?(?:je|tu|il|elle|on|nous|vous|ils|elles)\b", re.IGNORECASE)
_GERMANIC_VERB_FIRST = frozenset(
    "ist sind war waren hat haben hatte hatten kann können konnte wird werden wurde wurden gibt gab liegt lebte "
    "is zijn was waren heeft hebben kan kon wordt werd ligt".split()
)


def is_yes_no_question(question: str) -> bool:
    """True when the question asks for yes or no (see the module doc for the rules); otherwise open."""
    words = _WORD.findall(question.casefold())
    for word in words:
        if word in _WH_WORDS:
            return False
        if word in _AUXILIARIES:
            return True
    return _french_yes_no(question, words) or (bool(words) and words[0] in _GERMANIC_VERB_FIRST)


def _french_yes_no(question: str, words: list[str]) -> bool:
    folded = question.casefold()
    marker = folded.find("est-ce que")
    if marker < 0:
        inversion = _FRENCH_INVERSION.search(folded)
        marker = inversion.start() if inversion else -1
    if marker < 0:
        return False
    return not any(word in _FRENCH_WH for word in _WORD.findall(folded[:marker]))


# A sentence that starts like a request is a question even without a question mark ("Tell me whether ...").
_REQUESTS = frozenset("tell say determine decide check verify find name list give state explain show".split())


def is_claim(text: str) -> bool:
    """A statement to verify ("Marie Curie was born in Warsaw."): no question mark, and it does not start
    like a question ("Was ...", "Who ...") or a request ("Tell me whether ...")."""
    words = _WORD.findall(text.casefold())
    if text.rstrip().endswith(("?", "？")) or not words:
        return False
    return words[0] not in _REQUESTS and words[0] not in _AUXILIARIES and words[0] not in _WH_WORDS
