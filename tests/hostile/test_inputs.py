"""Broken, hostile and odd input files on every command that reads
files. Each gives exit 0 with a correct result, or one line naming the file and the place."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.support import (
    LIGHTEVAL_DETAILS,
    LM_EVAL_RESULTS,
    LIGHTEVAL_RESULTS,
    RANK_TEXT,
    assert_ok_or_one_line,
    assert_one_line_error,
    results_body,
    run,
    score_run,
    write_results,
)

RESULTS_COMMANDS = ("leaderboard", "scorecard", "robustness")


def _text(body: dict) -> str:
    return json.dumps(body)


# --- huge integers -------------------------------------------------------------------------


@pytest.mark.parametrize("command", RESULTS_COMMANDS)
def test_integer_of_5000_digits_in_an_unused_field(tmp_path, command):
    body = _text(results_body())[:-1] + ', "unused": ' + "9" * 5000 + "}"
    path = write_results(tmp_path, body)
    code, out, err = run([command, path])
    if command == "robustness":  # no SCORE task in a leaderboard results file: said in one line
        assert_one_line_error((code, out, err), "no SCORE robustness results")
    else:
        assert code == 0, err
        assert "Traceback" not in err


def test_metric_of_400_digits_is_reported_with_its_place(tmp_path):
    text = re.sub(r'"acc_norm,none": [0-9.e-]+', '"acc_norm,none": 1' + "0" * 400, _text(results_body()))
    path = write_results(tmp_path, text)
    assert_one_line_error(run(["leaderboard", path]), str(path), "acc_norm,none", "outside [0, 1]")
    # score: read as inf (as lm-eval's Infinity), which the thresholds clip like any value
    code, out, err = run(["scorecard", path, "--format", "json"])
    assert code == 0, err
    gpqa = json.loads(out)["models"][0]["categories"]["knowledge"]["benchmarks"]["gpqa"]
    assert gpqa["score"] == 1.0


def test_big_int_in_samples_line_names_the_line(tmp_path):
    samples = score_run(tmp_path / "run")
    lines = samples.read_text().splitlines()
    row = json.loads(lines[2])
    row["doc_id"] = 10**400  # json writes it; a long integer anywhere must not crash
    lines[2] = json.dumps(row)
    lines[3] = lines[3][:-1] + ', "unused": ' + "7" * 5000 + "}"
    samples.write_text("\n".join(lines) + "\n")
    code, out, err = run(["robustness", samples])
    assert code == 0, err
    assert "SCORE robustness" in out


@pytest.mark.parametrize(
    "literal,needle",
    [("-0x" + "f" * 5000, "an integer of about"), ("9" * 5000, "more than 4300 digits"),
     ("-" * 100_000 + "1", "nested too deeply"), ("1e999999", "positive integer, got inf")],
    ids=["hex", "5000-digits", "unary-minus", "float-overflow"],
)
def test_rank_file_numbers(tmp_path, literal, needle):
    path = tmp_path / "ranks.txt"
    path.write_text("a = {'m': 1, 'known_totals': 2}\nb = {'m': 1, 'known_totals': %s}\n{}\n" % literal)
    assert_one_line_error(run(["rank", path]), str(path), needle)


def test_rank_file_huge_hex_total_is_a_valid_total(tmp_path):
    path = tmp_path / "ranks.txt"
    path.write_text("a = {'m': 1, 'n': 2, 'known_totals': 0x" + "f" * 5000 + "}\n{'m': 0x" + "f" * 5000 + "}\n")
    assert_one_line_error(run(["rank", path]), str(path), "cost must be", "an integer of about")
    path.write_text("a = {'m': 1, 'n': 2, 'known_totals': 0x" + "f" * 5000 + "}\n{}\n")
    code, out, err = run(["rank", path, "--format", "json"])
    assert code == 0, err
    assert [r["model"] for r in json.loads(out)] == ["m", "n"]


# --- deep nesting --------------------------------------------------------------------------


@pytest.mark.parametrize("command", RESULTS_COMMANDS)
def test_json_nested_5000_deep_in_an_unused_field(tmp_path, command):
    body = _text(results_body())[:-1] + ', "unused": ' + "[" * 5000 + "]" * 5000 + "}"
    path = write_results(tmp_path, body)
    assert_one_line_error(run([command, path]), str(path), "nested deeper than", "line 1 column")


def test_jsonl_line_nested_too_deep_names_the_line(tmp_path):
    samples = score_run(tmp_path / "run")
    lines = samples.read_text().splitlines()
    lines[4] = lines[4][:-1] + ', "unused": ' + "[" * 3000 + "]" * 3000 + "}"
    samples.write_text("\n".join(lines) + "\n")
    assert_one_line_error(run(["robustness", samples]), f"{samples}: line 5", "nested deeper than")


# --- encoding ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
@pytest.mark.parametrize("fmt", ("table", "markdown", "csv", "json", "html"))
def test_lone_surrogate_in_model_name(tmp_path, command, fmt):
    path = write_results(tmp_path, _text(results_body("org/m\ud800x")))
    out_file = tmp_path / f"out.{fmt}"
    for argv in ([command, path, "--format", fmt], [command, path, "--format", fmt, "--output", out_file]):
        code, out, err = run(argv)
        assert code == 0, err
    text = out_file.read_bytes().decode("utf-8")  # valid UTF-8: the surrogate is escaped
    assert "\\ud800" in text
    if fmt == "json":
        assert any(m["model"] == "org/m\ud800x" for m in json.loads(text)["models"])


@pytest.mark.skipif(os.name != "posix", reason="POSIX file names are bytes")
def test_non_utf8_folder_name_as_model_name(tmp_path):
    body = results_body()
    body.pop("model_name", None)
    body["config"]["model_args"] = None
    folder = os.path.join(os.fsencode(tmp_path), b"org-\xff-model")
    os.mkdir(folder)
    with open(os.path.join(folder, b"results_2026-11-23T12-12-41.985277.json"), "w") as fh:
        json.dump(body, fh)
    for fmt in ("table", "json", "markdown", "csv", "html"):
        code, out, err = run(["leaderboard", os.fsdecode(folder), "--format", fmt, "--output", tmp_path / "out"])
        assert code == 0, err
        text = (tmp_path / "out").read_bytes().decode("utf-8")
        if fmt == "json":  # the file path in "sources" keeps the undecodable byte as an escape
            assert "org-\\udcff-model" in text and json.loads(text)["models"][0]["sources"][0].endswith(".json")


@pytest.mark.skipif(os.name != "posix", reason="POSIX file names are bytes")
@pytest.mark.parametrize("fmt", ("table", "json", "markdown", "csv", "html"))
def test_non_utf8_folder_name_as_robustness_model(tmp_path, fmt):
    folder = os.path.join(os.fsencode(tmp_path), b"org__m\xff")
    score_run(__import__("pathlib").Path(os.fsdecode(folder)))
    code, out, err = run(["robustness", os.fsdecode(folder), "--format", fmt])
    assert code == 0, err
    assert ("m\\\\udcff" if fmt == "markdown" else "m\\udcff") in out  # markdown escapes the backslash too


@pytest.mark.parametrize("command", RESULTS_COMMANDS)
def test_bom_is_accepted(tmp_path, command):
    path = write_results(tmp_path, b"\xef\xbb\xbf" + _text(results_body()).encode())
    code, out, err = run([command, path])
    if command == "robustness":
        assert_one_line_error((code, out, err), "no SCORE robustness results")
    else:
        assert code == 0, err


def test_rank_file_with_bom_is_accepted(tmp_path):
    path = tmp_path / "ranks.txt"
    path.write_bytes(b"\xef\xbb\xbf" + RANK_TEXT.encode())
    code, out, err = run(["rank", path])
    assert code == 0, err
    assert "org/a" in out


@pytest.mark.parametrize("command", RESULTS_COMMANDS)
def test_nul_byte_in_json_names_line(tmp_path, command):
    text = json.dumps(results_body(), indent=1).replace('"results"', '"res\x00ults"', 1)
    path = write_results(tmp_path, text)
    assert_one_line_error(run([command, path]), str(path), "line 2 column", "\\x00")


def test_nul_byte_in_rank_file_names_line(tmp_path):
    path = tmp_path / "ranks.txt"
    path.write_text(RANK_TEXT.replace("\nhelm", "\n\x00helm"))
    assert_one_line_error(run(["rank", path]), f"{path}: line 2", "NUL")


def test_not_utf8_rank_file_names_line(tmp_path):
    path = tmp_path / "ranks.txt"
    path.write_bytes(RANK_TEXT.encode() + b"# \xff\n")
    assert_one_line_error(run(["rank", path]), f"{path}: line 4", "not UTF-8")


# --- badly shaped lighteval files ----------------------------------------------------------


@pytest.mark.parametrize("command", RESULTS_COMMANDS)
def test_lighteval_config_general_as_a_list(tmp_path, command):
    body = json.loads(LIGHTEVAL_RESULTS.read_text())
    body["config_general"] = [1, 2]
    path = write_results(tmp_path, body, LIGHTEVAL_RESULTS.name)
    assert_one_line_error(run([command, path]), str(path), "config_general")


def _details_with(tmp_path: Path, shape: str) -> Path:
    """A copy of a real lighteval 0.13 SCORE details file (a run folder) with one column in a shape
    no lighteval version writes (0.11-0.13: structs; Doc.specific a dict or None)."""
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    rows = pq.read_table(LIGHTEVAL_DETAILS).to_pylist()
    for r in rows:
        if shape == "doc as JSON text":
            r["doc"] = json.dumps(r["doc"])
        elif shape == "specific a list":
            r["doc"]["specific"] = [r["doc"]["specific"]]
        else:
            r["model_response"] = "just text"
    folder = tmp_path / "run" / "details" / "org" / "m" / "2026-11-23T12-34-43.588819"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / LIGHTEVAL_DETAILS.name)
    return folder / LIGHTEVAL_DETAILS.name


@pytest.mark.parametrize("shape,needle", [
    ("doc as JSON text", "column 'doc': holds text (string), expected lighteval's document"),
    ("specific a list", "column 'doc': field 'specific' holds a list, expected a mapping or null"),
    ("model_response as text", "column 'model_response': holds text (string)"),
])
@pytest.mark.parametrize("command", ["robustness", "compare", "export"])
def test_lighteval_details_in_a_shape_lighteval_never_writes(tmp_path, shape, needle, command):
    """A details parquet whose doc column held strings (or doc.specific a list) was reported with
    exit 0 as if valid: every row counted as 'without SCORE fields'."""
    path = _details_with(tmp_path, shape)
    assert_one_line_error(run([command, tmp_path / "run"]), f"{path}: {needle}")


def test_lighteval_0_10_details_are_said_to_be_the_old_layout():
    from tests.hostile.support import CORPUS

    folder = CORPUS / "lighteval-0.10.0" / "accelerate"
    assert_one_line_error(run(["compare", folder]), "no column 'doc': this is lighteval 0.8-0.10's details layout")


def test_damaged_parquet_is_one_line(tmp_path):
    path = tmp_path / LIGHTEVAL_DETAILS.name
    path.write_bytes(LIGHTEVAL_DETAILS.read_bytes()[: 200])
    assert_one_line_error(run(["robustness", path]), str(path), "cannot read lighteval details parquet")


# --- billion laughs and deep YAML ----------------------------------------------------------

LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")
)


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
@pytest.mark.parametrize("text,needle", [(LAUGHS, "aliases expand to more than"), ("a: " + "[" * 3000 + "]" * 3000 + "\n", "nested deeper than"),
                                         ("categories:\n  c:\n    weight: " + "9" * 5000 + "\n", "integer too large"),
                                         ("categories:\n  c:\n    weight: 0x" + "f" * 5000 + "\n", "integer too large"),
                                         ("a: 1\nb: x\x00\n", "NUL byte")])
def test_hostile_yaml_config(tmp_path, command, text, needle):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(text)
    path = write_results(tmp_path / "r", results_body())
    started = time.perf_counter()
    err = assert_one_line_error(run([command, path, "--config", cfg]), str(cfg), needle)
    assert time.perf_counter() - started < 5
    assert len(err) < 400  # the expansion is not put into the message


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
@pytest.mark.parametrize("text,line", [
    ("name: x\ncategories: &c\n  k: [1, *c]\n", 3),  # an alias in a sequence inside its anchor
    ("name: x\ncategories: &c\n  k:\n    <<: *c\n", 4),  # a merge key pulling in its own anchor
    ("name: x\ncategories: &c {k: *c}\n", 2),
])
def test_cyclic_yaml_config(tmp_path, command, text, line):
    """An alias inside its own anchor made a cyclic value; the message was "input
    nested too deeply" without the file or the place."""
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(text)
    path = write_results(tmp_path / "r", results_body())
    assert_one_line_error(run([command, path, "--config", cfg]), f"{cfg}: line {line}:", "alias inside its own anchor")


