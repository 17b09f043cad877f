"""Render system reports as tables (rows of text) and as Markdown or HTML documents."""

from __future__ import annotations

import html
from pathlib import Path

from arkg.eval.comparisons import constant_baselines, paired_comparisons, question_set_warning
from arkg.eval.labels import kg_legend, model_legend
from arkg.eval.metrics import Scores, Spread
from arkg.eval.plots import save_plots
from arkg.eval.report import SystemReport, follows_paper, perturbation_effects
from arkg.tables import Table, markdown_table
from arkg.text import one_line

NOT_AVAILABLE = "n/a"


def percent(spread: Spread | None, interval: bool = False) -> str:
    """`57.67 ± 2.68` (mean ± sample std over runs, in %), `59.00` for one run, `n/a` if undefined;
    with `interval`, followed by the spread's 95% interval: `59.00 (49.2–68.1)`."""
    if spread is None:
        return NOT_AVAILABLE
    text = f"{spread.mean * 100:.2f}" if spread.std is None else f"{spread.mean * 100:.2f} ± {spread.std * 100:.2f}"
    if interval and spread.interval is not None:
        text += f" ({spread.interval.low * 100:.1f}–{spread.interval.high * 100:.1f})"
    return text


def results_table(systems: list[SystemReport]) -> Table:
    """Shaped like the paper's Table III, one row per system, then the constant answers of a yes/no data
    set; titled after the paper only when every system follows its protocol (follows_paper), with a
    legend of the models and KGs the labels name."""
    papers = [follows_paper(system.config) for system in systems]
    paper = papers[0] if papers and all(p is not None and p is papers[0] for p in papers) else None
    rows = [
        [
            system.label,
            *_score_cells(system.scores),
            _yes_no_answers(system),
            f"{system.calls_per_question:.1f}",
            f"{system.tokens_per_question:,.0f}",
        ]
        for system in systems
    ]
    baselines = constant_baselines(systems)
    for baseline in baselines:
        count = baseline.scores.questions
        answers = f"{count} / 0 / 0" if baseline.answer else f"0 / {count} / 0"
        rows.append([baseline.label, "–", *_score_cells(baseline.scores)[1:], answers, "–", "–"])
    return Table(
        title=f"Results (cf. {paper.table})" if paper else "Results",
        header=["System", "Runs", "Questions", "Answer rate %", "Cond. acc. % (95% CI)", "Overall acc. % (95% CI)",
                "Reliab.", "Yes/no answers True / False / None", "Calls/q", "Tokens/q"],
        rows=rows,
        footnote=" ".join([
            "Answer rate: share of questions given a definite answer (True/False for yes/no questions; for open "
            "ones any answer). Conditional accuracy: share of those answers that are right. Overall accuracy: share "
            "of all questions answered right (None counts as wrong). Mean ± sample standard deviation (ddof = 1) "
            "over runs; a single run has no deviation. In brackets the 95% Wilson interval over the questions "
            "counted (with several runs, at the mean over runs). Reliability = mean over questions of "
            "1 − H/log2(3) of the runs' answers; n/a with a single run. Yes/no answers: summed over runs. Calls "
            "and tokens: mean per question and run.",
            *(["always True / always False: that answer to every question of a yes/no question set, the floor a "
               "system has to clear."] if baselines else []),
            *model_legend(system.config.model for system in systems),
            *kg_legend(system.config for system in systems),
        ]),
    )


def _score_cells(scores: Scores) -> list[str]:
    return [
        str(scores.runs),
        str(scores.questions),
        percent(scores.answer_rate),
        percent(scores.conditional_accuracy, interval=True),
        percent(scores.overall_accuracy, interval=True),
        NOT_AVAILABLE if scores.reliability is None else f"{scores.reliability:.2f}",
    ]


def _yes_no_answers(system: SystemReport) -> str:
    answers = system.yes_no_answers
    if not answers:
        return NOT_AVAILABLE
    return f"{answers[True]} / {answers[False]} / {answers[None]}"


