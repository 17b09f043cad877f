"""R³, right for right reasons (paper Section 3.2): a tree search whose every step is either a KG fact
or a surfaced commonsense axiom.

    anchors   E^q = entity linking ∪ entities the model names (resolved in the KG); K^q = their 1-hop facts
    branch i  axiom I_i: a rule split into typed premises (entity, property, operator, value), as one
              premise set or as alternative sets ("yes if (A and B) or C")
      depth 1   T_i = top-k of K^q by similarity to I_i ∪ facts the model picks among the next-ranked
                each premise judged satisfied / unsatisfied / unknown, citing keys of T_i
                verdict computed: a set holds when all its premises are grounded satisfied, and fails
                on one grounded unsatisfied; any set holds -> True; every set fails -> False
      depth j   undetermined: the model names what is missing and whose facts could supply it (an
                entity met in T_i, or an anchor with facts not yet shown); that entity's facts are
                ranked against the missing information and join T_i; judge again
    up to max_depth judgements per branch, max_breadth branches (a new axiom conditioned on the
    earlier ones, sampled warmer), then None ("I don't know").

Every reply is checked in code: a premise may cite only facts shown in that request, names must be
valid; an invalid reply gets feedback naming what was wrong and another attempt (at most c_max).

    r3 = R3(kg, model, R3Settings(max_breadth=1))
    result = r3.ask("Was Pierre Curie born in Poland?")
    result.answer              # True / False / None
    result.trace.axioms        # the commonsense rules the answer rests on, apart from the facts
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arkg.agents.answers import only_words_of
from arkg.agents.candidates import entities_in_question
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.prompts import Prompt, load_prompt
from arkg.agents.r3 import replies
from arkg.agents.r3.scope import refusal
from arkg.agents.r3.settings import R3Settings
from arkg.agents.r3.trace import (
    AnchorsFound,
    Axiom,
    AxiomAttempt,
    BranchEnd,
    BranchEnded,
    EntitiesAttempt,
    FactsRanked,
    FinalAnswer,
    JudgementAttempt,
    MissingAttempt,
    PickAttempt,
    Premise,
    PremiseJudgement,
    Purpose,
    R3Trace,
    StopReason,
    VerdictReached,
)
from arkg.agents.r3.verdict import Verdict, decide
from arkg.agents.retrieval import Fact, link_entities, neighbourhood, rank_facts
from arkg.agents.run import Agent, RunKit, StrategyRun
from arkg.agents.strategy import Answer, Query, Result
from arkg.agents.trace import ModelCall, TripleRecord
from arkg.agents.triple_keys import TripleIdentity, TripleKeys, fact_line, identity
from arkg.errors import ArkgError
from arkg.graph.matching import fold
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import ChatModel, Message, OutputSpec
from arkg.text import one_line

NAME = "r3"
# A name the model writes resolves to the KG's closest entity only when the match is this close.
RESOLVE_SCORE = 90.0
CLOSEST_SHOWN = 3
# Entities offered for the model to name (constrained mode), and for missing evidence.
MAX_CANDIDATES = 12

def _prompt(name: str) -> Prompt:
    """One of R³'s prompts (arkg/agents/r3/prompts/<name>.yaml)."""
    return load_prompt(name, __package__)


def _feedback(part: str, **values: object) -> str:
    return _prompt("feedback").part(part, **values)


class R3(Agent):
    """The R³ strategy over any KnowledgeGraph and ChatModel."""

    name = NAME

    def __init__(self, kg: KnowledgeGraph, model: ChatModel, settings: R3Settings | None = None) -> None:
        self.kg = kg
        self.model = model
        self.settings = settings or R3Settings()

    def start(self, query: Query, kit: RunKit) -> _Run:
        if not query.yes_no:
            raise ArkgError(refusal(query, NAME))
        return _Run(self, query, kit)


