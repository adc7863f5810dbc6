"""A fuzz run of broken and odd inputs on every command. Hypothesis mutates real
harness files, rank files and configs (cuts, splices of hostile snippets, random bytes); every
run must succeed or end with the one-line promise, and never touch an existing --output."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekit.resources import config_path
from tests.hostile.support import PROMPT_SAMPLES, RANK_TEXT, assert_ok_or_one_line, results_body, run

SNIPPETS = [b"9" * 5000, b"1" + b"0" * 400, b"[" * 3000, b"]" * 10, b"{" * 2000, b"\x00", b"\xef\xbb\xbf",
            b"\xff\xfe", b'"\\ud800"', b"NaN", b"-Infinity", b"0x1f", b"-" * 5000, b"[/]", b"[bold]", b"|",
            b"<script>", b"\r", b"\n\n", b'"', b"'", b"&a", b"*a", b"!!python/object:os.system", b"&a [*a, *a]",
            b"\t", b"# comment", b"None", b"1e999999", b"__import__('os')"]
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def mutated(draw, base: bytes):
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "cut", "replace", "truncate"]))
        piece = draw(st.one_of(st.sampled_from(SNIPPETS), st.binary(min_size=1, max_size=8)))
        if kind == "insert":
            data[at:at] = piece
        elif kind == "cut":
            del data[at:at + draw(st.integers(1, 40))]
        elif kind == "replace":
            data[at:at + len(piece)] = piece
        else:
            del data[at:]
    return bytes(data)


RESULTS = json.dumps(results_body(), indent=1).encode()
SAMPLES = b"\n".join(PROMPT_SAMPLES.read_bytes().splitlines()[:12]) + b"\n"


def _check_run(tmp, argv):
    out = tmp / "previous.txt"
    out.write_text("previous")
    code, stdout, err = run([*argv, "--output", out])
    assert_ok_or_one_line((code, stdout, err))
    if code != 0:
        assert out.read_text() == "previous"
    assert not [p for p in tmp.iterdir() if p.name.endswith(".tmp")]


@SETTINGS
@given(data=mutated(RESULTS), command=st.sampled_from(["leaderboard", "scorecard", "robustness"]))
def test_fuzz_results_file(tmp_path_factory, data, command):
    tmp = tmp_path_factory.mktemp("fz")
    path = tmp / "results_2026-11-23T12-12-41.985277.json"
    path.write_bytes(data)
    _check_run(tmp, [command, path])


@SETTINGS
@given(data=mutated(SAMPLES))
def test_fuzz_samples_file(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("fz")
    path = tmp / PROMPT_SAMPLES.name
    path.write_bytes(data)
    _check_run(tmp, ["robustness", path])


@SETTINGS
@given(data=mutated(RANK_TEXT.encode()), fmt=st.sampled_from(["table", "markdown", "csv", "json", "html"]))
def test_fuzz_rank_file(tmp_path_factory, data, fmt):
    tmp = tmp_path_factory.mktemp("fz")
    path = tmp / "ranks.txt"
    path.write_bytes(data)
    _check_run(tmp, ["rank", path, "--format", fmt])


@SETTINGS
@given(data=st.data(), command=st.sampled_from(["leaderboard", "scorecard"]))
def test_fuzz_config(tmp_path_factory, data, command):
    shipped = "open_llm_leaderboard_v2.yaml" if command == "leaderboard" else "llm_benchmarks_scoring.yaml"
    text = data.draw(mutated(config_path(shipped).read_bytes()))
    tmp = tmp_path_factory.mktemp("fz")
    cfg = tmp / "cfg.yaml"
    cfg.write_bytes(text)
    results = tmp / "results_2026-11-23T12-12-41.985277.json"
    results.write_bytes(RESULTS)
    _check_run(tmp, [command, results, "--config", cfg])


@SETTINGS
@given(digits=st.integers(-(10**30), 10**30), confidence=st.floats(allow_nan=True), seed=st.integers(-(2**70), 2**70))
def test_fuzz_numeric_arguments(tmp_path_factory, digits, confidence, seed):
    tmp = tmp_path_factory.mktemp("fz")
    results = tmp / "results_2026-11-23T12-12-41.985277.json"
    results.write_bytes(RESULTS)
    assert_ok_or_one_line(run(["leaderboard", results, f"--digits={digits}"]))
    assert_ok_or_one_line(run(["scorecard", results, f"--digits={digits}"]))
    assert_ok_or_one_line(run(["robustness", results, f"--confidence={confidence}"]))
    if not 0 <= seed < 2**32:
        assert_ok_or_one_line(run(["demo", "--model", "dummy", f"--seed={seed}", "--output-dir", tmp / "demo"]))
        assert not (tmp / "demo").exists()
