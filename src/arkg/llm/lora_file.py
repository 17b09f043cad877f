"""GGUF files read with numpy alone: a model's tensor directory, and a llama.cpp LoRA adapter checked
against its base model before llama.cpp loads it.

llama.cpp trusts an adapter's values: one NaN or infinity in a LoRA tensor makes every logit NaN,
and so does an update (alpha / r) B A large enough to overflow its float16 products; its grammar
sampler then aborts the whole process (no exception reaches Python). So an adapter is read first,
and refused by name, tensor and reason, unless every value is finite, no update passes MAX_UPDATE,
and every `W.lora_a` (r x in) and `W.lora_b` (out x r) pair fits the base model's weight `W` (out x in).

The `gguf` package reads the same files, but it makes an object of every string in the metadata:
about 5 s for the bundled model's 49,152-word vocabulary, against a fraction of a second here.
"""

from __future__ import annotations

import math
import mmap
import struct
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from arkg.errors import ModelError

LORA_A, LORA_B = ".lora_a", ".lora_b"
_MAGIC = b"GGUF"
_VERSIONS = (2, 3)
_DEFAULT_ALIGNMENT = 32
# Metadata value types (GGUF's numbering): the fixed-size ones, and the two with a length.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_LENGTH = struct.Struct("<Q")  # of a string, before its UTF-8 bytes
# ggml tensor types whose values are read here: those LoRA adapters are written in (arkg writes F16 or
# F32; llama.cpp's converter also BF16 and Q8_0). Q8_0: blocks of a float16 scale and 32 int8 values.
F32, F16, Q8_0, BF16 = 0, 1, 8, 30
_TYPE_NAMES = {F32: "F32", F16: "F16", Q8_0: "Q8_0", BF16: "BF16"}
_Q8_0_BLOCK = np.dtype([("scale", "<f2"), ("values", "i1", 32)])
# No tuning moves a weight (its values are of order 0.01 to 1) this far: arkg's adapters change values
# by 0.1 at most, while one whose update reaches 1e8 makes llama.cpp's float16 products overflow into
# NaN, which aborts it.
MAX_UPDATE = 1e3


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]  # numpy's order, rows first (GGUF stores the dimensions innermost first)
    type: int  # ggml's type number
    offset: int  # of its data, from the start of the file


