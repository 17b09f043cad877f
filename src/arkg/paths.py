"""Files a command writes: checks made before any work, so that a bad path costs nothing, and writes
that leave either the whole new file or the old one, never half of one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

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


def write_atomically(path: Path, content: str | Callable[[TextIO], None]) -> None:
    """Write `content` (text, or a function that writes to the open file) to a temporary file in
    `path`'s folder, then rename it over `path`: an interrupted or failed write leaves the old file (or
    none) and no temporary one. The new file gets the permissions of an ordinary new file."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            if isinstance(content, str):
                file.write(content)
            else:
                content(file)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp's file is private to its owner
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
