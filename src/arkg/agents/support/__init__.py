"""Whether an answer's cited facts support it: machine-checked, for every strategy, no model call.

    support = check_support(answer=result.answer, question=result.question, cited=triples,
                            entities=linked, computations=trace_computations, kg=kg)
    support.supported, support.reasons   # reasons name what is wrong in one line each

The grounding check (eval/grounding.py) asks whether each cited triple is in the KG and was shown to
the model; this one asks whether the cited triples, taken together, make the answer right: the rules
are in `check`, the relation-to-question fit in `fit`, the comparisons re-done in `compare`.
"""

from arkg.agents.support.check import check_support
from arkg.agents.support.cited import Computation, facts_on_chains
from arkg.agents.support.verdict import Support

__all__ = ["Computation", "Support", "check_support", "facts_on_chains"]
