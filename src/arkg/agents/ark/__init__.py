"""ARK-V1 (Klein & Ohnemus): explore the KG one anchor and relation at a time, cite facts by key, then answer."""

from __future__ import annotations

from arkg.agents.ark.agent import NAME, ArkAgent
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.ark.trace import ArkTrace
from arkg.agents.ark.view import VIEW
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.strategy import PaperProtocol, StrategyInfo, register

register(
    StrategyInfo(
        name=NAME,
        summary="ARK-V1: pick an anchor, then a relation, read its facts and cite them; repeat, then answer",
        settings=ArkSettings,
        build=lambda model, kg, settings: ArkAgent(kg, model, settings),
        # Enough for the longest reply the bounded reply schemas allow (ark.replies), so none is cut off.
        max_tokens=256,
        trace_type=ArkTrace,
        view=VIEW,
        teacher="arkg.agents.ark.teacher:LESSON",
        tuned_adapter="tuned",
        # Section III: the model writes each anchor and relation itself (eqs. 3, 7 reject invalid ones),
        # C_max 5 attempts with the paper's retries, K_max 8 steps, outgoing edges, no computed lines, the
        # model's answer text as written.
        paper=PaperProtocol(
            table="ARK-V1 Table III",
            settings={"mode": SelectionMode.FREE, "edges": EdgeSet.OUT, "c_max": 5, "k_max": 8, "retry_repeats": True, "compare_values": False, "snap_names": False},
        ),
    )
)

__all__ = ["ArkAgent", "ArkSettings"]
