"""Files a command writes: all of the new file or the old one, never half of one, no leftovers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

import pytest

from arkg.paths import write_atomically


def test_text_or_a_writer_replaces_the_file_with_ordinary_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    write_atomically(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    write_atomically(target, lambda file: file.write("from a writer\n"))
    assert target.read_text(encoding="utf-8") == "from a writer\n"
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")

    def half_then_fail(file: TextIO) -> None:
        file.write("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, half_then_fail)
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.json"]