def open_questions_table(systems: list[SystemReport]) -> Table:
    """The metrics of open-question KGQA, for systems that ran open questions (gold: names or a number)."""
    rows = []
    for system in systems:
        scores = system.open_scores
        if scores is None:
            continue
        rows.append(
            [
                system.label,
                str(scores.runs),
                str(scores.questions),
                percent(scores.hits_at_1, interval=True),
                percent(scores.strict_hits_at_1, interval=True),
                percent(scores.exact_match, interval=True),
                percent(scores.precision),
                percent(scores.recall),
                percent(scores.f1),
            ]
        )
    return Table(
        title="Open questions",
        header=["System", "Runs", "Open questions", "Hits@1 % (RoG)", "Strict Hits@1 %", "Exact match %",
                "Precision %", "Recall %", "F1 %"],
        rows=rows,
        footnote=(
            "An answer is read as a list of names: split at commas, semicolons and 'and'; where it holds a semicolon, "
            "also split at semicolons only; and whole, as one name. The reading that pairs the most names with gold "
            "names (highest F1) is scored; a name given twice counts once; a number is read whole and compared by "
            "value. A name matches a gold name up to case, accents and small typos, and each pairs with one. "
            "Hits@1 (RoG): some name given is gold. Strict Hits@1: the first name given is gold. Exact match: the "
            "names and the gold names pair up exactly (the `correct` of the results file). Precision: share of the "
            "names given that are gold; recall: share of the gold names given; F1: their harmonic mean. No answer "
            "names nothing and scores 0 on all. Each is the mean over the open questions (macro), then mean ± "
            "sample standard deviation over runs; in brackets the 95% Wilson interval."
        ),
    )


def paired_table(systems: list[SystemReport]) -> Table:
    """Every two single-run systems on the questions both ran: is the difference larger than chance?"""
    rows = [
        [
            pair.first.label,
            pair.second.label,
            str(pair.shared),
            f"{pair.first_accuracy * 100:.1f}",
            f"{pair.second_accuracy * 100:.1f}",
            f"{(pair.first_accuracy - pair.second_accuracy) * 100:+.1f}",
            str(pair.only_first),
            str(pair.only_second),
            f"{pair.p:.3f}" if pair.p >= 0.001 else "<0.001",
        ]
        for pair in paired_comparisons(systems)
    ]
    return Table(
        title="Paired comparisons",
        header=["System A", "System B", "Shared questions", "Acc. A %", "Acc. B %", "A − B (pp)", "Only A right",
                "Only B right", "McNemar p"],
        rows=rows,
        footnote=(
            "Over the questions both systems ran (a failed or undecided answer counts as wrong), systems with a "
            "single run. McNemar p: exact two-sided test on the questions only one of the two gets right; under no "
            "difference they fall to either side with probability 1/2. p < 0.05 says the difference is unlikely "
            "to be chance on these questions; with a few discordant questions no difference can reach it."
        ),
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
        header=["Reasoning strategy", "Questions", *(s.label for s in systems)],
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
                _fraction(evidence.retrieved_recall) if evidence else NOT_AVAILABLE,
                _fraction(evidence.cited_recall) if evidence else NOT_AVAILABLE,
                _fraction(evidence.citation_precision) if evidence else NOT_AVAILABLE,
                f"{evidence.hops:.2f}" if evidence else NOT_AVAILABLE,
                f"{grounding.violations} in {grounding.records_with_violations}" if grounding else NOT_AVAILABLE,
                _fraction(system.supported_share),
                " / ".join(str(basis.get(kind, 0)) for kind in BASIS_ORDER) if grounding else NOT_AVAILABLE,
            ]
        )
    return Table(
        title="Evidence and grounding",
        header=["System", "Gold retrieved %", "Gold cited %", "Citation precision %", "Hops",
                "Grounding violations", "Supported %", "Basis: " + " / ".join(BASIS_ORDER)],
        rows=rows,
        footnote=(
            "Gold retrieved / cited: share of a question's gold triples the strategy showed the model / cited, mean "
            "over questions and runs. Citation precision: share of cited triples that are gold, over answers citing "
            "something. Hops: how far from the question's entities the retrieved triples reach. Grounding violations: "
            "citations not in the KG or never shown to the model (0 is the bar), in how many answers. Supported: share "
            "of definite answers whose cited facts lead to them (arkg.agents.support: every name of the answer in a "
            "cited fact reached from an entity of the question; for yes/no, facts about the question's entities and "
            "re-run computations). Basis: answers resting on supporting KG facts, on stated commonsense, on both, on "
            "cited facts that do not support them, on neither, and no answer."
        ),
    )


BASIS_ORDER = ("kg", "kg (closed world)", "commonsense", "kg+commonsense", "unsupported", "neither", "no answer", "unknown entity")


