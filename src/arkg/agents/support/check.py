"""The verdict: whether an answer's cited facts (with the computations its trace records) support it.

The rules for open answers are in `open_answers`, those for yes/no answers in `yes_no`, what the question
asks in `question`. Every answer also needs each relation the question names outright (`maintained by`
for "who maintains"), at an entity on the way, among its cited relations: a hop it skipped otherwise.
Without the KG (a result read back from a file) the checks that need it are left out: the relations
compared are the cited ones, and no closed-world reading is possible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arkg.agents.support.cited import Computation
from arkg.agents.support.lookups import GraphLookups
from arkg.agents.support.open_answers import OpenAnswers
from arkg.agents.support.verdict import Support
from arkg.agents.support.yes_no import YesNo
from arkg.graph.model import KnowledgeGraph, Triple

Answer = bool | str | None


def check_support(
    *,
    answer: Answer,
    question: str,
    cited: Sequence[Triple],
    entities: Iterable[str] = (),
    computations: Sequence[Computation] = (),
    kg: KnowledgeGraph | None = None,
) -> Support:
    """Whether `cited` (with the recorded computations) supports `answer` to `question`; `kg` (the graph
    the answer was drawn from) allows the checks that read it."""
    if answer is None:
        return Support(supported=False, reasons=["no answer"])
    if not cited:
        return Support(supported=False, reasons=["the answer cites no fact of the KG"])
    check = _Check(question, cited, list(entities), computations, GraphLookups(kg) if kg is not None else None)
    return check.verdict(answer)


class _Check(OpenAnswers, YesNo):
    def verdict(self, answer: bool | str) -> Support:
        reasons = [f"{c.operation}({', '.join(c.inputs)}) gives {c.output} only as recorded: re-run, it differs" for c in self.computations if not c.agrees]
        reasons += self._unlinked_memberships()
        if not self.asked:
            return Support(supported=False, reasons=[*reasons, "no cited fact mentions an entity of the question"])
        if isinstance(answer, bool):
            return self._yes_no(answer, reasons)
        reasons += self._open(str(answer))
        return Support(supported=not reasons, reasons=reasons)
