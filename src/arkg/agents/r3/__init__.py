"""R³ (Toroghi et al., 2024): surface a commonsense axiom as typed premises, ground each on KG facts."""

from __future__ import annotations

from arkg.agents.r3.agent import NAME, R3
from arkg.agents.r3.replies import MAX_REPLY_TOKENS
from arkg.agents.r3.settings import R3Settings
from arkg.agents.r3.trace import R3Trace
from arkg.agents.r3.view import VIEW
from arkg.agents.modes import SelectionMode
from arkg.agents.retrieval import RankerName
from arkg.agents.strategy import PaperProtocol, StrategyInfo, register

register(
    StrategyInfo(
        name=NAME,
        summary="R³: state a commonsense axiom as premises, judge each on the KG facts it cites; expand, or branch",
        settings=R3Settings,
        build=lambda model, kg, settings: R3(kg, model, settings),
        # Enough for the longest reply the bounded reply schemas allow (r3.replies), so none is cut off.
        max_tokens=MAX_REPLY_TOKENS,
        trace_type=R3Trace,
        view=VIEW,
        # The model states facts and premises freely; facts ranked by sentence embeddings; depth and breadth 2.
        paper=PaperProtocol(
            table="R³ Table 2",
            settings={"mode": SelectionMode.FREE, "ranker": RankerName.DENSE, "max_depth": 2, "max_breadth": 2},
        ),
    )
)

__all__ = ["R3", "R3Settings"]
