"""A GGUF reader for the demo's load: what ``gguf.GGUFReader`` gives transformers, in 0.25 s, not 6.

transformers' ``load_gguf_checkpoint`` reads a GGUF file with ``gguf.GGUFReader`` and turns every
metadata value into Python with ``_gguf_parse_value(field.parts[i], field.types)``. For
SmolLM2-135M the reader builds ~400,000 small memory-mapped arrays for the 49,152 tokens and
48,900 merges (6 s of CPU), and each of transformers' four parses (lm-eval's config, the model's
config, the tokenizer, the weights) takes 1.5 s more, mostly turning single bytes into numpy
scalars. :class:`GGUFFile` reads the same file with ``struct`` and gives every field the parts
transformers parses: a string as ``bytes``, a number as a one-item tuple. The parsed values are
the same (``tests/demo/test_gguf_file.py`` checks every field and tensor of the demo's file);
``python bench/bench_demo.py --load`` measures the load side by side with gguf's reader and
lm-eval's plain load. :func:`dequantize` turns the file's Q4_1 weights into float32 in one pass
over each tensor, 2.9x faster than gguf's groups of 16 rows (2.5 s of CPU for SmolLM2's 210 Q4_1
tensors), to the same bits.

It serves transformers only: ``ReaderField.contents()`` and the key/type parts that gguf keeps
are not rebuilt, and a file gguf would refuse (bad magic, another version, a big-endian file) is
refused the same way, with ``ValueError``.
"""

from __future__ import annotations

import os
import struct
from typing import Any

import numpy as np

_STRING, _ARRAY = 8, 9
# GGUF value type -> struct format (little-endian), bool read as one byte
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_PLAIN_TENSORS = {"F16": np.float16, "F32": np.float32, "F64": np.float64, "I8": np.int8, "I16": np.int16,
                  "I32": np.int32, "I64": np.int64}


class GGUFFile:
    """``fields`` and ``tensors`` of a GGUF file (version 2 or 3, little-endian), as
    ``gguf.GGUFReader`` names them, for ``transformers.modeling_gguf_pytorch_utils``.

    ``fields[key]`` is a ``gguf.ReaderField`` whose ``parts[i]`` for ``i`` in ``data`` is one
    value (``bytes`` for a string, a one-item tuple otherwise); ``types`` are gguf's
    ``GGUFValueType`` (``[ARRAY, item type]`` for an array). ``tensors`` are ``gguf.ReaderTensor``
    views of the memory-mapped file, shaped as gguf shapes them (quantized rows as bytes).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        from gguf import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFValueType, ReaderField, ReaderTensor
        from gguf.quants import quant_shape_to_byte_shape

        self.data = np.memmap(path, mode="r")
        self._view = memoryview(self.data)
        self._offset = 0
        if self._unpack("<I") != 0x46554747:  # b"GGUF"
            raise ValueError("GGUF magic invalid")
        version = self._unpack("<I")
        if version not in (2, 3):
            raise ValueError(f"Sorry, file appears to be version {version} which we cannot handle")
        tensor_count, kv_count = self._unpack("<Q"), self._unpack("<Q")
        self.fields: dict[str, Any] = {
            "GGUF.version": ReaderField(0, "GGUF.version", [(version,)], [0], [GGUFValueType.UINT32]),
            "GGUF.tensor_count": ReaderField(8, "GGUF.tensor_count", [(tensor_count,)], [0], [GGUFValueType.UINT64]),
            "GGUF.kv_count": ReaderField(16, "GGUF.kv_count", [(kv_count,)], [0], [GGUFValueType.UINT64]),
        }
        for _ in range(kv_count):
            start = self._offset
            key = self._string().decode("utf-8")
            kind = self._unpack("<I")
            if kind == _ARRAY:
                item, count = self._unpack("<I"), self._unpack("<Q")
                parts = [self._value(item) for _ in range(count)]
                types = [GGUFValueType(_ARRAY), GGUFValueType(item)]
            else:
                parts, types = [self._value(kind)], [GGUFValueType(kind)]
            self.fields[key] = ReaderField(start, key, parts, list(range(len(parts))), types)
        infos = []
        for _ in range(tensor_count):
            name = self._string().decode("utf-8")
            dims = [self._unpack("<Q") for _ in range(self._unpack("<I"))]
            infos.append((name, dims, GGMLQuantizationType(self._unpack("<I")), self._unpack("<Q")))
        alignment = self.fields["general.alignment"].parts[0][0] if "general.alignment" in self.fields else 32
        start = -(-self._offset // alignment) * alignment
        self.tensors = []
        for name, dims, kind, offset in infos:
            n_elements = int(np.prod(dims))
            block, size = GGML_QUANT_SIZES[kind]
            n_bytes = n_elements * size // block
            shape = tuple(reversed(dims))
            dtype = _PLAIN_TENSORS.get(kind.name)
            if dtype is None:
                dtype, shape = np.uint8, quant_shape_to_byte_shape(shape, kind)
            data = self.data[start + offset:start + offset + n_bytes].view(dtype).reshape(shape)
            self.tensors.append(ReaderTensor(name, kind, np.array(dims, dtype=np.uint64), n_elements, n_bytes,
                                             start + offset, data, None))

    def _unpack(self, fmt: str) -> Any:
        (value,) = struct.unpack_from(fmt, self._view, self._offset)
        self._offset += struct.calcsize(fmt)
        return value

    def _string(self) -> bytes:
        length = self._unpack("<Q")
        self._offset += length
        return self._view[self._offset - length:self._offset].tobytes()

    def _value(self, kind: int) -> bytes | tuple:
        if kind == _STRING:
            return self._string()
        if kind not in _SCALARS:
            raise ValueError(f"Unknown/unhandled field type {kind}")
        return (self._unpack(_SCALARS[kind]),)


def dequantize(data: np.ndarray, kind: Any) -> np.ndarray:
    """``gguf.dequantize(data, kind)``, with Q4_1 done on the whole tensor at once.

    A Q4_1 block is 20 bytes for 32 weights: the scale d and the minimum m (float16), then 16
    bytes whose low nibbles are weights 0-15 and high nibbles weights 16-31; weight = d·q + m,
    computed in float32 as gguf computes it (a product, then a sum: the same bits).
    """
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize as gguf_dequantize  # gguf.dequantize is this function in gguf_read_once

    if kind != GGMLQuantizationType.Q4_1:
        return gguf_dequantize(data, kind)
    blocks = data.reshape(-1, 20)
    scale = blocks[:, 0:2].copy().view(np.float16).astype(np.float32)
    low = blocks[:, 2:4].copy().view(np.float16).astype(np.float32)
    weights = np.empty((blocks.shape[0], 32), dtype=np.float32)
    np.bitwise_and(blocks[:, 4:], 0x0F, out=weights[:, :16], casting="unsafe")
    np.right_shift(blocks[:, 4:], 4, out=weights[:, 16:], casting="unsafe")
    weights *= scale
    weights += low
    return weights.reshape(*data.shape[:-1], data.shape[-1] // 20 * 32)
