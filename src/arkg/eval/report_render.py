"""Render system reports as tables (rows of text) and as Markdown or HTML documents."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from arkg.eval.metrics import Spread
from arkg.eval.plots import save_plots
from arkg.eval.report import SystemReport, follows_paper, kg_legend, perturbation_effects
from arkg.text import one_line

NOT_AVAILABLE = "n/a"


@dataclass(frozen=True)
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    footnote: str = ""


def percent(spread: Spread | None) -> str:
    """`57.67 ± 2.68` (mean ± sample std over runs, in %), `59.00` for one run, `n/a` if undefined."""
    if spread is None:
        return NOT_AVAILABLE
    if spread.std is None:
        return f"{spread.mean * 100:.2f}"
    return f"{spread.mean * 100:.2f} ± {spread.std * 100:.2f}"


def results_table(systems: list[SystemReport]) -> Table:
    """Shaped like the paper's Table III, one row per system and temperature; titled after it only when
    every row follows the paper's protocol (follows_paper), and with a legend of the KGs the rows name."""
    paper = bool(systems) and all(follows_paper(system.config) for system in systems)
    rows = []
    for system in systems:
        scores = system.scores
        rows.append(
            [
                system.label,
                f"{system.config.temperature:g}",
                str(scores.runs),
                str(scores.questions),
                percent(scores.answer_rate),
                percent(scores.conditional_accuracy),
                percent(scores.overall_accuracy),
                NOT_AVAILABLE if scores.reliability is None else f"{scores.reliability:.2f}",
                f"{system.calls_per_question:.1f}",
                f"{system.tokens_per_question:,.0f}",
            ]
        )
    return Table(
        title="Results (cf. ARK-V1 Table III)" if paper else "Results",
        header=["System", "T", "Runs", "Questions", "Answer rate %", "Cond. acc. %", "Overall acc. %", "Reliab.",
                "Calls/q", "Tokens/q"],
        rows=rows,
        footnote=" ".join([
            "Mean ± sample standard deviation (ddof = 1) over runs; a single run has no deviation. "
            "Overall accuracy counts None as wrong. Reliability = mean over questions of 1 − H/log2(3); "
            "n/a with a single run. Calls and tokens: mean per question and run.",
            *kg_legend(system.config for system in systems),
        ]),
    )


def strategy_table(systems: list[SystemReport]) -> Table:
    """Overall accuracy (%) per CoLoTa reasoning strategy, one column per system."""
    labels = sorted({label for system in systems for label in system.by_reasoning_strategy})
    rows = []
    for label in labels:
        counts = {s.by_reasoning_strategy[label].questions for s in systems if label in s.by_reasoning_strategy}
        cells = [
            f"{s.by_reasoning_strategy[label].overall_accuracy * 100:.1f}" if label in s.by_reasoning_strategy else "–"
            for s in systems
        ]
        rows.append([label, "/".join(map(str, sorted(counts))), *cells])
    return Table(
        title="Overall accuracy % by reasoning strategy",
        header=["Reasoning strategy", "Questions", *(f"{s.label} (T={s.config.temperature:g})" for s in systems)],
        rows=rows,
        footnote=(
            "A question counts under each of its strategies; mean over runs. Questions: how many carry the "
            "strategy, one number per distinct question set when the systems ran on different subsets."
        ),
    )


def evidence_table(systems: list[SystemReport]) -> Table:
    """Gold evidence retrieved and cited, citation precision, hops, grounding violations, basis."""
    rows = []
    for system in systems:
        evidence, grounding = system.evidence, system.grounding
        basis = grounding.basis if grounding else {}
        rows.append(
            [
                system.label,
                f"{system.config.temperature:g}",
                _fraction(evidence.retrieved_recall) if evidence else NOT_AVAILABLE,
                _fraction(evidence.cited_recall) if evidence else NOT_AVAILABLE,
                _fraction(evidence.citation_precision) if evidence else NOT_AVAILABLE,
                f"{evidence.hops:.2f}" if evidence else NOT_AVAILABLE,
                f"{grounding.violations} in {grounding.records_with_violations}" if grounding else NOT_AVAILABLE,
                " / ".join(str(basis.get(kind, 0)) for kind in BASIS_ORDER) if grounding else NOT_AVAILABLE,
            ]
        )
    return Table(
        title="Evidence and grounding",
        header=["System", "T", "Gold retrieved %", "Gold cited %", "Citation precision %", "Hops",
                "Grounding violations", "Basis: " + " / ".join(BASIS_ORDER)],
        rows=rows,
        footnote=(
            "Gold retrieved / cited: share of a question's gold triples the strategy showed the model / cited, mean "
            "over questions and runs. Citation precision: share of cited triples that are gold, over answers citing "
            "something. Hops: how far from the question's entities the retrieved triples reach. Grounding violations: "
            "citations not in the KG or never shown to the model (0 is the bar), in how many answers. Basis: answers "
            "resting on KG facts, on stated commonsense, on both, on neither, and no answer."
        ),
    )


BASIS_ORDER = ("kg", "commonsense", "kg+commonsense", "neither", "no answer")


