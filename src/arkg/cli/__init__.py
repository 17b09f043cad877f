"""The `arkg` command line: a thin skin over the Python API (one command, one library call)."""

from __future__ import annotations

import typer

from arkg.cli import ask, evaluate, kg

app = typer.Typer(
    name="arkg",
    help="Answer questions over a knowledge graph with an LLM agent whose factual steps cite KG triples.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(kg.app, name="kg")
ask.register(app)
evaluate.register(app)


def main() -> None:
    app()
