"""`python -m arkg.llm.llamacpp_serve ARGS`: llama-cpp-python's OpenAI-compatible server (`python -m
llama_cpp.server ARGS`) with the CPU settings arkg's in-process models use (see llamacpp_cpu)."""

from __future__ import annotations

import runpy

from arkg.llm.llamacpp_cpu import avoid_crashing_kernels

if __name__ == "__main__":
    avoid_crashing_kernels()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