def test_yaml_bom_accepted(tmp_path):
    from scorekit.resources import config_path

    cfg = tmp_path / "cfg.yaml"
    cfg.write_bytes(b"\xef\xbb\xbf" + config_path("llm_benchmarks_scoring.yaml").read_bytes())
    path = write_results(tmp_path / "r", results_body())
    code, _, err = run(["scorecard", path, "--config", cfg])
    assert code == 0, err


# --- unclear messages ----------------------------------------------------------------------


def test_robustness_record_error_names_file_and_line(tmp_path):
    samples = score_run(tmp_path / "run")
    lines = samples.read_text().splitlines()
    row = json.loads(lines[6])
    row["doc"]["variant"] = 99
    lines[6] = json.dumps(row)
    samples.write_text("\n".join(lines) + "\n")
    assert_one_line_error(run(["robustness", samples]), f"{samples}: line 7", "variant 99 outside 0..9")


def test_score_ambiguous_lighteval_key_names_the_results_file(tmp_path):
    body = json.loads(LIGHTEVAL_RESULTS.read_text())
    body["results"] = {"lighteval|gsm8k|0": {"em": 0.5}, "lighteval|gsm8k|5": {"em": 0.6}}
    path = write_results(tmp_path, body, LIGHTEVAL_RESULTS.name)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("categories:\n  c:\n    benchmarks:\n      b:\n        metrics:\n"
                   "          m: {key: {task: gsm8k, metric: em}, good: 1.0, bad: 0.0}\n")
    assert_one_line_error(run(["scorecard", path, "--config", cfg]), str(path), "matches several results keys")


