"""A table of text cells, and its Markdown form: what reports (evaluation, synthesis, data sets) hand to
whoever shows them. The terminal's rendering lives in arkg.cli.tables; this module sits below every
layer that makes tables, so that none of them imports another's."""

from __future__ import annotations

from dataclasses import dataclass

from arkg.text import one_line


@dataclass(frozen=True)
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    footnote: str = ""


def markdown_table(table: Table, heading: str = "") -> list[str]:
    """The table as Markdown lines: `heading` + title, header, rows, footnote. Cells are kept on one
    line (`one_line`), whatever text the KG or the model put in them."""
    lines = [heading + one_line(table.title), "", _markdown_row(table.header), _markdown_row(["---"] * len(table.header))]
    lines += [_markdown_row(row) for row in table.rows]
    return lines + (["", one_line(table.footnote), ""] if table.footnote else [""])


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(one_line(cell).replace("|", "\\|") for cell in cells) + " |"
