"""Checks on files a command will write, made before any work so that a bad path costs nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

from arkg.errors import ArkgError


def check_writable_file(path: Path, what: str = "output file") -> None:
    """Raise ArkgError naming `path` unless it can be written: its folder exists and accepts new files,
    it is not a folder itself, and (when it exists) it is writable. Leaves nothing behind."""
    if path.is_dir():
        raise ArkgError(f"{what} {path} is a folder; give a file name")
    folder = path.parent
    if not folder.exists():
        raise ArkgError(f"cannot write {what} {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise ArkgError(f"cannot write {what} {path}: {folder} is not a folder")
    try:
        if path.exists():
            path.open("ab").close()  # opens for appending: changes nothing
        else:
            # Access bits do not tell everything (root, read-only mounts): try a real file.
            tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        raise ArkgError(f"cannot write {what} {path}: {error.strerror or error}") from None
