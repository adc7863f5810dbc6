"""``scorekit variants --family option_order`` on lm-eval's own task configs whose options are
shown in less common ways, each on local rows in the dataset's real columns
(tests/lm_eval/catalogue_rows.py): what it writes really moves the options the model reads
(checked independently, tests/lm_eval/catalogue_check.py), or it refuses in one line.

- labels of any script (Arabic ``أ.``/``أ)``/``أ-`` written by ``process_docs``, Greek), inside a
  line (``A. x B. y``, ``A:x, B: y``, ``(A) x (B) y``), after a word (``Option A:``), scored in
  another order than shown (``B``, ``A``);
- options that are the choices' own words, positioned as the prompt lists them (anli scores
  ``True, Neither, False`` and shows ``True, False, or Neither``), a choice word elsewhere in the
  passage or in definitions staying where it is, two lists moving together;
- ``--show-options``: more than 26 options lettered past Z, few-shot examples lettered as the
  question is, winogrande's several inputs asked as one sentence with a blank;
- the prompt family refusing templates that hide the options a task is scored on;
- offline without the data: "could not check offline", not "cloze".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import lm_eval
import pytest

from scorekit.cli import main
from tests.lm_eval.catalogue_check import LM_EVAL_TASKS, moves, write_local
from tests.lm_eval.catalogue_rows import rows_for


def variants(*argv: str) -> int:
    return main(["variants", *argv])


LABELLED = [
    ("arabic_leaderboard_arabic_mmlu_anatomy", "A. line"),  # process_docs writes "أ. option" lines, scores أ ب ج د
    ("arabic_exams", "A) line"),  # " أ) option" lines with blank lines between
    ("AraDiCE_ArabicMMLU_high_humanities_history_egy", "A- line"),  # "أ- option"
    *([("greekmmlu_accounting", "A. line")]  # "Α. option", Greek capitals (lm-eval 0.4.13; 0.5.0.dev1 lacks the task)
      if (LM_EVAL_TASKS / "greekmmlu").is_dir() else []),
    ("naijarc_hau_prompt_3", "A: line"),  # "Option A: ..."
    ("bangla_mmlu", "A. inline"),  # "question A. x B. y C. z D. w Answer:" on one line
    ("click_cul_economy", "A: inline"),  # "A:x, B: y, C: z, D: w"
    ("mmlu_flan_n_shot_loglikelihood_anatomy", "(A) inline"),
    # scores ["B", "A"], shows "A: Vero\nB: Falso" (lm-eval 0.5.0.dev1 cannot build it: its registry lacks the f1 aggregation)
    *([("evalita-mp_hs_prompt-3", "A: line")] if lm_eval.__version__.startswith("0.4") else []),
    ("advanced_ai_risk_fewshot-coordinate-itself", "(A) line"),  # " (A) Yes ..." inside the question field
]
TEXTS = ["anli_r1", "toxigen", "cb", "sib_afr_prompt_1", "afrisenti_amh_prompt_5", "afrixnli_amh_prompt_1",
         "nollysenti_eng_prompt_3", "injongointent_amh_prompt_1"]
MANY = [f"number {n}" for n in range(30)]
# local task -> (built-in task, its rows (None: catalogue_rows'), YAML lines to add)
LOCALS: dict[str, tuple[str, list | None, str]] = {
    **{f"{name}__local": (name, None, "") for name, _ in LABELLED},
    **{f"{name}__local": (name, None, "") for name in TEXTS},
    "csatqa_gr__local": ("csatqa_gr", None, ""),
    "belebele_afr_prompt_2__local": ("belebele_afr_prompt_2", None, ""),
    "winogrande__local": ("winogrande", None, ""),
    "mmlu_anatomy__local": ("mmlu_anatomy", None, ""),
    "arc_easy__local": ("arc_easy", None, "fewshot_split: test\nnum_fewshot: 2\nfewshot_config:\n  sampler: first_n\n"),
    "cb_bad__local": ("cb", [{"premise": "It rains.", "hypothesis": "It is wet.", "idx": 0, "label": 5}], ""),
    "many__local": ("bigbench_abstract_narrative_understanding_multiple_choice", [
        {"idx": i, "inputs": f"Q: Which number did I think of ({i})?\nA:", "targets": [MANY[g]],
         "multiple_choice_targets": MANY, "multiple_choice_scores": [int(n == g) for n in range(30)]}
        for i, g in enumerate((28, 3))], ""),
}


def _same_options_rows() -> list[dict]:
    from tests.lm_eval.catalogue_rows import mmlu_rows

    rows = list(mmlu_rows("anatomy"))
    rows[2] = {**rows[2], "choices": ["same"] * 4}
    return rows


LOCALS["mmlu_same__local"] = ("mmlu_anatomy", _same_options_rows(), "")


class Src(NamedTuple):
    path: Path
    golds: dict[str, list]  # local task -> its rows' gold texts


@pytest.fixture(scope="module")
def src(tmp_path_factory) -> Src:
    """Every local task of this module in one folder (scorekit variants indexes a folder once per
    process), with its golds: {local task: gold texts}."""
    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.lm_eval.task_variants_build import task_index as _task_index

    folder = tmp_path_factory.mktemp("layouts")
    index = _task_index(None)
    golds = {}
    for local, (name, rows, extra) in LOCALS.items():
        entry = index[name]
        cfg = load_yaml(entry.yaml_path, resolve_func=False)
        fixture, fixture_rows = rows_for(name, entry.yaml_path, cfg)
        rows = fixture_rows if rows is None else rows
        write_local(folder, name, entry.yaml_path, rows, cfg, extra + fixture.extra, local=local)
        golds[local] = [fixture.gold(r) for r in rows] if local != "cb_bad__local" else []  # its label is out of range
    return Src(folder, golds)


def expanded(out: Path, local: str) -> list[dict]:
    """The variant task's documents as lm-eval builds them: prompt, scored choices, target, meta."""
    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.lm_eval.task_variants import RobustTask

    cfg = load_yaml(str(out / f"robust_option_order_{local}.yaml"), resolve_func=False)
    task = RobustTask(config={k: v for k, v in cfg.items() if k != "class"})
    docs = task.test_docs() if task.has_test_docs() else task.validation_docs()
    return [{"prompt": task.doc_to_text(d), "choices": task.doc_to_choice(d), "target": task.doc_to_target(d),
             "meta": d["_robust"]} for d in docs]


