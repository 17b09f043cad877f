"""What R³ answers, and why it refuses the rest.

R³ verifies: its answer is computed from whether KG facts satisfy the premises of a commonsense rule,
so it is True, False or undetermined. An open question ("Which pet ...?") asks for a name or a value,
and a multiple-choice one ("Which is older, A or B?") for one of its options. The paper answers the
latter by verifying each option in turn; arkg's queries carry no options to verify (CoLoTa has none,
and the RoG adapter does not read its `choices` field), so such a question is refused, with the ways
to ask it instead.
"""

from __future__ import annotations

import re

from arkg.agents.strategy import REGISTRY, Query

# "Which is older, A or B?": a question that is not yes/no and offers options joined by "or".
_OPTIONS = re.compile(r"\bor\b", re.IGNORECASE)


def refusal(query: Query, strategy: str) -> str:
    """Why `strategy` (R³) cannot answer a query that is not a yes/no question or a claim, and what to do."""
    others = ", ".join(name for name in sorted(REGISTRY) if name != strategy)
    verifies = (
        f"strategy {strategy!r} settles yes/no questions and claims (True / False / None): it checks whether the "
        "KG's facts meet the premises of a commonsense rule"
    )
    if _OPTIONS.search(query.text):
        return (
            f"{verifies}, so it cannot pick one of several options. {query.text!r} asks to choose between options: "
            f"ask about each option as a yes/no question or a claim, or use a strategy that answers open questions ({others})"
        )
    return (
        f"{verifies}, so it cannot answer with a name or a value. {query.text!r} reads as an open question: "
        f"ask it as a yes/no question, or use a strategy that answers open questions ({others})"
    )
