"""Child processes arkg starts for itself (local servers for trying a backend offline)."""

from __future__ import annotations

import subprocess


def stop_process(process: subprocess.Popen, grace_s: float = 10) -> None:
    """Ask `process` to end (SIGTERM) and wait; kill it if it is still there after `grace_s` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
