"""`arkg` whose model, whatever the spec, is the scripted Curie model: an MCP server that tests start as a
subprocess without loading a real model."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the shared support package

import arkg.session  # noqa: E402
from support.serving import curie_model  # noqa: E402

arkg.session.open_model = lambda spec, **options: curie_model()

from arkg.cli import main  # noqa: E402

main()
