"""In-process backend: a GGUF model run by llama-cpp-python, decoding constrained by a grammar."""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from arkg.errors import ModelError
from arkg.llm.base import Choice, Completion, FileHasher, Message, OutputSpec, Sampling, Usage
from arkg.llm.bundled import bundled_model_path
from arkg.llm.grammar import grammar_for
from arkg.llm.llamacpp_cpu import avoid_crashing_kernels, llama_cpp
from arkg.llm.lora_file import check_adapter, count_non_finite

avoid_crashing_kernels()

_SHOWN_CHARS = 120  # of a cut-off reply, in its error: enough to see which field ran long
# What an adapter is run on when it is loaded: a few tokens of the kind every strategy's prompts hold.
_PROBE_TEXT = "Question: Was Marie Curie born in Warsaw? Facts: (Marie Curie, place of birth, Warsaw). Answer:"


class _LoadedWeights:
    """One GGUF model and its context in memory, and the LoRA adapters loaded onto it, each once.

    Several LlamaCppModels share it, each with its own adapter (or none); the lock serialises their
    calls, and each call first puts its model's adapter on the context. An adapter holds a few MB
    and is applied at inference, not merged into the weights, so switching costs no reload.
    """

    def __init__(self, path: Path, *, n_ctx: int, n_threads: int | None, n_gpu_layers: int) -> None:
        try:
            self.llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,  # prompt evaluation too: the caller's limit applies to both
                n_gpu_layers=n_gpu_layers,
                verbose=False,
            )
        except (ValueError, RuntimeError) as error:  # llama-cpp-python's errors for unreadable files
            raise ModelError(f"Could not load the GGUF model {path}: {error}") from error
        self.path = path
        self.lock = threading.Lock()
        self._adapters: dict[Path, Any] = {}  # adapter file -> llama.cpp's adapter, freed with the model
        self._active: Path | None = None

    def load_adapter(self, adapter: Path) -> None:
        """Load a LoRA adapter file onto these weights (once; later calls find it loaded)."""
        with self.lock:
            if adapter in self._adapters:
                return
            if not adapter.is_file():
                raise ModelError(f"LoRA adapter file not found: {adapter}")
            check_adapter(adapter, self.path)  # llama.cpp aborts the process on a NaN adapter
            if not self._load(adapter):
                raise ModelError(
                    f"Could not load the LoRA adapter {adapter} onto {self.path}: not a llama.cpp LoRA adapter GGUF"
                    " for this model (see `arkg tune`)"
                )
            # Finite stored values can still overflow in the activations: only running the adapter tells.
            if failure := self._run_failure(adapter):
                self._unload(adapter)
                raise ModelError(f"{adapter}: {failure} (tuned with too high a learning rate?)")

    def _load(self, adapter: Path) -> bool:
        loaded = llama_cpp.llama_adapter_lora_init(self.llama.model, str(adapter).encode("utf-8"))
        # A failed load gives a NULL pointer object, not None: test its truth.
        if loaded:
            self._adapters[adapter] = loaded
        return bool(loaded)

    def _unload(self, adapter: Path) -> None:
        llama_cpp.llama_adapter_lora_free(self._adapters.pop(adapter))

    def _run_failure(self, adapter: Path) -> str | None:
        """Why llama.cpp cannot decode under `adapter` (loaded before), found by running it on a short
        prompt; None when its next-token logits there are all finite."""
        previous = self._active
        self.use(adapter)
        try:
            self.llama.eval(self.llama.tokenize(_PROBE_TEXT.encode("utf-8"), add_bos=True))
            vocabulary = self.llama.n_vocab()
            logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self.llama.ctx, -1), shape=(vocabulary,))
            bad = count_non_finite(logits)
        finally:
            self.use(previous)
            self.llama.reset()  # the probe's tokens are no prefix of any conversation
        if not bad:
            return None
        return (
            f"run on {self.path.name}, it gives {bad:,} NaN or infinite logits (of {vocabulary:,}) for a short prompt;"
            " llama.cpp cannot decode with it"
        )

    def use(self, adapter: Path | None) -> None:
        """Put `adapter` (loaded before; None: none) on the context. Call it holding the lock."""
        if adapter == self._active:
            return
        if adapter is None:
            status = llama_cpp.llama_set_adapters_lora(self.llama.ctx, None, 0, None)
        else:
            adapters = (llama_cpp.llama_adapter_lora_p_ctypes * 1)(self._adapters[adapter])
            status = llama_cpp.llama_set_adapters_lora(self.llama.ctx, adapters, 1, (ctypes.c_float * 1)(1.0))
        if status != 0:
            raise ModelError(f"llama.cpp could not switch {self.path.name} to the LoRA adapter {adapter}")
        # The context's cached states were computed under the other adapter: no prefix of them may be reused.
        self.llama.reset()
        self._active = adapter


def adapter_run_failure(adapter: Path, base: Path | None = None) -> str | None:
    """Why llama.cpp cannot run the LoRA adapter file `adapter` on `base` (default: the bundled model),
    in one clause without the file's name; None when it can. Loads the model for this alone."""
    weights = _LoadedWeights(base or bundled_model_path(), n_ctx=256, n_threads=None, n_gpu_layers=0)
    try:
        with weights.lock:
            if not weights._load(adapter):
                return f"llama.cpp cannot load it as a LoRA adapter of {weights.path.name}"
            return weights._run_failure(adapter)
    finally:
        weights.llama.close()


