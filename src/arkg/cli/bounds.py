"""The range every integer option of the command line keeps to, in a module of its own: commands that
must start fast (`arkg kg`) import it without the agents that arkg.cli.options brings."""

from __future__ import annotations

# At most what a C int holds. Counts, token budgets and seeds go on to SQLite's LIMIT, llama.cpp and
# servers, where a larger number is an internal error, a crash or a silent wrap; typer refuses it
# when it reads the option (a usage error naming the range, exit 2). Every int option names a max.
MAX_INT = 2**31 - 1
# For an option that may also be negative (seeds): typer.Option(**ANY_INT, ...).
ANY_INT = {"min": -MAX_INT - 1, "max": MAX_INT}
