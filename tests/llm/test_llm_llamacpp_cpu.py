"""On a CPU with AMX, llama.cpp's AMX kernels crash the process on the bundled model's first prompt:
arkg loads every llama.cpp model of the process without the extra buffer types that hold them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import llama_cpp.llama_cpp as llama_cpp_api
import pytest

from arkg.llm import llamacpp_cpu


def _cpuinfo(tmp_path: Path, flags: str) -> Path:
    path = tmp_path / "cpuinfo"
    path.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu sse2 {flags}\n\nprocessor\t: 1\n")
    return path


@pytest.mark.parametrize(("flags", "expected"), [("avx512f amx_bf16 amx_tile amx_int8", True), ("avx2 avx512f", False)])
def test_amx_is_read_from_the_cpu_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: str, expected: bool) -> None:
    monkeypatch.setattr(llamacpp_cpu, "_CPUINFO", _cpuinfo(tmp_path, flags))
    llamacpp_cpu.cpu_has_amx.cache_clear()
    try:
        assert llamacpp_cpu.cpu_has_amx() is expected
    finally:
        llamacpp_cpu.cpu_has_amx.cache_clear()


def test_no_cpuinfo_means_no_amx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp_cpu, "_CPUINFO", tmp_path / "absent")
    llamacpp_cpu.cpu_has_amx.cache_clear()
    try:
        assert llamacpp_cpu.cpu_has_amx() is False
    finally:
        llamacpp_cpu.cpu_has_amx.cache_clear()


@pytest.mark.parametrize("amx", [True, False])
def test_models_load_without_extra_buffers_exactly_on_amx_cpus(monkeypatch: pytest.MonkeyPatch, amx: bool) -> None:
    original = llama_cpp_api.llama_model_default_params
    monkeypatch.setattr(llama_cpp_api, "llama_model_default_params", getattr(original, "arkg_original", original))
    monkeypatch.setattr(llamacpp_cpu, "cpu_has_amx", lambda: amx)
    llamacpp_cpu.avoid_crashing_kernels()
    llamacpp_cpu.avoid_crashing_kernels()  # twice: wrapped once
    params = llama_cpp_api.llama_model_default_params()
    assert params.use_extra_bufts is (not amx)
    assert not hasattr(getattr(llama_cpp_api.llama_model_default_params, "arkg_original", None), "arkg_original")


@pytest.mark.slow
def test_the_bundled_model_answers_in_a_fresh_process() -> None:
    """Whatever this machine's CPU: a plain process that only opens the bundled model and asks it once."""
    code = (
        "from pydantic import BaseModel\n"
        "from arkg.llm import open_model\n"
        "from arkg.llm.base import Message, Sampling\n"
        "class Reply(BaseModel):\n    answer: bool\n"
        "model = open_model('llamacpp', cache=False)\n"
        "print(model.complete([Message(role='user', content='Is Warsaw in Poland?')], Reply, Sampling(max_tokens=16)).value)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("answer=")


_SPY = """
import builtins, os
seen = []
real_import = builtins.__import__

def spy(name, *arguments, **options):
    if name == "llama_cpp" and not seen:
        seen.append(os.environ.get("GOMP_SPINCOUNT"))
    return real_import(name, *arguments, **options)

builtins.__import__ = spy
import arkg.llm.llamacpp_cpu
print(seen[0], os.environ.get("GOMP_SPINCOUNT"))
"""


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({}, "3000 None"),  # a short spin while llama.cpp loads, gone after (torch's OpenMP reads its own)
        ({"GOMP_SPINCOUNT": "5"}, "5 5"),  # the user's choice is kept
        ({"OMP_WAIT_POLICY": "passive"}, "None None"),
    ],
)
def test_llama_cpp_loads_with_a_short_openmp_spin_unless_the_user_chose(environment: dict[str, str], expected: str) -> None:
    clean = {name: value for name, value in os.environ.items() if name not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    done = subprocess.run([sys.executable, "-c", _SPY], capture_output=True, text=True, timeout=120, env={**clean, **environment})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == expected