@dataclass
class _Branch:
    """One branch of the search tree: its axiom and T_i, the facts kept for it so far (key -> record)."""

    number: int
    axiom: Axiom
    depth: int = 1
    shown: dict[str, TripleRecord] = field(default_factory=dict)
    shown_ids: set[TripleIdentity] = field(default_factory=set)

    def keep(self, records: Sequence[TripleRecord]) -> None:
        for record in records:
            self.shown[record.key] = record
            self.shown_ids.add(identity(record.as_triple()))


@dataclass(frozen=True)
class _Gap:
    """A missing-evidence decision: the premise, what is missing, and the entity to expand."""

    premise: Premise
    missing: str
    entity: str


class _Run(StrategyRun[R3Trace]):
    """One query: anchors, the sub-graph, the branches, and the trace."""

    def __init__(self, strategy: R3, query: Query, kit: RunKit) -> None:
        trace = R3Trace.begin(NAME, query, strategy.model.name, strategy.settings)
        super().__init__(query, kit, trace)
        self.kg = strategy.kg
        self.settings = strategy.settings
        self.constrained = self.settings.mode is SelectionMode.CONSTRAINED
        # Entities that can be expanded: with outgoing edges, or with any edge when incoming ones count.
        self.expandable: Callable[[str], bool] = (
            self.kg.is_head if self.settings.edges is EdgeSet.OUT else self.kg.has_entity
        )
        self.keys = TripleKeys()
        self.anchors: list[str] = []  # E^q, growing as entities are expanded
        self.subgraph: dict[TripleIdentity, Fact] = {}  # K^q
        self.shown_names: dict[str, str] = {}  # name as shown to the model -> as stored

    # The search --------------------------------------------------------------------------------------

    def execute(self) -> Result:
        self.find_anchors()
        if not self.anchors:
            return self.conclude(None, StopReason.NO_ENTITY)
        if not self.subgraph:
            return self.conclude(None, StopReason.NO_FACTS)
        for number in range(1, self.settings.max_breadth + 1):
            settled = self.search_branch(number)
            if settled is not None:
                branch, verdict = settled
                return self.conclude(verdict.answer, StopReason.DECIDED, branch, verdict)
        return self.conclude(None, StopReason.EXHAUSTED)

    def search_branch(self, number: int) -> tuple[_Branch, Verdict] | None:
        """One branch down to max_depth: the verdict that settled it, or None after recording why not."""
        axiom = self.surface_axiom(number)
        if axiom is None:
            return self.end_branch(number, 0, BranchEnd.C_MAX_AXIOM)
        branch = _Branch(number, axiom)
        self.prune(branch, list(self.subgraph.values()), axiom.text, entity=None)
        while True:
            judgements = self.judge(branch)
            if judgements is None:
                return self.end_branch(number, branch.depth, BranchEnd.C_MAX_JUDGEMENT)
            verdict = decide(judgements, [[premise.id for premise in premises] for premises in axiom.premise_sets])
            self.record(
                VerdictReached(
                    branch=number,
                    depth=branch.depth,
                    answer=verdict.answer,
                    rests_on=[judgement.premise for judgement in verdict.rests_on],
                    unknown=list(verdict.unknown),
                )
            )
            if verdict.answer is not None:
                return branch, verdict
            if branch.depth >= self.settings.max_depth:
                return self.end_branch(number, branch.depth, BranchEnd.MAX_DEPTH)
            candidates = self.gap_candidates(branch)
            if not candidates:
                return self.end_branch(number, branch.depth, BranchEnd.NO_ENTITY_LEFT)
            gap = self.identify_gap(branch, [p for p in axiom.all_premises if p.id in verdict.unknown], candidates)
            if gap is None:
                return self.end_branch(number, branch.depth, BranchEnd.C_MAX_MISSING)
            facts = [fact for fact in self.expand(gap.entity) if identity(fact.triple) not in branch.shown_ids]
            branch.depth += 1
            self.prune(branch, facts, f"{gap.missing} {gap.premise.text}", entity=gap.entity)

    def end_branch(self, number: int, depth: int, reason: BranchEnd) -> None:
        self.record(BranchEnded(branch=number, depth=depth, reason=reason))
        return None

    # Anchors (paper eqs. 1-2) ------------------------------------------------------------------------

    def find_anchors(self) -> None:
        linked = link_entities(self.kg, self.query.text, self.settings.max_entities)
        named = self.named_entities() if self.settings.max_named else []
        for entity in dict.fromkeys([*linked, *named]):
            self.expand(entity)
        self.record(AnchorsFound(linked=linked, named=named, anchors=list(self.anchors), facts=len(self.subgraph)))

    def named_entities(self) -> list[str]:
        """Entities the model names in the query, as KG entities; names that resolve are kept across attempts."""
        settings = self.settings
        candidates: list[str] = []
        if self.constrained:
            candidates = entities_in_question(self.kg, self.query.text, self.kg.has_entity, MAX_CANDIDATES)
            if not candidates:
                return []
        prompt = _prompt("entities")
        named: dict[str, None] = {}

        def attempt(number: int, feedback: str | None) -> tuple[EntitiesAttempt, str | None]:
            if self.constrained:
                shown = self.show(candidates)
                instruction = prompt.part("constrained", limit=settings.max_named, candidates=_bullets(shown))
                output: OutputSpec = replies.named_entities_for(tuple(shown), settings.max_named)
            else:
                instruction = prompt.part("free", limit=settings.max_named, noun=self.query.noun)
                output = replies.NamedEntities
            text = prompt.render(query=self.heading(), noun=self.query.noun, feedback=feedback or "", instruction=instruction)
            reply, call = self.ask_model(text, output, Purpose.ENTITIES, 0, number)
            proposed = [name.strip() for name in reply.entities][: settings.max_named]
            resolved = {name: entity for name in proposed if (entity := self.resolve(name)) is not None}
            unresolved = [name for name in proposed if name not in resolved]
            named.update(dict.fromkeys(resolved.values()))
            feedback = ""
            if unresolved:
                problems = [
                    _feedback("unresolved", name=one_line(name), closest=_quoted(self.closest(name)))
                    for name in unresolved
                ]
                feedback = _feedback("retry", problems="; ".join(problems))
            event = EntitiesAttempt(
                attempt=number,
                candidates=list(candidates),
                proposed=proposed,
                resolved=resolved,
                unresolved=unresolved,
                feedback=feedback or None,
                call=call,
            )
            return event, feedback or None

        self.attempts(self.settings.c_max, attempt)
        return list(named)

    def resolve(self, name: str) -> str | None:
        """The KG entity a name stands for: itself, as shown, or the closest close match."""
        name = self.shown_names.get(name, name)
        if not name:
            return None
        if self.kg.has_entity(name):
            return name
        matches = self.kg.search_entities(name, k=1)
        return matches[0].name if matches and matches[0].score >= RESOLVE_SCORE else None

    def closest(self, name: str) -> list[str]:
        return [match.name for match in self.kg.search_entities(name, k=CLOSEST_SHOWN)] if name else []

    def expand(self, entity: str) -> list[Fact]:
        """The entity's 1-hop facts; on first sight it joins E^q and its facts join K^q (paper eq. 6)."""
        facts = neighbourhood(self.kg, [entity], self.settings.edges, self.settings.per_entity)
        if entity not in self.anchors:
            self.anchors.append(entity)
            for fact in facts:
                self.subgraph.setdefault(identity(fact.triple), fact)
        return facts

    # Axioms (paper eq. 3) ----------------------------------------------------------------------------

    def surface_axiom(self, number: int) -> Axiom | None:
        settings = self.settings
        prompt = _prompt("axiom")
        earlier = self.trace.axioms
        rules = "\n".join(f"{index}. {_axiom_line(axiom)}" for index, axiom in enumerate(earlier, start=1))
        # A new branch is sampled warmer, so that it need not repeat the earlier axiom; its seed still
        # follows the run's call count (the kit shares the run's calls).
        kit = self.kit
        sampling = kit.options.sampling
        if number > 1:
            sampling = sampling.model_copy(update={"temperature": max(sampling.temperature, settings.branch_temperature)})
            kit = RunKit(kit.model, replace(kit.options, sampling=sampling), kit.calls)
        entities = self.show(self.anchors)
        output = (
            replies.axiom_for(tuple(entities), settings.max_premises, settings.max_alternatives)
            if self.constrained
            else replies.AxiomReply
        )
        # Alternatives are explained, with an example, only where an axiom may have them.
        disjunctive = settings.max_alternatives > 1
        alternatives = prompt.part("disjunctive", more=settings.max_alternatives - 1, limit=settings.max_premises)
        axiom: Axiom | None = None

        def attempt(count: int, feedback: str | None) -> tuple[AxiomAttempt, str | None]:
            nonlocal axiom
            text = prompt.render(
                query=self.heading(),
                earlier=prompt.part("earlier", rules=rules) if earlier else "",
                implied=prompt.part("claim" if self.query.is_claim else "yes_no"),
                entities=_quoted(entities),
                limit=settings.max_premises,
                disjunctive=alternatives if disjunctive else "",
                disjunctive_example=prompt.part("disjunctive_example") if disjunctive else "",
                feedback=feedback or "",
            )
            reply, call = self.ask_model(text, output, Purpose.AXIOM, 0, count, kit)
            premises, *others = self.premise_sets([reply.premises, *reply.alternatives])
            problems = self.axiom_problems(reply.rule.strip(), [premises, *others])
            if not problems:
                axiom = Axiom(branch=number, rule=reply.rule.strip(), premises=premises, alternatives=others)
            feedback = _feedback("retry", problems="; ".join(problems)) if problems else ""
            event = AxiomAttempt(
                branch=number,
                attempt=count,
                temperature=sampling.temperature,
                rule=reply.rule.strip(),
                premises=premises,
                alternatives=others,
                problems=problems,
                feedback=feedback or None,
                call=call,
            )
            return event, feedback or None

        self.attempts(self.settings.c_max, attempt)
        return axiom

    def anchor_named(self, name: str) -> str | None:
        """The anchor a premise names: as shown, or written with other case or accents."""
        name = self.shown_names.get(name.strip(), name.strip())
        return next((anchor for anchor in self.anchors if fold(anchor) == fold(name)), None)

    def premise_sets(self, replied: Sequence[Sequence[replies.PremiseReply]]) -> list[list[Premise]]:
        """The premise sets of an axiom reply, numbered P1, P2, ... across the sets, so that each id is one premise."""
        numbers = itertools.count(1)
        return [
            [
                Premise(
                    id=f"P{next(numbers)}",
                    entity=self.anchor_named(premise.entity) or premise.entity.strip(),
                    property=premise.property.strip(),
                    operator=premise.operator,
                    value=premise.value.strip(),
                )
                for premise in premises
            ]
            for premises in replied
        ]

    def axiom_problems(self, rule: str, premise_sets: list[list[Premise]]) -> list[str]:
        settings = self.settings
        problems = []
        if not rule:
            problems.append(_feedback("empty_rule"))
        elif only_words_of(rule, _prompt("axiom").template, _prompt("system").template):
            problems.append(_feedback("echoed_rule", rule=one_line(rule)))
        if not premise_sets[0]:
            problems.append(_feedback("no_premises"))
        if len(premise_sets) > settings.max_alternatives:
            more = settings.max_alternatives - 1
            problems.append(_feedback("too_many_alternatives", limit=more) if more else _feedback("no_alternatives"))
        for number, premises in enumerate(premise_sets[1:], start=1):
            if not premises:
                problems.append(_feedback("empty_alternative", number=number))
        if any(len(premises) > settings.max_premises for premises in premise_sets):
            problems.append(_feedback("too_many_premises", limit=settings.max_premises))
        for premise in (premise for premises in premise_sets for premise in premises):
            if premise.entity not in self.anchors:
                problems.append(_feedback("not_an_entity", premise=premise.id, name=one_line(premise.entity)))
            if not premise.property:
                problems.append(_feedback("no_property", premise=premise.id))
            if premise.operator != "holds" and not premise.value:
                problems.append(_feedback("no_value", premise=premise.id))
        return problems

    # Sub-graph pruning (paper eq. 4) -----------------------------------------------------------------

    def prune(self, branch: _Branch, facts: list[Fact], against: str, entity: str | None) -> None:
        """T_i ∪= top-k of the facts by similarity to `against` ∪ those the model picks among the next ranked."""
        settings = self.settings
        ranked = [self.record_of(fact) for fact in rank_facts(facts, against, settings.top_k + settings.pick_from, settings.ranker)]
        top, offered = ranked[: settings.top_k], ranked[settings.top_k :]
        self.record(
            FactsRanked(
                branch=branch.number,
                depth=branch.depth,
                entity=entity,
                against=against,
                ranker=settings.ranker,
                considered=len(facts),
                top=top,
                offered=offered,
            )
        )
        branch.keep(top)
        if offered:
            branch.keep(self.pick(branch, {record.key: record for record in offered}))

    def pick(self, branch: _Branch, offered: dict[str, TripleRecord]) -> list[TripleRecord]:
        """The facts the model picks among those offered; none when every attempt cited others."""
        prompt = _prompt("pick")
        limit = self.settings.max_picked
        output = replies.pick_for(tuple(offered), limit) if self.constrained else replies.PickReply
        picked: list[TripleRecord] = []

        def attempt(count: int, feedback: str | None) -> tuple[PickAttempt, str | None]:
            nonlocal picked
            text = prompt.render(
                query=self.heading(),
                rule=one_line(branch.axiom.rule),
                premises=_axiom_premise_lines(branch.axiom),
                facts=_fact_lines(offered),
                feedback=feedback or "",
                limit=limit,
            )
            reply, call = self.ask_model(text, output, Purpose.PICK, branch.depth, count)
            keys = list(dict.fromkeys(reply.picked_keys))[:limit]
            invalid = [key for key in keys if key not in offered]
            feedback = ""
            if invalid:
                feedback = _feedback("retry", problems=self.invalid_keys_problem(invalid, offered))
            else:
                picked = [offered[key] for key in keys]
            event = PickAttempt(
                branch=branch.number,
                depth=branch.depth,
                attempt=count,
                picked=keys,
                invalid_keys=invalid,
                feedback=feedback or None,
                call=call,
            )
            return event, feedback or None

        self.attempts(self.settings.c_max, attempt)
        return picked

    # Fact-grounded answer selection (paper eq. 5) ----------------------------------------------------

    def judge(self, branch: _Branch) -> list[PremiseJudgement] | None:
        """One judgement per premise, each citing only facts shown with the request; None after c_max failures."""
        prompt = _prompt("judge")
        premises = [premise.id for premise in branch.axiom.all_premises]
        shown = dict(branch.shown)
        output = replies.judgements_for(tuple(premises), tuple(shown)) if self.constrained else replies.JudgementsReply
        accepted: list[PremiseJudgement] | None = None

        def attempt(count: int, feedback: str | None) -> tuple[JudgementAttempt, str | None]:
            nonlocal accepted
            text = prompt.render(
                query=self.heading(),
                rule=one_line(branch.axiom.rule),
                premises=_axiom_premise_lines(branch.axiom),
                facts=_fact_lines(shown),
                feedback=feedback or "",
            )
            reply, call = self.ask_model(text, output, Purpose.JUDGEMENT, branch.depth, count)
            judgements = [
                PremiseJudgement(premise=item.premise.strip(), status=item.status, cited_keys=list(dict.fromkeys(item.cited_keys)))
                for item in reply.judgements
            ]
            invalid = list(dict.fromkeys(key for j in judgements for key in j.cited_keys if key not in shown))
            problems = self.judgement_problems(judgements, premises)
            if invalid:
                problems.append(self.invalid_keys_problem(invalid, shown))
            if not problems:
                order = {premise: index for index, premise in enumerate(premises)}
                accepted = sorted(judgements, key=lambda judgement: order[judgement.premise])
            feedback = _feedback("retry", problems="; ".join(problems)) if problems else ""
            event = JudgementAttempt(
                branch=branch.number,
                depth=branch.depth,
                attempt=count,
                shown=list(shown),
                judgements=judgements,
                invalid_keys=invalid,
                problems=problems,
                feedback=feedback or None,
                call=call,
            )
            return event, feedback or None

        self.attempts(self.settings.c_max, attempt)
        return accepted

    @staticmethod
    def judgement_problems(judgements: list[PremiseJudgement], premises: list[str]) -> list[str]:
        problems = []
        seen: set[str] = set()
        for judgement in judgements:
            if judgement.premise not in premises:
                problems.append(_feedback("unknown_premise", premise=one_line(judgement.premise)))
            elif judgement.premise in seen:
                problems.append(_feedback("judged_twice", premise=judgement.premise))
            seen.add(judgement.premise)
        missing = [premise for premise in premises if premise not in seen]
        if missing:
            problems.append(_feedback("not_judged", premises=", ".join(missing)))
        return problems

    @staticmethod
    def invalid_keys_problem(invalid: list[str], shown: dict[str, TripleRecord]) -> str:
        return _feedback("invalid_keys", invalid=", ".join(map(one_line, invalid)), keys=", ".join(shown) or "none")

    # Missing evidence identification (paper eq. 6) ---------------------------------------------------

    def gap_candidates(self, branch: _Branch) -> list[str]:
        """Entities whose facts could fill a gap: those met in T_i first (the next hop), then anchors,
        each only while it has facts not shown yet."""
        met = [name for record in branch.shown.values() for name in (record.head, record.tail)]
        candidates = []
        for entity in dict.fromkeys([*met, *self.anchors]):
            if entity in self.anchors:
                unseen = any(
                    key not in branch.shown_ids and _touches(fact, entity) for key, fact in self.subgraph.items()
                )
            else:
                unseen = self.expandable(entity)
            if unseen:
                candidates.append(entity)
            if len(candidates) == MAX_CANDIDATES:
                break
        return candidates

    def identify_gap(self, branch: _Branch, unknown: list[Premise], candidates: list[str]) -> _Gap | None:
        prompt = _prompt("missing")
        by_id = {premise.id: premise for premise in unknown}
        shown_candidates = self.show(candidates)
        output = (
            replies.missing_for(tuple(by_id), tuple(shown_candidates)) if self.constrained else replies.MissingReply
        )
        gap: _Gap | None = None

        def attempt(count: int, feedback: str | None) -> tuple[MissingAttempt, str | None]:
            nonlocal gap
            text = prompt.render(
                query=self.heading(),
                rule=one_line(branch.axiom.rule),
                premises=_premise_lines(unknown),
                facts=_fact_lines(branch.shown),
                entities=_bullets(shown_candidates),
                ids=", ".join(by_id),
                feedback=feedback or "",
            )
            reply, call = self.ask_model(text, output, Purpose.MISSING, branch.depth, count)
            premise_id, missing = reply.premise.strip(), reply.missing.strip()
            entity = self.candidate_named(reply.entity, candidates)
            problems = []
            if premise_id not in by_id:
                problems.append(_feedback("not_unsettled", premise=one_line(premise_id), ids=", ".join(by_id)))
            if entity is None:
                problems.append(_feedback("not_a_candidate", name=one_line(reply.entity.strip())))
            if not missing:
                problems.append(_feedback("no_missing"))
            if not problems and entity is not None:
                gap = _Gap(by_id[premise_id], missing, entity)
            feedback = _feedback("retry", problems="; ".join(problems)) if problems else ""
            event = MissingAttempt(
                branch=branch.number,
                depth=branch.depth,
                attempt=count,
                candidates=list(candidates),
                premise=premise_id,
                missing=missing,
                entity=entity if entity is not None else reply.entity.strip(),
                new_entity=entity is not None and entity not in self.anchors,
                problems=problems,
                feedback=feedback or None,
                call=call,
            )
            return event, feedback or None

        self.attempts(self.settings.c_max, attempt)
        return gap

    def candidate_named(self, name: str, candidates: list[str]) -> str | None:
        name = self.shown_names.get(name.strip(), name.strip())
        return next((candidate for candidate in candidates if fold(candidate) == fold(name)), None)

    # The end -----------------------------------------------------------------------------------------

    def conclude(
        self,
        answer: Answer,
        stop_reason: StopReason,
        branch: _Branch | None = None,
        verdict: Verdict | None = None,
        note: str | None = None,
    ) -> Result:
        cited = [branch.shown[key] for key in verdict.cited_keys] if branch and verdict else []
        explanation = _explanation(branch.axiom, verdict) if branch and verdict else ""
        self.trace.cited_triples = cited
        self.record(
            FinalAnswer(
                stop_reason=stop_reason,
                answer=answer,
                explanation=explanation,
                cited_keys=[record.key for record in cited],
                note=note,
            )
        )
        return self.result(
            answer,
            explanation,
            stop_reason=stop_reason,
            retrieved=self.trace.shown_records(),
            # The axiom is the stated commonsense the verdict rests on, beside the cited facts.
            commonsense=[branch.axiom.rule] if branch and verdict else [],
        )

    def stopped(self, reason: str) -> Result:
        """The run budget ended the search: no answer, and why."""
        return self.conclude(None, StopReason.BUDGET, note=reason)

    # Helpers -----------------------------------------------------------------------------------------

    def ask_model(
        self, text: str, output: OutputSpec, purpose: Purpose, step: int, attempt: int, kit: RunKit | None = None
    ) -> tuple[Any, ModelCall]:
        """One call with a fresh context: the system prompt and this request."""
        system = Message(role="system", content=_prompt("system").render(noun=self.query.noun))
        messages = [system, Message(role="user", content=text)]
        return (kit or self.kit).complete(messages, output, purpose, step=step, attempt=attempt)

    def heading(self) -> str:
        return _prompt("system").part(self.query.noun, question=self.query.text)

    def record_of(self, fact: Fact) -> TripleRecord:
        triple = fact.triple
        return TripleRecord(key=self.keys.key(triple), **triple.as_dict(), incoming=fact.incoming)

    def show(self, names: Sequence[str]) -> list[str]:
        """The names as the model is shown them (one line each), remembering what each stands for."""
        shown = [one_line(name) for name in names]
        self.shown_names.update(zip(shown, names))
        return shown


