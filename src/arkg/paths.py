"""Files a command writes: checks made before any work, so that a bad path costs nothing, and writes
that leave either the whole new file or the old one, never half of one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from arkg.errors import ArkgError


def user_cache_dir() -> Path:
    """Where arkg keeps what it can make again: $ARKG_CACHE_DIR, else ($XDG_CACHE_HOME or ~/.cache)/arkg."""
    if directory := os.environ.get("ARKG_CACHE_DIR"):
        return Path(directory).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arkg"


def check_writable_file(path: Path, what: str = "output file") -> None:
    """Raise ArkgError naming `path` unless it can be written: its folder exists and accepts new files,
    it is not a folder, a device or the like itself, and (when it exists) it is writable. Leaves nothing
    behind."""
    if path.is_dir():
        raise ArkgError(f"{what} {path} is a folder; give a file name")
    check_not_special(path, what)
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


def check_not_special(path: Path, what: str = "output file") -> None:
    """Raise ArkgError if `path` is a device, pipe or socket (/dev/null, /dev/stdout): arkg writes files
    by renaming a new one over them, or as SQLite databases, and neither works on those (as root, the
    rename would replace the device itself)."""
    if path.exists() and not path.is_file() and not path.is_dir():
        raise ArkgError(f"{what} {path} is not a regular file (a device, pipe or socket); give a file name")


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