def written_and_moving(src: Src, tmp_path: Path, local: str, *flags: str) -> Path:
    out = tmp_path / "out"
    assert variants(local, "--family", "option_order", *flags, "--include-path", str(src.path), "--output-dir", str(out)) == 0
    problem = moves(out, local, src.golds[local])
    assert problem is None, problem
    return out


# --- labels of any script, in any layout ---------------------------------------------------------

@pytest.mark.parametrize("name,style", LABELLED, ids=[n for n, _ in LABELLED])
@pytest.mark.parametrize("show", [False, True], ids=["", "show-options"])
def test_labelled_options_of_any_script_and_layout_move(src, tmp_path, name, style, show):
    out = written_and_moving(src, tmp_path, f"{name}__local", *(["--show-options"] if show else []))
    docs = expanded(out, f"{name}__local")
    assert {d["meta"]["layout"] for d in docs} == {style}
    assert all(d["meta"]["permuted"] for d in docs)


def test_arabic_letters_are_kept_and_the_options_move_under_them(src, tmp_path):
    """The options stay under أ ب ج د; with --show-options nothing is appended (no "A. ب" lines)."""
    local = "arabic_leaderboard_arabic_mmlu_anatomy__local"
    out = written_and_moving(src, tmp_path, local, "--show-options")
    docs = [d for d in expanded(out, local) if d["meta"]["question_id"] == "0"]
    assert [d["choices"] for d in docs] == [["أ", "ب", "ج", "د"]] * 4
    lines = [[line for line in d["prompt"].splitlines() if line[:2] in ("أ.", "ب.", "ج.", "د.")] for d in docs]
    assert lines[0] == ["أ. عطارد", "ب. المريخ", "ج. الأرض", "د. الزهرة"]  # the gold عطارد at the first position
    assert all(len(x) == 4 for x in lines) and len({tuple(x) for x in lines}) == 4
    assert not any(re.search(r"^[A-D]\. ", d["prompt"], flags=re.M) for d in docs)
    assert [d["choices"][d["target"]] for d in docs] == ["أ", "ب", "ج", "د"]


