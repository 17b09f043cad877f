"""Teachers: scripted models that reply with the gold decision at each call of one strategy."""

from arkg.synth.teachers.ark import ArkTeacher
from arkg.synth.teachers.kaping import KapingTeacher
from arkg.synth.teachers.kg_agent import KgAgentTeacher

__all__ = ["ArkTeacher", "KapingTeacher", "KgAgentTeacher"]
