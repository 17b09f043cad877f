"""Instruction synthesis: gold reasoning chains grounded on a KG, turned into KG-Agent programs and
into training pairs in the exact prompt format of the strategies (`arkg synth`).

    from arkg.synth import SynthOptions, geo_source, parse_split, synthesize
    report = synthesize([geo_source("geo.db", "geo.jsonl")], "pairs.jsonl", SynthOptions(), parse_split("default"))

Stages, each reporting what it could not use (an `Unusable` with a `Reason`), never dropping it:
sources (chains.py, grounding.py, sources/) -> programs (programs.py) -> pairs, by leading the real
strategies with the teachers their Lessons name (capture.py, pipeline.py; the contract a teacher
implements is arkg.agents.teaching) -> one JSONL file with its provenance (run.py, split.py,
provenance.py).
"""

# The teaching contract's types that callers of synthesis pass in and read back.
from arkg.agents.teaching import NotFollowed, Pair, Reason, SynthOptions, Variant
from arkg.synth.capture import capture
from arkg.synth.chains import Chain, ChainStep, GroundedFact, Unusable
from arkg.synth.grounding import Ungrounded, ground_fact, ground_name
from arkg.synth.pipeline import Record, synthesize_chain
from arkg.synth.programs import NoProgram, Program, ProgramRun, program_for, run_program
from arkg.synth.run import Progress, SynthReport, synthesize
from arkg.synth.sources import Source, colota_source, geo_source, sample_source
from arkg.synth.split import parse_split

__all__ = [
    "Chain",
    "ChainStep",
    "GroundedFact",
    "NoProgram",
    "NotFollowed",
    "Pair",
    "Program",
    "ProgramRun",
    "Progress",
    "Reason",
    "Record",
    "Source",
    "SynthOptions",
    "SynthReport",
    "Ungrounded",
    "Unusable",
    "Variant",
    "capture",
    "colota_source",
    "geo_source",
    "ground_fact",
    "ground_name",
    "parse_split",
    "program_for",
    "run_program",
    "sample_source",
    "synthesize",
    "synthesize_chain",
]
