"""Where gold chains come from: each source reads its data into Chains over its own KG.

    source = colota_source("CR-LT-QA.json")      # KG: the union of the gold triples
    source = geo_source("geo.db", "geo.jsonl")     # KG: the geography store
    source = sample_source()                       # KG: the bundled sample graph
    source = domains_source(9, seed=0)             # KG: fictional graphs of many domains
    source.chains, source.unusable
"""

from arkg.synth.sources.base import Source
from arkg.synth.sources.colota import colota_source
from arkg.synth.sources.domains import domains_source
from arkg.synth.sources.geo import geo_source
from arkg.synth.sources.sample import sample_source

__all__ = ["Source", "colota_source", "domains_source", "geo_source", "sample_source"]
