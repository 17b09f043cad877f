"""Evaluation: CoLoTa data sets, the ARK-V1 paper's metrics, resumable runs, and reports.

    dataset = load_dataset("CR-LT-QA.json")
    kg = build_graph(dataset)
    scores = score_runs([{"S1": True, "S2": None}], {"S1": True, "S2": False})
"""

from arkg.eval.colota import Dataset, Effect, Problem, Question, build_graph, load_dataset
from arkg.eval.metrics import RunScores, Scores, Spread, reliability, score_run, score_runs
from arkg.eval.report import SystemReport, build_report
from arkg.eval.results import Record, ResultsWriter, RunConfig, read_results
from arkg.eval.runner import RunSummary, StopReason, run_evaluation
from arkg.eval.writer_lock import FileBusy

__all__ = [
    "Dataset",
    "Effect",
    "FileBusy",
    "Problem",
    "Question",
    "Record",
    "ResultsWriter",
    "RunConfig",
    "RunScores",
    "RunSummary",
    "Scores",
    "Spread",
    "StopReason",
    "SystemReport",
    "build_graph",
    "build_report",
    "load_dataset",
    "read_results",
    "reliability",
    "run_evaluation",
    "score_run",
    "score_runs",
]