class LlamaCppModel:
    """ChatModel running one llama.cpp model in this process (the bundled SmolLM2 when no path is given).

    `lora_path` applies a llama.cpp LoRA adapter (GGUF, e.g. from `arkg tune`) on top of the model;
    `with_adapter` gives the same loaded model with another adapter, without loading the weights again.
    The model's own chat template formats the messages. Calls are serialised by a lock: a llama.cpp
    context holds one conversation state, so concurrent callers take turns.
    Sampling maps onto llama.cpp as temperature (0 = greedy), top_p, seed and max_tokens; llama.cpp's
    other samplers (top_k=40, min_p=0.05) keep their defaults. n_threads=None keeps llama.cpp's
    thread defaults (half the cores for decoding, all of them for prompts).
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        lora_path: str | Path | None = None,
    ) -> None:
        path = Path(model_path).expanduser() if model_path is not None else bundled_model_path()
        if not path.is_file():
            raise ModelError(f"Model file not found: {path}")
        weights = _LoadedWeights(path, n_ctx=n_ctx, n_threads=n_threads, n_gpu_layers=n_gpu_layers)
        try:
            self._wear(weights, lora_path)
        except BaseException:
            weights.llama.close()
            raise

    def with_adapter(self, lora_path: str | Path | None) -> LlamaCppModel:
        """This model's loaded weights with the LoRA adapter `lora_path` (None: none) instead of its own."""
        model = object.__new__(LlamaCppModel)
        model._wear(self._weights, lora_path)
        return model

    def _wear(self, weights: _LoadedWeights, lora_path: str | Path | None) -> None:
        adapter = Path(lora_path).expanduser() if lora_path is not None else None
        if adapter is not None:
            weights.load_adapter(adapter)
        self._weights = weights
        self.llama = weights.llama
        self.path = weights.path
        self.adapter = adapter
        self.name = f"llamacpp:{self.path.name}" + (f"+{adapter.name}" if adapter is not None else "")

    def cache_identity(self, file_sha256: FileHasher) -> str:
        """The GGUF files' content, not their names: another file under the same name is another model,
        and the same model with an adapter is another model too."""
        identity = f"llamacpp:sha256:{file_sha256(self.path)}"
        return identity if self.adapter is None else f"{identity}+lora:sha256:{file_sha256(self.adapter)}"

    def complete(
        self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling = Sampling()
    ) -> Completion[Any]:
        grammar = llama_cpp.LlamaGrammar.from_string(grammar_for(output), verbose=False)
        with self._weights.lock:
            self._weights.use(self.adapter)
            started = time.perf_counter()  # after the lock: latency is the model's time, not the queue's
            guard = _FiniteLogits()
            try:
                response = self.llama.create_chat_completion(
                    messages=[{"role": m.role, "content": m.content} for m in messages],
                    grammar=grammar,
                    temperature=sampling.temperature,
                    top_p=sampling.top_p,
                    seed=sampling.seed,
                    max_tokens=_token_budget(output, sampling),
                    logits_processor=llama_cpp.LogitsProcessorList([guard]),
                )
            except ValueError as error:  # e.g. the prompt does not fit the context window
                raise ModelError(f"{self.name}: {error}") from error
            finally:
                if guard.step:
                    self.llama.reset()  # the states behind a non-finite logit are no prefix to reuse
            latency = time.perf_counter() - started
        if guard.step:
            raise ModelError(
                f"{self.name}: the model gave NaN or infinite logits at token {guard.step} of its reply;"
                " it cannot decode with these weights (a damaged model or adapter?)"
            )
        choice = response["choices"][0]
        raw = choice["message"]["content"] or ""
        usage = Usage(
            calls=1,
            prompt_tokens=response["usage"]["prompt_tokens"],
            completion_tokens=response["usage"]["completion_tokens"],
            latency_s=latency,
        )
        return Completion(value=self._parse(raw, output, choice["finish_reason"], sampling), raw=raw, usage=usage)

    def _parse(self, raw: str, output: OutputSpec, finish_reason: str | None, sampling: Sampling) -> Any:
        if isinstance(output, Choice):
            if raw in output.options:
                return raw
            # The grammar admits only the options and the budget fits the longest, so this is a bug.
            raise ModelError(f"{self.name} replied {raw!r}, which is none of the {len(output.options)} options")
        try:
            return output.model_validate_json(raw)
        except ValidationError as error:
            if finish_reason == "length":
                raise ModelError(
                    f"{self.name}: the {output.__name__} JSON was cut off at max_tokens={sampling.max_tokens} "
                    f"({len(raw)} characters so far, starting {raw[:_SHOWN_CHARS]!r}); raise Sampling.max_tokens"
                    " or bound the schema's strings and lists"
                ) from error
            # Grammars cannot express every JSON-schema constraint (e.g. custom validators).
            raise ModelError(f"{self.name}: the reply does not validate as {output.__name__}: {error}") from error


class _FiniteLogits:
    """Keeps non-finite logits away from llama.cpp's samplers, which abort the process on them (a grammar
    accepting end-of-text where it may not end). Such logits become all equal, so the grammar still picks
    a token it allows, and `step` (1-based; 0: never) says where it happened, for the reply to be refused."""

    def __init__(self) -> None:
        self.step = 0
        self._tokens = 0

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        self._tokens += 1
        if np.isfinite(scores).all():
            return scores
        self.step = self.step or self._tokens
        return np.zeros_like(scores)


def _token_budget(output: OutputSpec, sampling: Sampling) -> int:
    """max_tokens, raised for a Choice so that the longest option always fits.

    Every token carries at least one byte of text, so the byte length bounds the tokens an option
    needs; the extra token lets the model emit end-of-sequence. Decoding stops as soon as an option
    is complete, so the higher cap costs nothing.
    """
    if isinstance(output, Choice):
        longest = max(len(option.encode("utf-8")) for option in output.options)
        return max(sampling.max_tokens, longest + 1)
    return sampling.max_tokens