def _touches(fact: Fact, entity: str) -> bool:
    """Whether the fact is one of the entity's own (reached from it), as neighbourhood() returns them."""
    return (fact.triple.tail if fact.incoming else fact.triple.head) == entity


def _fact_lines(records: dict[str, TripleRecord]) -> str:
    return "\n".join(fact_line(key, record.as_triple()) for key, record in records.items()) or _feedback("no_facts")


def _premise_lines(premises: Sequence[Premise]) -> str:
    return "\n".join(f"{premise.id}: {premise.text}" for premise in premises)


def _axiom_premise_lines(axiom: Axiom) -> str:
    """The premises of an axiom, a disjunctive one's set by set: "Either all of:", then "Or all of:" each."""
    if not axiom.alternatives:
        return _premise_lines(axiom.premises)
    prompt = _prompt("judge")
    headings = [prompt.part("either"), *(prompt.part("or") for _ in axiom.alternatives)]
    return "\n".join(f"{heading}\n{_premise_lines(premises)}" for heading, premises in zip(headings, axiom.premise_sets))


def _axiom_line(axiom: Axiom) -> str:
    sets = " or ".join(f"({'; '.join(premise.text for premise in premises)})" for premises in axiom.premise_sets)
    return f"{one_line(axiom.rule)} {sets}"


def _explanation(axiom: Axiom, verdict: Verdict) -> str:
    """The rule and the premises the answer rests on, each with the facts it cites."""
    texts = {premise.id: premise.text for premise in axiom.all_premises}
    grounds = "; ".join(
        f"{j.premise} ({texts[j.premise]}) {j.status}, by {', '.join(j.cited_keys)}" for j in verdict.rests_on
    )
    return f"Rule: {one_line(axiom.rule)} {grounds}."


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f'"{one_line(name)}"' for name in names) if names else "none found"