def abstention_table(systems: list[SystemReport]) -> Table:
    """The paper's trade-off with grounded abstention beside the paper-faithful setting, and the
    self-consistency points of multi-run systems."""
    rows = []
    for system in systems:
        grounded, supported = system.grounded, system.supported
        points = "; ".join(
            f"≥{point.agreement:.0%}: {point.answer_rate * 100:.1f} / {_fraction(point.conditional_accuracy)}"
            for point in system.coverage
        )
        rows.append(
            [
                system.label,
                percent(system.scores.answer_rate),
                percent(system.scores.conditional_accuracy),
                percent(grounded.answer_rate) if grounded else NOT_AVAILABLE,
                percent(grounded.conditional_accuracy) if grounded else NOT_AVAILABLE,
                percent(supported.answer_rate) if supported else NOT_AVAILABLE,
                percent(supported.conditional_accuracy) if supported else NOT_AVAILABLE,
                points or NOT_AVAILABLE,
            ]
        )
    return Table(
        title="Abstention: answer rate vs conditional accuracy",
        header=["System", "Answer rate %", "Cond. acc. %", "Answer rate % (grounded)", "Cond. acc. % (grounded)",
                "Answer rate % (abstaining when unsupported)", "Cond. acc. % (abstaining when unsupported)", "Self-consistency over runs: agreement: answer rate / cond. acc. %"],
        rows=rows,
        footnote=(
            "Grounded: a True/False answer that cites no fact of the KG counts as None. Supported: only answers whose "
            "cited facts support them count, the others as None (what --abstain-unsupported answers; support as the "
            "selector): answer rate is the share of questions with a supported definite answer, cond. acc. the share of those that are right. Self-consistency (systems with "
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
                str(effect.compared),
                str(effect.not_applied),
                share(effect.abstained),
                share(effect.changed),
                share(effect.correct),
            ]
        )
    return Table(
        title="Perturbed KGs: does the answer follow the graph?",
        header=["System", "Perturbation", "Compared", "Not applicable", "Abstained %", "Changed %", "Correct %"],
        rows=rows,
        footnote=(
            "Each perturbed run against the same system on the unperturbed KG, over the questions where the "
            "perturbation applied. remove-gold: a grounded strategy should abstain. replace-tail: a grounded "
            "answer should change. add-conflict: the graph contradicts itself. Correct: by the original gold answer."
        ),
    )


def report_tables(systems: list[SystemReport]) -> list[Table]:
    """Every table of a report, in order; the open-question, paired and perturbation tables only when
    there is something to show."""
    tables = [results_table(systems)]
    if any(system.open_scores for system in systems):
        tables.append(open_questions_table(systems))
    paired = paired_table(systems)
    if paired.rows:
        tables.append(paired)
    tables += [evidence_table(systems), abstention_table(systems)]
    if any(system.config.perturbation != "none" for system in systems):
        tables.append(perturbation_table(systems))
    return [*tables, strategy_table(systems)]


def _fraction(value: float | None) -> str:
    return NOT_AVAILABLE if value is None else f"{value * 100:.1f}"


def warnings(systems: list[SystemReport]) -> list[str]:
    """What makes the rows of a report less comparable than they look."""
    warning = question_set_warning(systems)
    return [warning] if warning else []


def notes(systems: list[SystemReport]) -> list[str]:
    return [f"{system.label}: {note}" for system in systems for note in system.notes]


def to_markdown(tables: list[Table], warnings: list[str], notes: list[str], images: list[Path]) -> str:
    """The report as Markdown. Labels, model and KG names, notes and warnings come from results files:
    every text is escaped (markdown_text), so that none of it renders as markup, links or HTML."""
    parts = ["# Evaluation report", ""]
    for warning in warnings:
        parts += [f"**Warning:** {markdown_text(warning)}", ""]
    for table in tables:
        parts += markdown_table(_escaped(table), heading="## ")
    if notes:
        parts += ["## Notes", "", *(f"- {markdown_text(note)}" for note in notes), ""]
    if images:
        parts += ["## Plots", "", *(f"![{image.stem}]({image.name})" for image in images), ""]
    return "\n".join(parts)


# Characters that could start Markdown or HTML (or escape the next one): each is written behind a
# backslash, CommonMark's escape of ASCII punctuation, which renders as the character itself.
_MARKDOWN_SPECIAL = "\\`*_[]<>|&"


def markdown_text(text: str, pipes: bool = True) -> str:
    """`text` on one line with its Markdown specials escaped; `pipes=False` leaves `|` to
    markdown_table, which escapes it in cells."""
    special = _MARKDOWN_SPECIAL if pipes else _MARKDOWN_SPECIAL.replace("|", "")
    return "".join(f"\\{char}" if char in special else char for char in one_line(text))


def _escaped(table: Table) -> Table:
    def cell(text: str) -> str:
        return markdown_text(text, pipes=False)

    return Table(
        title=markdown_text(table.title),
        header=[cell(text) for text in table.header],
        rows=[[cell(text) for text in row] for row in table.rows],
        footnote=markdown_text(table.footnote),
    )


def to_html(tables: list[Table], warnings: list[str], notes: list[str], images: list[Path]) -> str:
    body = ["<h1>Evaluation report</h1>", *(f"<p><strong>Warning:</strong> {html.escape(warning)}</p>" for warning in warnings)]
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
    path.write_text(render(tables, warnings(systems), notes(systems), images), encoding="utf-8")
    return [path, *images]
