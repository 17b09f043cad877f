"""docs/mcp.md's way to try `arkg mcp` from a shell runs as written (with `arkg` scripted, so no real
model): it lists the tools and prints the answer with its citations."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from mcp_helpers import SCRIPTED_ARKG, TOOLS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
DOCUMENTED_SERVER = 'command=".venv/bin/arkg", args=["mcp"]'


def test_the_documented_shell_session_lists_the_tools_and_answers(tmp_path: Path) -> None:
    script = re.search(r"<<'PY'\n(.*?)\nPY\n", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert script is not None, "docs/mcp.md has no shell session"
    code = script.group(1)
    assert DOCUMENTED_SERVER in code
    # The scripted model answers as ARK does; the bundled model's default strategy is another.
    code = code.replace(DOCUMENTED_SERVER, f"command={sys.executable!r}, args=[{str(SCRIPTED_ARKG)!r}, 'mcp', '--strategy', 'ark']")
    code = code.replace("/tmp/arkg-cache", str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert {line.split(":", 1)[0] for line in lines[:-1]} == TOOLS
    assert lines[-1] == "True kg [{'head': 'Marie Curie', 'relation': 'place of birth', 'tail': 'Warsaw', 'props': {}}]"
