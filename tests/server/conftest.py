"""Fixtures of the server tests: the app over the scripted model, a real server on 127.0.0.1, and
Debian's headless Chromium (installed here when absent, so CI on a fresh machine runs the page tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
APT_TIMEOUT_S = 900


@pytest.fixture(scope="session")
def chromium() -> tuple[Path, Path]:
    """Paths of Chromium and its driver, from Debian's `chromium` and `chromium-driver` packages."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        _install_chromium()
    return CHROMIUM, CHROMEDRIVER


def _install_chromium() -> None:
    how = "apt-get install chromium chromium-driver"
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip(f"the page tests need Chromium and cannot install it here (not root, or no apt-get): run `{how}` as root")
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    lock_wait = ["-o", "DPkg::Lock::Timeout=300"]  # another install may hold the lock for a while
    for command in (
        ["apt-get", *lock_wait, "update"],
        ["apt-get", *lock_wait, "install", "-y", "--no-install-recommends", "chromium", "chromium-driver"],
    ):
        try:
            done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=APT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.skip(f"installing Chromium took over {APT_TIMEOUT_S} s ({' '.join(command)}); run `{how}` by hand")
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            pytest.skip(f"Chromium could not be installed ({' '.join(command)} failed: {' / '.join(tail)}); run `{how}`")
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip(f"`{how}` did not provide {CHROMIUM} and {CHROMEDRIVER}")