@pytest.mark.parametrize("command", ("leaderboard", "scorecard", "robustness", "rank"))
def test_symlink_loop_is_said_as_a_loop(tmp_path, command):
    loop = tmp_path / "loop.json"
    os.symlink(loop, loop)
    assert_one_line_error(run([command, loop]), str(loop), "symlink loop")


@pytest.mark.parametrize("command", ("leaderboard", "scorecard"))
def test_symlink_loop_config(tmp_path, command):
    loop = tmp_path / "loop.yaml"
    os.symlink(loop, loop)
    path = write_results(tmp_path / "r", results_body())
    assert_one_line_error(run([command, path, "--config", loop]), str(loop), "symlink loop")


def test_rank_missing_file_is_one_error_line(tmp_path):
    """The spec's five-line message had no ``scorekit: error:`` line."""
    missing = tmp_path / "nope.txt"
    assert_one_line_error(run(["rank", missing]), f"{missing}: file not found", "usage: scorekit rank [FILE]")
    assert_one_line_error(run(["rank"], cwd=tmp_path), "ranks_general.txt: file not found", "ranking_sample.txt")


# --- endless and huge rank files --------------------------------------------------


def test_rank_on_dev_zero_is_one_line_naming_it():
    """It read /dev/zero until the memory ran out: "out of memory" without the file's name."""
    assert_one_line_error(run(["rank", "/dev/zero"]), "/dev/zero: ", "not a regular file")