@pytest.mark.parametrize("show", [False, True], ids=["", "show-options"])
def test_options_numbered_under_other_labels_than_scored_are_refused_naming_the_form(src, tmp_path, capsys, show):
    """afrobench's belebele prompt_2 (37 tasks) shows "1: option" lines and scores A, B, C, D: no
    shown option is named by a scored label, so it is refused in one line naming the numbers."""
    assert variants("belebele_afr_prompt_2__local", "--family", "option_order", *(["--show-options"] if show else []),
                    "--include-path", str(src.path), "--output-dir", str(tmp_path / "o")) == 2
    err = "".join(line + "\n" for line in capsys.readouterr().err.splitlines() if not line.startswith("scorekit: note: "))
    assert err == ("scorekit: error: task belebele_afr_prompt_2__local: document 0: the prompt shows its options under "
                   "other labels than the ones it scores: 1, 2, 3, 4 (1: lines), scored as A, B, C, D; which option a "
                   "scored label names is not shown\n")
    assert not (tmp_path / "o").exists()


# --- options that are the choices' words ---------------------------------------------------------

def test_text_options_are_positioned_as_the_prompt_lists_them(src, tmp_path):
    """anli scores True, Neither, False and shows "True, False, or Neither?": position B is the
    second option the model reads."""
    out = written_and_moving(src, tmp_path, "anli_r1__local")
    docs = [d for d in expanded(out, "anli_r1__local") if d["meta"]["question_id"] == "1"]  # gold: Neither
    asked = {d["meta"]["variant"]: (d["prompt"].splitlines()[-2][-len("False, Neither, or True?"):], d["choices"], d["target"])
             for d in docs}
    assert asked[0] == ("Neither, True, or False?", ["Neither", "True", "False"], 0)
    assert asked[1] == ("False, Neither, or True?", ["False", "Neither", "True"], 1)
    assert asked[2] == ("True, False, or Neither?", ["True", "False", "Neither"], 2)


def test_yes_or_no_in_the_prompt_order(src, tmp_path):
    out = written_and_moving(src, tmp_path, "toxigen__local")  # scores No, Yes; shows "either Yes or No"
    first = [d for d in expanded(out, "toxigen__local") if d["meta"]["question_id"] == "0"]  # hateful: gold Yes
    assert {d["meta"]["variant"]: d["choices"] for d in first} == {0: ["Yes", "No"], 1: ["No", "Yes"]}
    assert "Respond with either No or Yes." in next(d["prompt"] for d in first if d["meta"]["variant"] == 1)


@pytest.mark.parametrize("name", TEXTS[2:])
def test_a_choice_word_outside_the_option_list_stays(src, tmp_path, name):
    """cb's premise says "True," (row 0), sib's text "health", afrisenti's definitions repeat the
    labels, afrixnli lists the options twice (both lists move), nollysenti capitalises them,
    InjongoIntent lists 40 intents ("text" and "time" among them)."""
    out = written_and_moving(src, tmp_path, f"{name}__local")
    docs = expanded(out, f"{name}__local")
    if name == "cb":
        assert all("True, one might say it was peeled down." in d["prompt"] for d in docs if d["meta"]["question_id"] == "0")
    if name == "afrisenti_amh_prompt_5":
        for d in docs:
            assert " Positive: The text expresses happiness" in d["prompt"] and "both positive and negative sentiments" in d["prompt"]
    if name == "afrixnli_amh_prompt_1":
        for d in docs:
            first, second = re.findall(r"(\w+), (\w+), or (\w+)", d["prompt"])[-2:]
            assert first == second and list(first) == d["choices"]
    if name == "injongointent_amh_prompt_1":
        assert {d["meta"]["n_variants"] for d in docs} == {40}


