"""One writer per output file (`arkg eval` results, `arkg synth` pairs): an OS lock on a sibling
`<file>.lock` that records the writer's PID.

The lock is `flock`, so the kernel releases it when its process dies, even by SIGKILL: a lock file
left behind by a killed run is stale and simply taken over. The file is removed on a clean release.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from arkg.errors import ArkgError


class FileBusy(ArkgError):
    """Another process is writing the file."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        holder = f"PID {pid}" if pid is not None else "PID unknown"
        super().__init__(
            f"{path} is being written by another process ({holder}); one process writes it at a time: "
            "wait for that run to end (or stop it), or write to another file"
        )


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class WriterLock:
    """Hold the write lock of `path` from construction until `release()`; FileBusy if another process holds it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock_path = lock_path(path)
        self._fd = _acquire(self._lock_path, path)
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())

    def release(self) -> None:
        if self._fd < 0:
            return
        # Unlink while still holding the lock; a process that opened the old file meanwhile notices
        # (see _acquire) and locks a fresh one.
        self._lock_path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = -1

    def __enter__(self) -> "WriterLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def check_not_busy(path: Path) -> None:
    """Raise FileBusy now if another process writes `path` (a cheap early check; the lock decides)."""
    if lock_path(path).exists():
        WriterLock(path).release()


def _acquire(lock_file: Path, path: Path) -> int:
    while True:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise FileBusy(path, pid) from None
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, lock_file):
            return fd
        os.close(fd)  # the previous holder removed this file after we opened it: lock the current one


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _read_pid(fd: int) -> int | None:
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else None