def abstention_table(systems: list[SystemReport]) -> Table:
    """The paper's trade-off with grounded abstention beside the paper-faithful setting, and the
    self-consistency points of multi-run systems."""
    rows = []
    for system in systems:
        grounded = system.grounded
        points = "; ".join(
            f"≥{point.agreement:.0%}: {point.answer_rate * 100:.1f} / {_fraction(point.conditional_accuracy)}"
            for point in system.coverage
        )
        rows.append(
            [
                system.label,
                f"{system.config.temperature:g}",
                percent(system.scores.answer_rate),
                percent(system.scores.conditional_accuracy),
                percent(grounded.answer_rate) if grounded else NOT_AVAILABLE,
                percent(grounded.conditional_accuracy) if grounded else NOT_AVAILABLE,
                points or NOT_AVAILABLE,
            ]
        )
    return Table(
        title="Abstention: answer rate vs conditional accuracy",
        header=["System", "T", "Answer rate %", "Cond. acc. %", "Answer rate % (grounded)", "Cond. acc. % (grounded)",
                "Self-consistency over runs: agreement: answer rate / cond. acc. %"],
        rows=rows,
        footnote=(
            "Grounded: a True/False answer that cites no fact of the KG counts as None. Self-consistency (systems with "
            "several runs): a question counts as answered when at least that share of its runs give the same answer."
        ),
    )


def perturbation_table(systems: list[SystemReport]) -> Table:
    """Does each strategy follow the graph? Its answers on perturbed KGs against the unperturbed run."""
    rows = []
    for effect in perturbation_effects(systems):
        share = (lambda count: f"{count / effect.compared * 100:.1f}") if effect.compared else (lambda count: NOT_AVAILABLE)
        rows.append(
            [
                effect.baseline.label,
                effect.system.config.perturbation,
                f"{effect.system.config.temperature:g}",
                str(effect.compared),
                str(effect.not_applied),
                share(effect.abstained),
                share(effect.changed),
                share(effect.correct),
            ]
        )
    return Table(
        title="Perturbed KGs: does the answer follow the graph?",
        header=["System", "Perturbation", "T", "Compared", "Not applicable", "Abstained %", "Changed %", "Correct %"],
        rows=rows,
        footnote=(
            "Each perturbed run against the same system on the unperturbed KG, over the questions where the "
            "perturbation applied. remove-gold: a grounded strategy should abstain. replace-tail: a grounded "
            "answer should change. add-conflict: the graph contradicts itself. Correct: by the original gold answer."
        ),
    )


def report_tables(systems: list[SystemReport]) -> list[Table]:
    """Every table of a report, in order (the perturbation table only when perturbed runs are present)."""
    tables = [results_table(systems), evidence_table(systems), abstention_table(systems)]
    if any(system.config.perturbation != "none" for system in systems):
        tables.append(perturbation_table(systems))
    return [*tables, strategy_table(systems)]


def _fraction(value: float | None) -> str:
    return NOT_AVAILABLE if value is None else f"{value * 100:.1f}"


def notes(systems: list[SystemReport]) -> list[str]:
    return [f"{system.label} (T={system.config.temperature:g}): {note}" for system in systems for note in system.notes]


def to_markdown(tables: list[Table], notes: list[str], images: list[Path]) -> str:
    parts = ["# Evaluation report", ""]
    for table in tables:
        parts += markdown_table(table, heading="## ")
    if notes:
        parts += ["## Notes", "", *(f"- {one_line(note)}" for note in notes), ""]
    if images:
        parts += ["## Plots", "", *(f"![{image.stem}]({image.name})" for image in images), ""]
    return "\n".join(parts)


def markdown_table(table: Table, heading: str = "") -> list[str]:
    """The table as Markdown lines: `heading` + title, header, rows, footnote. Cells are kept on one
    line (`one_line`), whatever text the KG or the model put in them."""
    lines = [heading + one_line(table.title), "", _markdown_row(table.header), _markdown_row(["---"] * len(table.header))]
    lines += [_markdown_row(row) for row in table.rows]
    return lines + (["", one_line(table.footnote), ""] if table.footnote else [""])


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(one_line(cell).replace("|", "\\|") for cell in cells) + " |"


def to_html(tables: list[Table], notes: list[str], images: list[Path]) -> str:
    body = ["<h1>Evaluation report</h1>"]
    for table in tables:
        body.append(f"<h2>{html.escape(table.title)}</h2><table>")
        body.append("<tr>" + "".join(f"<th>{html.escape(cell)}</th>" for cell in table.header) + "</tr>")
        body += ["<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in table.rows]
        body.append(f"</table><p>{html.escape(table.footnote)}</p>")
    if notes:
        body.append("<h2>Notes</h2><ul>" + "".join(f"<li>{html.escape(note)}</li>" for note in notes) + "</ul>")
    body += [f'<img src="{html.escape(image.name)}" alt="{html.escape(image.stem)}">' for image in images]
    style = "table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}img{max-width:48%}"
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Evaluation report</title>'
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )


def write_report(systems: list[SystemReport], path: Path, as_html: bool) -> list[Path]:
    """Write the report document and its plots (PNG files beside it); return every file written."""
    images = save_plots(systems, path.with_suffix(""))
    tables = report_tables(systems)
    render = to_html if as_html else to_markdown
    path.write_text(render(tables, notes(systems), images), encoding="utf-8")
    return [path, *images]
