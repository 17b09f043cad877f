"""What a report calls each system: a short label ("ark · tuned · T0 · free · kg=gold-union") and the
legends that spell out its short names (the full model spec, what each KG name means) once."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from arkg.agents import follows_protocol
from arkg.eval.results import GOLD_KG, NO_KG, RunConfig
from arkg.eval.setup import PER_QUESTION_KG
from arkg.llm.spec import model_name_parts


def kg_name(kg: str) -> str | None:
    """How a label names the KG a run used (RunConfig.kg); None for strategies that read no KG."""
    if kg == NO_KG:
        return None
    if kg == GOLD_KG:
        return "gold-union"
    if kg == PER_QUESTION_KG or kg.startswith(PER_QUESTION_KG + ":"):
        return kg
    return f"db:{kg}"


def kg_legend(configs: Iterable[RunConfig]) -> list[str]:
    """What each KG name among `configs` means, once per name, in order of first appearance."""
    legend: dict[str, str] = {}
    for config in configs:
        name = kg_name(config.kg)
        if name is None or name in legend:
            continue
        if config.kg == GOLD_KG:
            meaning = (
                "one graph of the union of every question's gold triples, shared by all questions (no distractors;"
                " ARK-V1 searched each question's Wikidata neighbourhood)"
            )
        elif name == PER_QUESTION_KG:
            meaning = "each question's own graph, from the data set"
        elif name.startswith(PER_QUESTION_KG):
            meaning = f"each question's 1-hop neighbourhood snapshot, from {name.partition(':')[2]}"
        else:
            meaning = "the store or endpoint given with --db, shared by all questions"
        legend[name] = meaning
    return [f"kg={name}: {meaning}." for name, meaning in legend.items()]


def model_short_name(spec: str) -> str:
    """A model spec as a label names it: "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf" is
    "SmolLM2-135M-Instruct"; a base with a LoRA adapter is named after the adapter (a shipped one by
    its spec name, "tuned"; another by its file); "openai:gpt-4o-mini@http://host/v1" is "gpt-4o-mini"."""
    base, adapter = model_name_parts(spec)
    return adapter or base


def model_names(specs: Iterable[str]) -> dict[str, str]:
    """Each spec's short name, made unique among `specs` ("tuned#1", "tuned#2" for the same adapter on
    two bases)."""
    by_short: dict[str, list[str]] = {}
    for spec in dict.fromkeys(specs):
        by_short.setdefault(model_short_name(spec), []).append(spec)
    names = {}
    for short, alike in by_short.items():
        for number, spec in enumerate(alike, start=1):
            names[spec] = short if len(alike) == 1 else f"{short}#{number}"
    return names


def model_legend(specs: Iterable[str]) -> list[str]:
    """The full spec behind each short model name that differs from it, once each."""
    shortened = [f"{short} = {spec}" for spec, short in model_names(specs).items() if short != spec]
    return [f"Models: {'; '.join(shortened)}."] if shortened else []


def system_label(config: RunConfig, model: str) -> str:
    """Strategy, model (`model`, its short name), temperature, selection mode, KG, perturbation and
    abstention, e.g. "ark · tuned · T0 · free · kg=gold-union"; a strategy reading no KG names none, and
    a run with its paper's settings says "paper protocol"."""
    mode = config.settings.get("mode")
    parts = [config.strategy, model, f"T{config.temperature:g}", *([str(mode)] if mode else [])]
    if follows_protocol(config.strategy, config.settings) is not None:
        parts.append("paper protocol")  # the settings of --protocol paper, whatever the KG
    kg = kg_name(config.kg)
    if kg is not None:
        parts.append(f"kg={kg}")
    if config.perturbation != "none":
        parts.append(f"perturb={config.perturbation}")
    abstention = config.settings.get("abstention")
    if abstention:
        parts.append("abstain=" + ",".join(f"{key}={value}" for key, value in abstention.items()))
    return " · ".join(parts)


def system_labels(configs: Sequence[RunConfig]) -> list[str]:
    """A distinct label per system: system_label with short model names, plus the settings and model
    identity that differ among systems that would otherwise share a label."""
    names = model_names(config.model for config in configs)
    labels = [system_label(config, names[config.model]) for config in configs]
    distinct = []
    for label, config in zip(labels, configs):
        alike = [other for other, other_label in zip(configs, labels) if other_label == label]
        extra = [
            f"{key}={config.settings.get(key)}"
            for key in sorted({key for other in alike for key in other.settings})
            if len({json.dumps(other.settings.get(key), sort_keys=True, default=str) for other in alike}) > 1
        ]
        if len({other.model_identity for other in alike}) > 1:
            extra.append(f"model {_short_identity(config.model_identity)}")
        distinct.append(" · ".join([label, *extra]))
    return distinct


def _short_identity(identity: str) -> str:
    """The last digest of a model identity, shortened: an adapter's when there is one."""
    digests = re.findall(r"[0-9a-f]{64}", identity)
    return digests[-1][:8] if digests else identity or "unrecorded"