@dataclass(frozen=True)
class GgufFile:
    path: Path
    metadata: dict[str, Any]  # the scalar and string values; arrays (a vocabulary) are skipped
    tensors: dict[str, Tensor]

    def values(self, tensor: Tensor) -> Any:
        """The tensor's values as float32 (ModelError for a type this module does not read)."""
        count = int(np.prod(tensor.shape, dtype=np.int64))
        try:
            if tensor.type in (F32, F16):
                raw = np.frombuffer(self._content, dtype="<f4" if tensor.type == F32 else "<f2", count=count, offset=tensor.offset)
                values = raw.astype(np.float32)
            elif tensor.type == BF16:
                raw = np.frombuffer(self._content, dtype="<u2", count=count, offset=tensor.offset)
                values = (raw.astype(np.uint32) << 16).view(np.float32)
            elif tensor.type == Q8_0 and count % 32 == 0:
                blocks = np.frombuffer(self._content, dtype=_Q8_0_BLOCK, count=count // 32, offset=tensor.offset)
                values = blocks["scale"].astype(np.float32)[:, None] * blocks["values"]
            else:
                raise ModelError(
                    f"{self.path}: tensor {tensor.name} is of ggml type {tensor.type}, which arkg does not read"
                    f" (adapters are {', '.join(_TYPE_NAMES.values())})"
                )
        except ValueError as error:  # the file ends before the tensor does
            raise ModelError(f"{self.path}: tensor {tensor.name} is cut short ({error})") from None
        return values.reshape(tensor.shape)

    @cached_property
    def _content(self) -> bytes:
        """The whole file, read when a tensor's values are first asked for (a model's header is enough
        to know its tensors)."""
        return self.path.read_bytes()


def read_gguf(path: Path) -> GgufFile:
    """The metadata and tensor directory of the GGUF file at `path` (ModelError if it is none)."""
    try:
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _parse(path, data)
    except (OSError, ValueError, struct.error, UnicodeDecodeError, _NotGguf) as error:
        raise ModelError(f"{path}: not a readable GGUF file ({error})") from None


def read_lora(path: Path) -> tuple[GgufFile, float | None]:
    """A llama.cpp LoRA adapter file and its alpha (None when it names none), refusing anything else."""
    gguf = read_gguf(path)
    kind = gguf.metadata.get("general.type")
    if kind != "adapter" or gguf.metadata.get("adapter.type") != "lora":
        raise ModelError(f"{path}: not a LoRA adapter (general.type is {kind!r})")
    alpha = gguf.metadata.get("adapter.lora.alpha")
    return gguf, None if alpha is None else float(alpha)


def count_non_finite(values: Any) -> int:
    """How many of a numpy array's values are NaN or infinite."""
    return int(np.count_nonzero(~np.isfinite(values)))


def implausible_update(tensors: dict[str, Any], alpha: float | None) -> tuple[str, float] | None:
    """The first weight (and its bound) whose update (alpha / r) B A, by the factors named `W.lora_a`
    and `W.lora_b` in `tensors`, may change one of its values by more than MAX_UPDATE; None if none.

    The bound needs no product: |sum_k B_ik A_kj| <= max_i sum_k |B_ik| * max |A|."""
    for name, a in tensors.items():
        b = tensors.get(name.removesuffix(LORA_A) + LORA_B) if name.endswith(LORA_A) else None
        if b is None or not a.size or not b.size:
            continue
        scale = (alpha if alpha is not None else a.shape[0]) / a.shape[0]
        bound = abs(scale) * np.abs(b.astype(np.float64)).sum(axis=-1).max() * np.abs(a.astype(np.float64)).max()
        if bound > MAX_UPDATE:
            return name.removesuffix(LORA_A), float(bound)
    return None


def check_adapter(adapter: Path, base: Path) -> None:
    """Refuse (ModelError naming the adapter file and the tensor) an adapter that llama.cpp would
    load into NaN replies or a crash, or would refuse without saying which tensor is wrong."""
    lora, alpha = read_lora(adapter)
    if alpha is not None and not math.isfinite(alpha):
        raise ModelError(f"{adapter}: adapter.lora.alpha is {alpha}, not a finite number")
    # The 2-D weights of the base model (rows x columns), those a LoRA adapter can adapt.
    weights = {tensor.name: tensor.shape for tensor in read_gguf(base).tensors.values() if len(tensor.shape) == 2}
    values = {name: lora.values(tensor) for name, tensor in lora.tensors.items()}
    pairs: dict[str, dict[str, Tensor]] = {}
    for tensor in lora.tensors.values():
        if bad := count_non_finite(values[tensor.name]):
            raise ModelError(
                f"{adapter}: tensor {tensor.name} holds {bad:,} NaN or infinite values (of {values[tensor.name].size:,});"
                " llama.cpp cannot run a model with it"
            )
        for suffix in (LORA_A, LORA_B):
            if tensor.name.endswith(suffix):
                pairs.setdefault(tensor.name.removesuffix(suffix), {})[suffix] = tensor
    for weight, pair in pairs.items():
        if len(pair) == 1:
            (present,) = pair.values()
            raise ModelError(f"{adapter}: tensor {present.name} has no {LORA_B if LORA_A in pair else LORA_A} partner")
        target = weights.get(weight)
        if target is None:
            raise ModelError(f"{adapter}: tensor {pair[LORA_A].name} adapts {weight}, which {base.name} does not have")
        rank = pair[LORA_A].shape[0] if pair[LORA_A].shape else 0
        for tensor, shape in ((pair[LORA_A], (rank, target[1])), (pair[LORA_B], (target[0], rank))):
            if tensor.shape != shape:
                raise ModelError(
                    f"{adapter}: tensor {tensor.name} is {_dims(tensor.shape)}, but for {weight} of {base.name}"
                    f" ({_dims(target)}) it must be {_dims(shape)}: an adapter made for another model?"
                )
    if found := implausible_update(values, alpha):
        weight, bound = found
        raise ModelError(
            f"{adapter}: its update of {weight}, (alpha / r) B A, changes values by up to {bound:.3g};"
            " llama.cpp cannot run a model with it (tuned adapters change them by less than 1)"
        )


def _dims(shape: tuple[int, ...]) -> str:
    return " x ".join(map(str, shape))


class _NotGguf(Exception):
    """The file's bytes do not follow GGUF's layout; the message says where."""


def _parse(path: Path, data: mmap.mmap) -> GgufFile:
    read = _Reader(data)
    if read.bytes(4) != _MAGIC:
        raise _NotGguf("no GGUF magic number")
    version = read.scalar("<I")
    if version not in _VERSIONS:
        raise _NotGguf(f"GGUF version {version}, not {' or '.join(map(str, _VERSIONS))}")
    tensor_count, field_count = read.scalar("<Q"), read.scalar("<Q")
    metadata: dict[str, Any] = {}
    for _ in range(field_count):
        key = read.string()
        value = read.value(read.scalar("<I"))
        if value is not None:
            metadata[key] = value
    directory = []
    for _ in range(tensor_count):
        name = read.string()
        dimensions = [read.scalar("<Q") for _ in range(read.scalar("<I"))]
        directory.append((name, tuple(reversed(dimensions)), read.scalar("<I"), read.scalar("<Q")))
    alignment = metadata.get("general.alignment", _DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment < 1:
        raise _NotGguf(f"general.alignment is {alignment!r}")
    start = -(-read.position // alignment) * alignment
    tensors = {name: Tensor(name, shape, kind, start + offset) for name, shape, kind, offset in directory}
    return GgufFile(path=path, metadata=metadata, tensors=tensors)


class _Reader:
    """Little-endian values read one after another from a buffer."""

    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        self.position = 0

    def skip(self, count: int) -> int:
        """Move past `count` bytes; where they start."""
        start = self.position
        if start + count > len(self.data):
            raise _NotGguf("the file ends inside its header")
        self.position += count
        return start

    def bytes(self, count: int) -> bytes:
        start = self.skip(count)
        return self.data[start : self.position]

    def scalar(self, layout: str) -> Any:
        (value,) = struct.unpack_from(layout, self.data, self.position)
        self.position += struct.calcsize(layout)
        return value

    def string(self) -> str:
        return self.bytes(self.scalar("<Q")).decode("utf-8")

    def value(self, kind: int) -> Any:
        """A metadata value of type `kind`; an array is skipped (None)."""
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind != _ARRAY:
            raise _NotGguf(f"unknown metadata type {kind}")
        item, count = self.scalar("<I"), self.scalar("<Q")
        if item in _SCALARS:
            self.skip(count * struct.calcsize(_SCALARS[item]))
        elif item == _STRING:
            # The loop a vocabulary's 49,152 strings go through: kept to the bare arithmetic.
            length, position = _LENGTH.unpack_from, self.position
            for _ in range(count):
                position += 8 + length(self.data, position)[0]
            self.skip(position - self.position)
        else:
            for _ in range(count):
                self.value(item)
        return None