def test_rank_reads_a_pipe(tmp_path):
    """The bound on what is read from a non-regular file leaves pipes (`<(...)`) working."""
    read_fd, write_fd = os.pipe()
    os.write(write_fd, RANK_TEXT.encode())
    os.close(write_fd)
    try:
        code, out, err = run(["rank", f"/dev/fd/{read_fd}", "--format", "csv"])
    finally:
        os.close(read_fd)
    assert code == 0, err
    assert out.splitlines()[1].split(",")[1] == "org/b"  # mean percentile 0.2 against 0.25


@pytest.mark.slow
def test_rank_file_of_100000_models_in_under_1_gb(tmp_path):
    """It ran out of memory (the pairwise comparison held 100,000 x 100,000 values)."""
    import random

    rng = random.Random(0)
    n = 100_000
    lines = []
    for b in range(3):
        ranks = list(range(1, n + 1))
        rng.shuffle(ranks)
        lines.append(f"bench{b} = {{" + ", ".join(f"'org/model-{i}': {r}" for i, r in enumerate(ranks))
                     + f", 'known_totals': {n}}}")
    lines.append("{" + ", ".join(f"'org/model-{i}': {i % 500 + 1}" for i in range(0, n, 7)) + "}")
    path = tmp_path / "ranks.txt"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.csv"
    # The peak of this process's own memory (VmHWM): ru_maxrss would carry over the high-water mark
    # of the pytest process that spawned it (Linux keeps it across exec), which grows with the suite.
    script = ("import sys; from scorekit.cli import main; code = main(sys.argv[1:]); "
              "print(code, next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "plugin"))
    proc = subprocess.run([sys.executable, "-c", script, "rank", str(path), "--format", "csv", "--output", str(out)],
                          capture_output=True, text=True, env=env, timeout=900)
    code, peak_kb = proc.stdout.split()
    assert code == "0", proc.stderr
    assert int(peak_kb) < 1_000_000, peak_kb
    assert len(out.read_text().splitlines()) == n + 1
    assert "rank ranges (every pair compared) are left out" in proc.stderr  # said, not silent


# --- lighteval-offline ---------------------------------------------------------------------


@pytest.fixture
def pkl_target(tmp_path, monkeypatch):
    from scorekit.lighteval import offline

    target = tmp_path / "site" / "tinyBenchmarks.pkl"
    target.parent.mkdir()
    monkeypatch.setattr(offline, "tiny_benchmarks_pkl_path", lambda: target)
    return target


def test_offline_from_a_folder(tmp_path, pkl_target):
    err = assert_one_line_error(run(["lighteval-offline", "--install", "--from", tmp_path]), str(tmp_path), "is a directory")
    assert "not found" not in err and not pkl_target.exists()


# An unreadable --from (chmod 0) cannot be made as root, who reads any file, and this suite runs
# as root; the symlink loop below is a --from that cannot be read, blamed on the source the same way.
def test_offline_unreadable_source_is_blamed_on_the_source_loop(tmp_path, pkl_target):
    source = tmp_path / "loop.pkl"
    os.symlink(source, source)
    err = assert_one_line_error(run(["lighteval-offline", "--install", "--from", source]), str(source), "symlink loop")
    assert str(pkl_target) not in err and not pkl_target.exists()


def test_offline_destination_is_a_folder(pkl_target):
    pkl_target.mkdir()
    err = assert_one_line_error(run(["lighteval-offline", "--install"]), str(pkl_target), "already exists (a folder)")
    assert "(missing)" not in err


def test_offline_remove_of_a_folder_is_left_in_place(pkl_target):
    pkl_target.mkdir()
    assert_one_line_error(run(["lighteval-offline", "--remove"]), str(pkl_target), "not a file")
    assert pkl_target.is_dir()


# --- robustness: where a family's shape breaks ------------------------------------


def test_robustness_duplicate_variant_names_file_and_line(tmp_path):
    """It named the question but not the file and line."""
    samples = score_run(tmp_path / "run")
    lines = samples.read_text().splitlines()
    lines.insert(9, lines[3])  # line 4's record again, as line 10
    samples.write_text("\n".join(lines) + "\n")
    qid = json.loads(lines[3])["doc"]["question_id"]
    assert_one_line_error(run(["robustness", samples]), f"{samples}: line 10:", f"question {qid!r}", "more than once")


def test_robustness_disagreeing_variant_counts_name_file_and_line(tmp_path):
    samples = score_run(tmp_path / "run")
    lines = samples.read_text().splitlines()
    rows = [json.loads(ln) for ln in lines]
    first = rows[0]["doc"]["question_id"]
    at = max(i for i, r in enumerate(rows) if r["doc"]["question_id"] == first and r["doc"]["variant"] < 9)
    rows[at]["doc"]["n_variants"] = 11
    samples.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert_one_line_error(run(["robustness", samples]), f"{samples}: line {at + 1}:", "disagree on n_variants")


def test_robustness_metric_written_as_a_string_is_an_error(tmp_path):
    """It was dropped silently: the report then lacked that metric without a word."""
    from tests.hostile.support import SCORE_RUN

    source = next(SCORE_RUN.glob("results_*.json"))
    body = json.loads(source.read_text())
    body["results"]["score_prompt_robustness_mmlu_pro"]["consistency_rate,none"] = "0.5"
    path = write_results(tmp_path / "run", body, name=source.name)
    assert_one_line_error(run(["robustness", path]), str(path),
                          'results["score_prompt_robustness_mmlu_pro"]["consistency_rate,none"]', "got a string '0.5'")


@pytest.mark.parametrize("command", [
    ["robustness"], ["robustness", "--format", "csv"], ["compare"], ["compare", "--format", "json"], ["export"],
    ["plan", "--task", "leaderboard_gpqa_diamond", "--metric", "acc_norm,none", "--pilot"],
    ["leaderboard"], ["scorecard", "--config", "open_llm_leaderboard_v2"],
])
def test_hidden_run_folder_beside_a_run_is_said(tmp_path, command):
    """Next to another run, a run folder whose name starts with a dot was left out without a
    word by `plan --pilot`, and named twice in one output by `compare` and `export`."""
    runs = tmp_path / "in"
    if command[0] in ("robustness", "compare", "export"):
        score_run(runs / "run0")
        score_run(runs / ".run1")
    else:  # an lm-eval run with samples logs
        for name in ("run0", ".run1"):
            shutil.copytree(LM_EVAL_RESULTS.parent, runs / name)
    hidden = runs / ".run1"
    code, out, err = run([*command, runs, *([runs / "run0"] if "plan" in command else [])])
    assert code == 0, err
    said = [text.count(f"1 hidden files and folders") for text in (out, err)]
    assert str(hidden) in out + err and sum(said) >= 1 and max(said) == 1, out + err


def test_robustness_hidden_run_folder_is_said(tmp_path):
    """A run folder whose name starts with a dot was skipped without a word when nothing else
    was found; next to other runs it is a note of the report."""
    hidden = tmp_path / "runs" / ".run1"
    score_run(hidden)
    assert_one_line_error(run(["robustness", tmp_path / "runs"]), "no SCORE robustness results or samples found",
                          f"left out 1 hidden files and folders: {hidden}")
    score_run(tmp_path / "runs" / "run2")
    code, out, err = run(["robustness", tmp_path / "runs", "--format", "json"])
    assert code == 0, err
    assert f"left out 1 hidden files and folders: {hidden}" in json.loads(out)["notes"]
