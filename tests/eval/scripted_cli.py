"""`arkg` run as a user runs it, in its own process, with the model replaced by the scripted one of
scripted_eval (answers depend only on the question and the seed).

    python tests/eval/scripted_cli.py eval --dataset D --strategy cot --out O [...]

ARKG_TEST_DELAY: seconds each model call takes (default 0), so that a test can signal the run midway.
"""

from __future__ import annotations

import os
import sys

import arkg.eval.setup
from arkg.cli import main
from scripted_eval import scripted_model


def open_scripted(spec: str | None = None, **options: object):
    return scripted_model(float(os.environ.get("ARKG_TEST_DELAY", "0")))


if __name__ == "__main__":
    arkg.eval.setup.open_model = open_scripted
    sys.argv[0] = "arkg"
    main()