# --- --show-options ------------------------------------------------------------------------------

def test_more_than_26_options_are_lettered_past_z(src, tmp_path):
    out = written_and_moving(src, tmp_path, "many__local", "--show-options")
    docs = expanded(out, "many__local")
    assert {d["meta"]["n_variants"] for d in docs} == {30}
    assert docs[0]["choices"][-4:] == ["AA", "AB", "AC", "AD"] and "\nAD. number " in docs[0]["prompt"]


def test_few_shot_examples_are_lettered_as_the_question(src, tmp_path):
    """arc_easy with --show-options and two examples: each example shows its options lettered and
    answers with its gold's letter, as the question is asked."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    out = written_and_moving(src, tmp_path, "arc_easy__local", "--show-options")
    lm = ScriptedLM(loglikelihood=lambda context, continuation, doc: 0.0)
    lm_eval.simple_evaluate(model=lm, tasks=["robust_option_order_arc_easy__local"], bootstrap_iters=0,
                            task_manager=TaskManager(include_path=[str(out), str(src.path)], include_defaults=False))
    contexts = {call["args"][0] for call in lm.calls}
    assert any(("Question: Which planet is closest to the Sun?\nA. Venus\nB. Mercury\nC. Mars\nD. Earth\nAnswer: B\n\n"
                "Question: Which gas do plants take in to make food?\nA. oxygen\nB. nitrogen\nC. helium\nD. carbon dioxide\n"
                "Answer: D\n\n") in c for c in contexts)
    assert all(c.count("\nA. ") == 3 and c.endswith("Answer:") and "Answer: carbon dioxide" not in c for c in contexts)


def test_several_inputs_are_asked_as_a_sentence_with_a_blank(src, tmp_path, capsys):
    """winogrande (0.4: doc_to_text gives the gold index; 0.5: multiple_inputs) is refused without
    --show-options and asked as lettered fillers with it, OLMES's formulation."""
    assert variants("winogrande__local", "--family", "option_order", "--include-path", str(src.path), "--output-dir",
                    str(tmp_path / "refused")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--show-options asks it as lettered options" in err
    out = written_and_moving(src, tmp_path, "winogrande__local", "--show-options")
    docs = [d for d in expanded(out, "winogrande__local") if d["meta"]["question_id"] == "0"]
    assert docs[1]["prompt"] == ("The trophy doesn't fit into the brown suitcase because the _ is too large.\n"
                                 "A. suitcase\nB. trophy\nAnswer:")
    assert [(d["choices"], d["target"]) for d in docs] == [(["A", "B"], 0), (["A", "B"], 1)]


# --- the prompt family ---------------------------------------------------------------------------

def test_prompt_templates_hiding_the_options_of_a_lettered_task_are_refused(src, tmp_path, capsys):
    shipped = str(Path(__file__).resolve().parents[2] / "tasks" / "robust_templates" / "question_choices.yml")
    for task, where in (("mmlu_anatomy__local", ["--include-path", str(src.path)]), ("mmlu_anatomy", [])):  # data read / offline
        assert variants(task, "--family", "prompt", "--templates", shipped, *where, "--output-dir", str(tmp_path / "o")) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "it is scored on the labels A, B, C, D, but template 0" in err
        assert "does not show the options they name" in err and not (tmp_path / "o").exists()
    good = tmp_path / "good.yml"
    good.write_text('- "{{question}}\\nA. {{choices[0]}}\\nB. {{choices[1]}}\\nC. {{choices[2]}}\\nD. {{choices[3]}}\\nAnswer:"\n'
                    '- "Q: {{question}}\\n(A) {{choices[0]}} (B) {{choices[1]}} (C) {{choices[2]}} (D) {{choices[3]}}\\nA:"\n')
    assert variants("mmlu_anatomy__local", "--family", "prompt", "--templates", str(good), "--include-path", str(src.path),
                    "--output-dir", str(tmp_path / "o")) == 0


# --- offline, and output -------------------------------------------------------------------------

def test_offline_without_data_says_it_could_not_check(src, tmp_path, capsys):
    """csatqa shows its options through process_docs: offline it is not called a cloze task; with
    its data at hand it is written and its options move."""
    assert variants("csatqa_gr", "--family", "option_order", "--output-dir", str(tmp_path / "o")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "task csatqa_gr: could not check offline whether its prompt shows its options" in err
    assert "cloze" not in err
    written_and_moving(src, tmp_path, "csatqa_gr__local")
    assert variants("arc_easy", "--family", "option_order", "--output-dir", str(tmp_path / "o2")) == 2
    assert "likely a cloze task" in capsys.readouterr().err


def test_no_hub_future_warning_before_the_one_line_error(tmp_path):
    """With ``HF_HUB_ENABLE_HF_TRANSFER=1`` in the environment (lm-eval sets it itself when
    hf_transfer is installed), importing huggingface_hub warns a FutureWarning on stderr; the
    command's standard error is still only scorekit's line (a fresh process: warnings print once)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "HF_HUB_ENABLE_HF_TRANSFER": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf")}
    env.pop("HF_XET_HIGH_PERFORMANCE", None)
    env.pop("PYTHONWARNINGS", None)
    done = subprocess.run([sys.executable, "-m", "scorekit.cli", "variants", "arc_easy", "--family", "option_order",
                           "--output-dir", str(tmp_path / "o")], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("scorekit: error: task arc_easy: could not check offline")


def test_a_refusal_is_one_line_naming_the_task_once(src, tmp_path, capsys):
    """cb's config makes lm-eval warn about its metrics when the task is built; the refusal of a
    bad document is still the only line, and names the task once."""
    assert variants("cb_bad__local", "--family", "option_order", "--include-path", str(src.path), "--output-dir",
                    str(tmp_path / "out")) == 2
    err = capsys.readouterr().err
    assert err == "scorekit: error: task cb_bad__local: document 0: gold index 5 outside the 3 choices\n"


# --- end to end: lm-eval runs a variant task; the report says what was shown ------------------------

def test_report_counts_questions_whose_shown_options_moved(src, tmp_path, capsys):
    """mmlu on three rows, one whose options are all the same text: 2 of 3 questions had their
    shown options permuted, in the notes and in the CSV's rows."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    from tests.support.fake_lm import ScriptedLM

    out = tmp_path / "out"
    assert variants("mmlu_same__local", "--family", "option_order", "--include-path", str(src.path), "--output-dir", str(out)) == 0
    assert [d["meta"]["permuted"] for d in expanded(out, "mmlu_same__local")] == [True] * 8 + [False] * 4
    tracker = EvaluationTracker(output_path=str(tmp_path / "logs"))
    res = lm_eval.simple_evaluate(model=ScriptedLM(loglikelihood=lambda c, x, d: -float(ord(x.strip()[0]))),
                                  tasks=["robust_option_order_mmlu_same__local"], log_samples=True,
                                  evaluation_tracker=tracker, bootstrap_iters=0,
                                  task_manager=TaskManager(include_path=[str(out), str(src.path)], include_defaults=False))
    tracker.save_results_aggregated(results=res, samples=res["samples"])
    for task in res["samples"]:
        tracker.save_results_samples(task_name=task, samples=res["samples"][task])
    capsys.readouterr()
    assert main(["robustness", str(tmp_path / "logs"), "-f", "markdown"]) == 0
    assert "option order: 2 of 3 question(s) had their shown options permuted" in capsys.readouterr().out
    assert main(["robustness", str(tmp_path / "logs"), "-f", "csv"]) == 0
    values = {r[5]: r[6] for r in (line.split(",") for line in capsys.readouterr().out.splitlines()) if len(r) > 6}
    assert values["permuted_questions"] == "2" and values["arranged_questions"] == "3"
