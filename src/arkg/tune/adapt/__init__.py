"""Adapting the bundled model to one KG (`arkg adapt`): its questions, pairs, tuning and a before/after
evaluation, in one resumable call; see arkg.tune.adapt.run. Tuning needs the `train` extra."""

from arkg.tune.adapt.options import AdaptOptions
from arkg.tune.adapt.run import AdaptError, AdaptProgress, AdaptResult, adapt, adapt_table

__all__ = ["AdaptError", "AdaptOptions", "AdaptProgress", "AdaptResult", "adapt", "adapt_table"]
