"""How `arkg synth` teaches strategies: the Lesson each names (StrategyInfo.teacher), and what teachers share.

Each strategy's teacher and lesson live in its own folder (e.g. arkg.agents.ark.teacher), imported only
when pairs are made."""

from arkg.synth.teachers.lesson import ANY_MODE, Case, Led, Lesson, Unsettled, Variant, lesson_of, taught_strategies

__all__ = ["ANY_MODE", "Case", "Led", "Lesson", "Unsettled", "Variant", "lesson_of", "taught_strategies"]
