"""Chain-of-thought baselines without a knowledge graph (CoLoTa's zero-shot and few-shot CoT)."""

from __future__ import annotations

from arkg.agents.cot.agent import (
    FEW_SHOT,
    ZERO_SHOT,
    ChainOfThought,
    CotOpenReply,
    CotReply,
    CotSettings,
    CotTrace,
    FewShotCotSettings,
)
from arkg.agents.cot.view import VIEW
from arkg.agents.strategy import StrategyInfo, register

for _name, _settings, _summary in (
    (ZERO_SHOT, CotSettings, "chain of thought without the KG: the model reasons from its own knowledge"),
    (FEW_SHOT, FewShotCotSettings, "chain of thought without the KG, with four worked examples"),
):
    register(
        StrategyInfo(
            name=_name,
            summary=_summary,
            settings=_settings,
            build=lambda model, kg, settings: ChainOfThought(model, settings),
            uses_kg=False,
            max_tokens=256,
            trace_type=CotTrace,
            view=VIEW,
        )
    )

__all__ = ["ChainOfThought", "CotOpenReply", "CotReply", "CotSettings", "CotTrace", "FewShotCotSettings"]
