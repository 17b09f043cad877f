"""KAPING (Baek et al., 2023): retrieve the question entities' facts most similar to it, answer in one call."""

from __future__ import annotations

from arkg.agents.kaping.agent import (
    NAME,
    AnswerAttempt,
    EntitiesLinked,
    FactsRetrieved,
    Kaping,
    KapingSettings,
    KapingTrace,
    Stopped,
    StopReason,
)
from arkg.agents.kaping.view import VIEW
from arkg.agents.strategy import StrategyInfo, register

register(
    StrategyInfo(
        name=NAME,
        summary="KAPING: retrieve the question entities' facts most similar to it, answer in one call citing them",
        settings=KapingSettings,
        build=lambda model, kg, settings: Kaping(kg, model, settings),
        max_tokens=256,
        trace_type=KapingTrace,
        view=VIEW,
        teacher="arkg.agents.kaping.teacher:LESSON",
    )
)

__all__ = [
    "AnswerAttempt",
    "EntitiesLinked",
    "FactsRetrieved",
    "Kaping",
    "KapingSettings",
    "KapingTrace",
    "StopReason",
    "Stopped",
]
