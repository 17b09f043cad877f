"""Where the page's files come from: its own (beside this module) and vis-network, from pyvis's wheel.

pyvis ships vis-network's standalone build as package data; it is found without importing pyvis
(whose import pulls in IPython), and the newest bundled version is served.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from arkg.errors import ArkgError

STATIC = Path(__file__).parent / "static"


@cache
def vis_network_folder() -> Path:
    """The folder holding vis-network.min.js and vis-network.css."""
    spec = importlib.util.find_spec("pyvis")
    if spec is None or not spec.submodule_search_locations:
        raise ArkgError("arkg serve needs the pyvis package (it ships the graph drawing library): pip install 'arkg[web]'")
    package = Path(next(iter(spec.submodule_search_locations)))
    folders = [folder for folder in (package / "lib").glob("vis-*") if (folder / "vis-network.min.js").is_file()]
    if not folders:
        raise ArkgError(f"no vis-network build found in {package / 'lib'}; reinstall pyvis")
    return max(folders, key=lambda folder: _version(folder.name.removeprefix("vis-")))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else 0 for part in text.split("."))
