"""The answer a finished program gives, and the triples it rests on.

- A judge verdict (a boolean value) answers True / False / None, for any query.
- A yes/no question or a claim is answered only by a verdict. A program that ends on entities or a
  number answers None: "the set is not empty, so yes" would say yes to "Was Marie Curie born in
  Paris?" after reading her place of birth (Warsaw), so no rule on sets is safe.
- An open question ending on entities is answered by their names (joined by "; "; the trace keeps
  the list), on a number by the number; an empty set answers None.

The answer cites the provenance of the value it was read from; an answer of None read from a value
that it does not rest on (a set ending a yes/no question) cites nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from arkg.agents.kg_agent.values import Boolean, Entities, Number, Value
from arkg.agents.strategy import Answer
from arkg.graph.model import Triple

SEPARATOR = "; "


@dataclass(frozen=True)
class ProgramAnswer:
    answer: Answer
    cited: tuple[Triple, ...] = ()
    note: str | None = None


def program_answer(value: Value | None, yes_no: bool) -> ProgramAnswer:
    """The answer to a query from the value its program ended on (None: it did not end)."""
    if value is None:
        return ProgramAnswer(None)
    if isinstance(value, Boolean):
        return ProgramAnswer(value.value, value.triples())
    if yes_no:
        return ProgramAnswer(
            None, note=f"the program ended on {value.kind.value}, not on a judge verdict: a yes/no question needs judge"
        )
    if isinstance(value, Number):
        return ProgramAnswer(str(value.value), value.triples())
    if isinstance(value, Entities) and value.size:
        return ProgramAnswer(SEPARATOR.join(value.items), value.triples())
    return ProgramAnswer(None, note=f"the program ended on an empty set of {value.kind.value}")
