"""A llama.cpp setting arkg overrides on CPUs with AMX (Intel Xeon since Sapphire Rapids).

llama-cpp-python built for such a CPU (its default, native build) places quantised weights in AMX buffers,
and its AMX matrix product then crashes the process on the first prompt (SIGSEGV in
ggml_backend_amx_mul_mat, llama-cpp-python 0.3.36, the bundled Q4_1 model). Loading the weights
without llama.cpp's extra buffer types (AMX, and repacking for other quantisations) runs the ordinary
AVX-512 kernels instead. Elsewhere nothing changes.
"""

from __future__ import annotations

import functools
from pathlib import Path

import llama_cpp.llama_cpp as llama_cpp_api

_CPUINFO = Path("/proc/cpuinfo")


@functools.cache
def cpu_has_amx() -> bool:
    """Whether the CPU (as Linux reports it) has AMX tiles; False where that cannot be read."""
    try:
        text = _CPUINFO.read_text(errors="replace")
    except OSError:
        return False
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    return "amx_tile" in flags


def avoid_crashing_kernels() -> None:
    """On an AMX CPU, make every llama.cpp model of this process load without extra buffer types.

    llama-cpp-python's Llama offers no argument for it, so the default model parameters it starts from
    are wrapped, once."""
    original = llama_cpp_api.llama_model_default_params
    if not cpu_has_amx() or hasattr(original, "arkg_original"):
        return

    def without_extra_buffers() -> llama_cpp_api.llama_model_params:
        params = original()
        params.use_extra_bufts = False
        return params

    without_extra_buffers.arkg_original = original  # type: ignore[attr-defined]
    llama_cpp_api.llama_model_default_params = without_extra_buffers
