"""docs/cli.md and the settings tables of docs/strategies.md are written from the code: they must be current."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import pytest
import typer

from arkg.cli import reference


def test_the_generated_pages_are_current() -> None:
    """Fails after a change to a command, an option's help or a strategy's settings until the pages are rewritten."""
    stale = reference.stale_pages()
    assert not stale, f"stale: {', '.join(map(str, stale))}; run: python -m arkg.cli.reference"


def test_check_mode_names_a_stale_page_and_writes_nothing(tmp_path: Path, monkeypatch, capsys) -> None:
    page = tmp_path / "cli.md"
    page.write_text("# an old reference\n", encoding="utf-8")
    monkeypatch.setattr(reference, "expected_pages", lambda: {page: "# the new reference\n"})
    assert reference.main(["--check"]) == 1
    assert f"{page} is stale" in capsys.readouterr().err
    assert page.read_text(encoding="utf-8") == "# an old reference\n"
    assert reference.main([]) == 0
    assert page.read_text(encoding="utf-8") == "# the new reference\n"
    assert reference.main(["--check"]) == 0


class Colour(str, Enum):
    RED = "red"
    BLUE = "blue"


def test_a_command_reads_as_usage_arguments_and_options() -> None:
    app = typer.Typer(help="A tool.")
    group = typer.Typer(help="Things to paint.")
    app.add_typer(group, name="paint")

    @group.command("wall")
    def wall(
        rooms: Annotated[list[Path], typer.Argument(help="Rooms to paint.")],
        colour: Annotated[Colour, typer.Option(help="Which | paint.")] = Colour.BLUE,
        coats: Annotated[int, typer.Option(min=1, max=3, help="Coats of paint.")] = 2,
        tags: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Labels.")] = None,
        out: Annotated[Path, typer.Option(help="Report file.")] = ...,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Paint nothing.")] = False,
    ) -> None:
        """Paint the walls of ROOMS."""

    @group.command("door")
    def door(name: Annotated[str | None, typer.Argument(metavar="DOOR", help="Which door.")] = None) -> None:
        """Paint a door."""

    page = reference.cli_reference(app)
    assert "#### `arkg paint wall`\n\nPaint the walls of ROOMS.\n\n```text\narkg paint wall [OPTIONS] ROOMS...\n```" in page
    assert "| `ROOMS` | path | Rooms to paint. |" in page
    assert "| `--colour` | red \\| blue | `blue` | Which \\| paint. |" in page
    assert "| `--coats` | int, ≥ 1 and ≤ 3 | `2` | Coats of paint. |" in page
    assert "| `--tag` / `-t` | str, repeatable |  | Labels. |" in page
    assert "| `--out` | path | required | Report file. |" in page
    assert "| `--dry-run` | flag |  | Paint nothing. |" in page
    assert "```text\narkg paint door [DOOR]\n```" in page and "| `DOOR` | str | Which door. |" in page
    assert page.index("`arkg paint wall`") < page.index("`arkg paint door`")  # the order --help lists them in
    assert "--install-completion" not in page


def test_settings_blocks_are_filled_from_the_registry_and_an_unknown_name_is_an_error() -> None:
    page = "## ARK\n<!-- settings: ark -->\nan old table\n<!-- end settings -->\nprose stays\n"
    filled = reference.with_settings_tables(page)
    assert "an old table" not in filled and filled.endswith("<!-- end settings -->\nprose stays\n")
    assert "| `k_max` | int, ≥ 1 | `8` | reasoning steps before the final answer is forced |" in filled
    assert "| `mode` | free \\| constrained | `constrained` |" in filled
    assert reference.with_settings_tables(filled) == filled  # rewriting is idempotent

    cot_fewshot = reference.settings_table("cot-fewshot")  # changes only a default: keeps its parent's description
    assert "| `few_shot` | bool | `True` | show worked examples in the system prompt |" in cot_fewshot

    with pytest.raises(ValueError, match="strategies.md: no strategy named 'nope' is registered"):
        reference.with_settings_tables("<!-- settings: nope -->\n<!-- end settings -->\n")
