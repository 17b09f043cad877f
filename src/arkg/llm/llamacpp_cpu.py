"""llama.cpp's CPU settings that arkg chooses: OpenMP threads that spin only briefly while waiting, and,
on CPUs with AMX (Intel Xeon since Sapphire Rapids), no AMX buffers.

llama-cpp-python built for such a CPU (its default, native build) places quantised weights in AMX buffers,
and its AMX matrix product then crashes the process on the first prompt (SIGSEGV in
ggml_backend_amx_mul_mat, llama-cpp-python 0.3.36, the bundled Q4_1 model). Loading the weights
without llama.cpp's extra buffer types (AMX, and repacking for other quantisations) runs the ordinary
AVX-512 kernels instead. Elsewhere nothing changes.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path


def _load_llama_cpp():  # type: ignore[no-untyped-def]
    """llama.cpp's library, its OpenMP threads spinning only briefly before they sleep while they wait.

    By default they spin for long, and on cores that other work shares they take turns with it: prompt
    evaluation on 2 threads ran at 100 tokens/s against 164 with a short spin. Sleeping at once
    (OMP_WAIT_POLICY=passive) cost decoding on 2 threads two thirds of its speed on idle cores, which a
    short spin keeps (docs/BENCHMARKS.md, "Time per question"). OpenMP reads it once, as the library
    loads; it is put back after, so that other libraries (torch's own OpenMP) keep theirs. A wait policy
    or spin count the user set is kept."""
    chosen = not any(name in os.environ for name in (WAIT_POLICY, SPIN_COUNT))
    if chosen:
        os.environ[SPIN_COUNT] = SHORT_SPIN
    try:
        import llama_cpp as package

        return package
    finally:
        if chosen:
            del os.environ[SPIN_COUNT]


WAIT_POLICY, SPIN_COUNT = "OMP_WAIT_POLICY", "GOMP_SPINCOUNT"
SHORT_SPIN = "3000"  # spin iterations; GNU OpenMP spins 300,000 by default
# Import llama_cpp from here (arkg.llm.llamacpp does), so that it loads with these settings.
llama_cpp = _load_llama_cpp()
llama_cpp_api = llama_cpp.llama_cpp

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
