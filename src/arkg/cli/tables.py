"""Print a report Table so that no column is ever lost.

Not a terminal (piped, redirected): Markdown, one line per row, never wrapped, so files and other
programs get every cell. A terminal wide enough: a rich table in which no word of up to FOLD_AT
characters is split (longer ones, such as model file names, fold). Narrower: one block per row,
"header: value" per line. Every cell goes through `one_line`: results files hold text from the KG and
the model, which must not move the cursor or break a row.
"""

from __future__ import annotations

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from arkg.tables import Table, markdown_table
from arkg.text import one_line

# Words up to this many cells are never split in a terminal table.
FOLD_AT = 16
_BOX = box.HEAVY_HEAD


def print_table(console: Console, table: Table) -> None:
    table = _sanitised(table)
    if not console.is_terminal:
        console.print("\n".join(markdown_table(table)), markup=False, highlight=False, soft_wrap=True)
        return
    widths = column_widths(table, console.width)
    if widths is None:
        _print_stacked(console, table)
    else:
        console.print(_rich_table(table, widths))


def column_widths(table: Table, width: int) -> list[int] | None:
    """Content width per column for a boxed table `width` cells wide, or None if it cannot fit.

    Each column gets at least its longest word (at most FOLD_AT). What is left goes to the cells of
    the value columns first (a number should stay on one line), then to the first column (the row's
    name), then to headers, each up to its longest line.
    """
    columns = list(zip(table.header, *table.rows))
    longest_word = [min(FOLD_AT, max((cell_len(word) for cell in column for word in cell.split()), default=1)) for column in columns]
    # One space of padding on each side of each cell, and a border between and around columns.
    spare = width - (3 * len(columns) + 1) - sum(longest_word)
    if spare < 0:
        return None
    widths = list(longest_word)
    cells = [max((cell_len(cell) for cell in column[1:]), default=0) for column in columns]
    whole = [max(cell_len(cell) for cell in column) for column in columns]
    for wanted in ([0, *cells[1:]], [whole[0]], whole):
        for index, target in enumerate(wanted):
            extra = max(0, min(spare, target - widths[index]))
            widths[index] += extra
            spare -= extra
    return widths


def _rich_table(table: Table, widths: list[int]) -> RichTable:
    rendered = RichTable(title=Text(table.title), caption=Text(table.footnote), box=_BOX)
    for header, width in zip(table.header, widths):
        rendered.add_column(Text(header), width=width, overflow="fold")
    for row in table.rows:
        rendered.add_row(*(Text(cell) for cell in row))
    return rendered


def _print_stacked(console: Console, table: Table) -> None:
    console.print(Text(table.title, style="bold"))
    first, *others = table.header
    for row in table.rows:
        console.print(Text.assemble((f"{first}: ", "dim"), (row[0], "bold")))
        for header, cell in zip(others, row[1:]):
            console.print(Text.assemble("  ", (f"{header}: ", "dim"), cell))
    if table.footnote:
        console.print(Text(table.footnote, style="dim"))
    console.print()


def _sanitised(table: Table) -> Table:
    return Table(
        title=one_line(table.title),
        header=[one_line(cell) for cell in table.header],
        rows=[[one_line(cell) for cell in row] for row in table.rows],
        footnote=one_line(table.footnote),
    )
