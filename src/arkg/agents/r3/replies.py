"""What R³ asks the model for at each step: the output specs of its calls.

Free mode asks for names, premise ids and keys as free text, checked afterwards. Constrained mode
asks for the same shapes with those fields as enums of this step's valid values (the entities of the
query, the premises, the keys shown, the entities that can be expanded), and for exactly one
judgement per premise, so the grammar admits nothing else. Whatever the mode, replies are checked
in code as well (e.g. an axiom needs at least one premise: the list has no lower bound, so that a
reply of the right shape always parses and is answered with feedback).

An axiom may be disjunctive: besides its `premises`, further premise sets (`alternatives`), each of
which implies yes on its own. The field may be left out, so that a conjunctive axiom reads as before.

Every string and list is bounded, so grammar-constrained decoding always ends within MAX_REPLY_TOKENS.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import BaseModel, Field, create_model
from pydantic.json_schema import SkipJsonSchema

MAX_NAME_CHARS = 80
MAX_TERM_CHARS = 60  # a premise's property or value
MAX_TEXT_CHARS = 160  # the rule of an axiom; the missing information
MAX_KEY_CHARS = 8  # "T1234" and a little slack; premise ids ("P1") too
MAX_NAMED = 4  # entities the model may name
MAX_PREMISES = 4  # of one premise set
MAX_ALTERNATIVES = 3  # premise sets of one axiom, the first (`premises`) included
MAX_CITED = 5  # keys one premise may cite
MAX_PICKED = 8

# The longest reply the bounds allow is an axiom with MAX_ALTERNATIVES sets of MAX_PREMISES premises,
# about 3,500 characters of JSON; 2,048 tokens leave more than one token per two characters even for
# text of one-letter words (checked against the bundled model's tokenizer in
# tests/agents/r3/test_r3_real_model.py).
MAX_REPLY_TOKENS = 2048

# A premise is a predicate of an entity ("holds", no value) or a function of it compared with a value.
Operator = Literal["holds", "=", "!=", "<", "<=", ">", ">="]
Status = Literal["satisfied", "unsatisfied", "unknown"]

Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
Key = Annotated[str, Field(max_length=MAX_KEY_CHARS)]


class NamedEntities(BaseModel):
    entities: list[Name] = Field(max_length=MAX_NAMED, description="entities the query names")


class PremiseReply(BaseModel):
    entity: str = Field(max_length=MAX_NAME_CHARS, description="the entity the premise is about")
    property: str = Field(max_length=MAX_TERM_CHARS, description="a property or function of the entity")
    operator: Operator
    value: str = Field(max_length=MAX_TERM_CHARS, description='what the property is compared with ("" for holds)')


PremiseSet = Annotated[list[PremiseReply], Field(max_length=MAX_PREMISES)]


class AxiomReply(BaseModel):
    rule: str = Field(max_length=MAX_TEXT_CHARS, description="the commonsense rule, in one sentence")
    premises: list[PremiseReply] = Field(max_length=MAX_PREMISES, description="premises that together imply yes")
    alternatives: list[PremiseSet] = Field(
        default_factory=list,
        max_length=MAX_ALTERNATIVES - 1,
        description="other premise sets, each of which together implies yes as well",
    )


class PickReply(BaseModel):
    picked_keys: list[Key] = Field(max_length=MAX_PICKED, description="keys of the facts that help")


class JudgementReply(BaseModel):
    premise: str = Field(max_length=MAX_KEY_CHARS, description="the premise judged, e.g. P1")
    status: Status
    cited_keys: list[Key] = Field(max_length=MAX_CITED, description="keys of the facts it rests on")


class JudgementsReply(BaseModel):
    judgements: list[JudgementReply] = Field(max_length=MAX_PREMISES * MAX_ALTERNATIVES, description="one per premise")


class MissingReply(BaseModel):
    premise: str = Field(max_length=MAX_KEY_CHARS, description="the unsettled premise, e.g. P1")
    missing: str = Field(max_length=MAX_TEXT_CHARS, description="the information that is missing")
    entity: str = Field(max_length=MAX_NAME_CHARS, description="the entity whose facts could supply it")


def _one_of(values: tuple[str, ...]) -> object:
    return Literal.__getitem__(values)


# Constrained specs, one class per set of valid values (so llama.cpp grammars are built once per set).


@lru_cache(maxsize=128)
def named_entities_for(candidates: tuple[str, ...], limit: int) -> type[NamedEntities]:
    return create_model(
        "NamedEntities",
        __base__=NamedEntities,
        entities=(list[_one_of(candidates)], Field(max_length=min(limit, len(candidates)))),
    )


@lru_cache(maxsize=128)
def axiom_for(entities: tuple[str, ...], max_premises: int, max_alternatives: int) -> type[AxiomReply]:
    premise = create_model("PremiseReply", __base__=PremiseReply, entity=(_one_of(entities), ...))
    premise_set = Annotated[list[premise], Field(max_length=max_premises)]
    alternatives = list[premise_set]
    if max_alternatives == 1:
        # Out of the schema altogether, so that the grammar of a conjunctive axiom is exactly what it always was.
        alternatives = SkipJsonSchema[alternatives]
    return create_model(
        "AxiomReply",
        __base__=AxiomReply,
        premises=(premise_set, ...),
        alternatives=(alternatives, Field(default_factory=list, max_length=max_alternatives - 1)),
    )


@lru_cache(maxsize=128)
def pick_for(keys: tuple[str, ...], limit: int) -> type[PickReply]:
    return create_model(
        "PickReply", __base__=PickReply, picked_keys=(list[_one_of(keys)], Field(max_length=min(limit, len(keys))))
    )


@lru_cache(maxsize=128)
def judgements_for(premises: tuple[str, ...], keys: tuple[str, ...]) -> type[JudgementsReply]:
    """Exactly one judgement per premise, in order (a JSON array of fixed length whose i-th item can
    only judge premise i): small models otherwise judge the first premise and stop."""
    cited = (list[_one_of(keys)], Field(max_length=min(MAX_CITED, len(keys))))
    judgements = [
        create_model("JudgementReply", __base__=JudgementReply, premise=(Literal[premise], ...), cited_keys=cited)
        for premise in premises
    ]
    return create_model("JudgementsReply", __base__=JudgementsReply, judgements=(tuple[tuple(judgements)], ...))


@lru_cache(maxsize=128)
def missing_for(premises: tuple[str, ...], entities: tuple[str, ...]) -> type[MissingReply]:
    return create_model(
        "MissingReply", __base__=MissingReply, premise=(_one_of(premises), ...), entity=(_one_of(entities), ...)
    )
