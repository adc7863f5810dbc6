"""Build the conformance corpus: files written by the real lm-eval and lighteval versions.

For each supported harness version this script creates a throwaway venv under ``--work``
(never inside the repo), installs that version with pip (or uv), runs small offline tasks on
local data with a scripted or tiny local model, and copies the results and samples/details files
the harness wrote into ``tests/conformance/corpus/<harness>-<version>/<run>/`` with the harness's
own folder layout and file names. It records, per version, whether the install worked (with the
error excerpt when not), the full ``pip freeze`` of the venv, each run's command, time and
outcome, and writes ``corpus/index.json``.

    python tests/conformance/build_corpus.py --work /tmp/scorekit-corpus            # everything
    python tests/conformance/build_corpus.py --work /tmp/c --only lm-eval==0.4.13   # one version
    python tests/conformance/build_corpus.py --work /tmp/c --uv "$(which uv)"       # faster installs

Nothing here runs in CI: the corpus is committed, and tests only read it. Rebuilding rewrites the
versions built and keeps the index entries of the others. Dates in file names, ``date`` fields
and timings differ between builds; everything else is seeded (lm-eval's default seeds, a
deterministic scripted model, a tiny model built with a fixed torch seed).

Needs network access to a package index only; nothing is fetched from the Hugging Face hub
(``HF_HUB_OFFLINE=1`` and an unreachable proxy make any attempt fail at once).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CORPUS = HERE / "corpus"
DATA = HERE / "data"
LM_EVAL_TASKS = HERE / "lm_eval_tasks"
LIGHTEVAL_TASKS = HERE / "lighteval_tasks"
SCORE_FIXTURES = REPO / "tests" / "robustness" / "fixtures"

# Constraints for every venv: the machine's CPU torch; for lighteval the pins its 0.13 needs next
# to current hub/xxhash/fsspec releases (docs/lighteval.md "Install").
TORCH = "torch==2.13.0"
LIGHTEVAL_CONSTRAINTS = [TORCH, "huggingface_hub<1.0", "xxhash<4", "fsspec<=2026.6.0"]

# Per-version additions without which the version installs but every command fails; each is what
# a user of that version needs today. The reasons are written into the index.
CONSTRAINT_NOTES = {
    "datasets>=3,<4": "lighteval loads --custom-tasks files through datasets' dataset_module_factory("
                      "trust_remote_code=True), which datasets 4 removed (TypeError otherwise)",
    "pyarrow<21": "lighteval pins numpy<2; pyarrow>=21 needs numpy>=2 (ImportError at start-up otherwise)",
    "transformers<5": "transformers 5 removed AutoModelForVision2Seq, which this lm-eval imports at start-up "
                      "(AttributeError on every command otherwise)",
}
EXTRA_CONSTRAINTS = {
    "lighteval-0.8.1": ["pyarrow<21", "datasets>=3,<4"],
    "lighteval-0.10.0": ["pyarrow<21", "datasets>=3,<4"],
    **{f"lm-eval-{v}": ["transformers<5"] for v in ("0.4.5", "0.4.7", "0.4.9")},  # 0.4.2 imports fine
}
# Undeclared start-up imports: lighteval 0.8.1 imports latex2sympy2_extended (declared only in its
# [math] extra); lighteval 0.11.0 builds its registry from every extended task, and ifbench imports
# emoji (declared only in [extended_tasks]); lm-eval 0.5.0.dev1's lm_eval.utils imports requests,
# which it does not declare. Each fails with ModuleNotFoundError on every command otherwise.
REQUIREMENTS = {
    "lighteval-0.8.1": ["lighteval[math]==0.8.1"],
    "lighteval-0.11.0": ["lighteval==0.11.0", "emoji"],
    "lm-eval-0.5.0.dev1": ["lm-eval==0.5.0.dev1", "requests"],
}
# Packages scorekit needs at run time besides the harness (pyproject.toml dependencies).
SCOREKIT_DEPS = ["numpy>=1.24", "scipy>=1.10", "pyyaml>=6", "orjson>=3.9", "rich>=13", "math-verify>=0.5"]


@dataclasses.dataclass(frozen=True)
class Target:
    harness: str  # "lm-eval" | "lighteval"
    version: str

    @property
    def key(self) -> str:
        return f"{self.harness}-{self.version}"

    @property
    def requirement(self) -> str:
        return f"{self.harness}=={self.version}"


TARGETS = [Target("lm-eval", v) for v in ("0.4.2", "0.4.5", "0.4.7", "0.4.9", "0.4.11", "0.4.13", "0.5.0.dev1")] + [
    Target("lighteval", v) for v in ("0.6.2", "0.8.1", "0.10.0", "0.11.0", "0.13.0")
]


# --- small helpers --------------------------------------------------------------------------------

def log(msg: str) -> None:
    print(f"[corpus {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def run(cmd: list[str], *, cwd: Path, env: dict[str, str], log_file: Path, timeout: int = 1800) -> tuple[int, str]:
    """Run ``cmd``; stdout+stderr go to ``log_file``; return (exit code, output)."""
    started = time.time()
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=timeout)
        code, out = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as exc:
        code, out = -9, (exc.stdout or "") + f"\n[timed out after {timeout}s]"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text(f"$ {' '.join(cmd)}\n[cwd {cwd}, {time.time() - started:.1f}s, exit {code}]\n{out}")
    return code, out


def offline_env(work: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every harness run: offline, private HOME/HF_HOME, no proxy escape."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({
        "HOME": str(work / "home"),
        "HF_HOME": str(work / "hf_home"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
        "TOKENIZERS_PARALLELISM": "false",
        "LIGHTEVAL_DISABLE_TQDM": "1",
        "TQDM_DISABLE": "1",
        "PYTHONHASHSEED": "0",
        "CUDA_VISIBLE_DEVICES": "",
    })
    env.update(extra or {})
    return env


def pip_find_links() -> list[str]:
    """pip's configured find-links (uv does not read pip's configuration)."""
    proc = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True)
    links: list[str] = []
    for line in proc.stdout.splitlines():
        m = re.match(r"[\w:.-]*find-links='(.*)'", line.strip())
        if m:
            links += m.group(1).split()
    return links


class Venv:
    def __init__(self, path: Path, uv: str | None) -> None:
        self.path = path
        self.python = path / "bin" / "python"
        self.uv = uv

    def create(self) -> None:
        if self.path.exists():
            shutil.rmtree(self.path)
        subprocess.run([sys.executable, "-m", "venv", str(self.path)], check=True)

    def install(self, requirements: list[str], constraints: list[str], log_file: Path) -> tuple[int, str]:
        cfile = self.path / "constraints.txt"
        cfile.write_text("\n".join(constraints) + "\n")
        if self.uv:
            cmd = [self.uv, "pip", "install", "-p", str(self.python), "-c", str(cfile)]
            for link in pip_find_links():
                cmd += ["--find-links", link]
        else:
            cmd = [str(self.python), "-m", "pip", "install", "--disable-pip-version-check", "-c", str(cfile)]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        return run(cmd + requirements, cwd=self.path, env=env, log_file=log_file, timeout=3600)

    def freeze(self) -> str:
        if self.uv:
            cmd = [self.uv, "pip", "freeze", "-p", str(self.python)]
        else:
            cmd = [str(self.python), "-m", "pip", "freeze", "--disable-pip-version-check"]
        return subprocess.run(cmd, capture_output=True, text=True).stdout

    def site_file(self, module: str) -> Path:
        """The directory of an installed package, found without importing it."""
        code = f"import importlib.util,os;print(os.path.dirname(importlib.util.find_spec({module!r}).origin))"
        out = subprocess.run([str(self.python), "-c", code], capture_output=True, text=True, check=True).stdout
        return Path(out.strip())


def copy_outputs(src: Path, dest: Path) -> list[str]:
    """Copy every file the harness wrote under ``src`` to ``dest``; return their relative paths."""
    if dest.exists():
        shutil.rmtree(dest)
    files = []
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        rel = path.relative_to(src)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / rel)
        files.append(rel.as_posix())
    return files


def file_entry(root: Path, rel: str) -> dict:
    data = (root / rel).read_bytes()
    return {"path": rel, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


# --- lm-eval ----------------------------------------------------------------------------------------

# The leaderboard-shaped groups; leaderboard_instruction_following has no aggregation in every
# lm-eval release (as upstream), so every version shows how it writes such a group.
LEADERBOARD_GROUPS = {
    "leaderboard_bbh": (["leaderboard_bbh_boolean_expressions", "leaderboard_bbh_date_understanding",
                         "leaderboard_bbh_navigate"], ["acc_norm"]),
    "leaderboard_gpqa": (["leaderboard_gpqa_diamond", "leaderboard_gpqa_extended", "leaderboard_gpqa_main"],
                         ["acc_norm"]),
    "leaderboard_math_hard": (["leaderboard_math_algebra_hard", "leaderboard_math_geometry_hard",
                               "leaderboard_math_prealgebra_hard"], ["exact_match"]),
    "leaderboard_musr": (["leaderboard_musr_murder_mysteries", "leaderboard_musr_object_placements",
                          "leaderboard_musr_team_allocation"], ["acc_norm"]),
    "leaderboard": (["leaderboard_mmlu_pro", "leaderboard_bbh", "leaderboard_gpqa", "leaderboard_math_hard",
                     "leaderboard_ifeval", "leaderboard_musr"],
                    ["acc", "acc_norm", "exact_match", "inst_level_loose_acc", "inst_level_strict_acc",
                     "prompt_level_loose_acc", "prompt_level_strict_acc"]),
    "leaderboard_instruction_following": (["leaderboard_ifeval"], []),
}


def group_style(lm_eval_dir: Path) -> str:
    """How this release's own leaderboard groups are written, read from its shipped YAML:
    ``aggregated`` (aggregate_metric_list, weight_by_size: true; 0.4.9+), ``unaggregated`` (no
    aggregate_metric_list: 0.4.3-0.4.8, the `{" ": " "}` era) or ``legacy`` (no leaderboard tasks
    and no aggregate_metric_list key at all: 0.4.2, where every group is aggregated)."""
    shipped = lm_eval_dir / "tasks" / "leaderboard" / "gpqa" / "_leaderboard_gpqa.yaml"
    if not shipped.is_file():
        return "legacy"
    return "aggregated" if "aggregate_metric_list" in shipped.read_text() else "unaggregated"


def write_group_yamls(tasks: Path, style: str) -> None:
    for group, (members, metrics) in LEADERBOARD_GROUPS.items():
        lines = [f"group: {group}", "task:"] + [f"  - {m}" for m in members]
        if style == "aggregated" and metrics:
            lines.append("aggregate_metric_list:")
            for metric in metrics:
                lines += [f"  - metric: {metric}", "    aggregation: mean", "    weight_by_size: true"]
        lines += ["metadata:", "  version: 1.0"] if style != "legacy" else []
        (tasks / f"_group_{group}.yaml").write_text("\n".join(lines) + "\n")


UPSTREAM_SCORE = {  # upstream SCORE leaf task -> (yaml path under tasks/score, fixture file)
    "score_prompt_robustness_mmlu_pro": ("mmlu_pro/score_prompt_robustness_mmlu_pro.yaml", "mmlu_pro.jsonl"),
    "score_option_order_robustness_mmlu_pro": ("mmlu_pro/score_option_order_robustness_mmlu_pro.yaml",
                                               "mmlu_pro.jsonl"),
    "prompt_robustness_agieval_aqua_rat": ("agi_eval/prompt_robustness_agieval_aqua_rat.yaml",
                                           "agieval_aqua_rat.jsonl"),
    "option_order_robustness_agieval_aqua_rat": ("agi_eval/option_order_robustness_agieval_aqua_rat.yaml",
                                                 "agieval_aqua_rat.jsonl"),
}
SCOREKIT_SCORE_TASKS = ["score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro",
                        "score_non_greedy_robustness_mmlu_pro", "score_prompt_robustness_agieval"]
# --limit counts expanded documents, question-major: 10 keeps one whole question per leaf task.
SCORE_LIMIT = "10"


HIDDEN_SUFFIX = ".corpus-hidden"


def builtins_shadow_include_path(lm_eval_dir: Path) -> bool:
    """True for releases whose task index lets a built-in task win over an --include_path task
    of the same name (0.4.2-0.4.9 merge ``{**new, **index}``; 0.4.10+ let the include path win)."""
    source = (lm_eval_dir / "tasks" / "__init__.py").read_text()
    return "task_index = {**tasks, **task_index}" in source


def hide_builtin_yamls(lm_eval_dir: Path) -> int:
    """Rename the built-in leaderboard and SCORE YAMLs in the throwaway venv so the index no longer
    sees them (it globs ``*.yaml``); their Python modules stay importable. Returns the count."""
    count = 0
    for folder in ("leaderboard", "score"):
        for path in sorted((lm_eval_dir / "tasks" / folder).rglob("*.yaml")):
            path.rename(path.with_name(path.name + HIDDEN_SUFFIX))
            count += 1
    return count


def _upstream_yaml(lm_eval_dir: Path, rel: str) -> Path:
    path = lm_eval_dir / "tasks" / "score" / rel
    hidden = path.with_name(path.name + HIDDEN_SUFFIX)
    return hidden if hidden.is_file() else path


def write_upstream_score_suite(out: Path, lm_eval_dir: Path) -> list[str]:
    """Overrides of upstream SCORE leaf tasks that keep their name and code but read local data."""
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for task, (rel, fixture) in UPSTREAM_SCORE.items():
        shipped = _upstream_yaml(lm_eval_dir, rel)
        data = out / "data" / fixture
        data.parent.mkdir(exist_ok=True)
        shutil.copyfile(SCORE_FIXTURES / fixture, data)
        (out / f"{task}.yaml").write_text(
            f"include: {shipped}\ntask: {task}\ndataset_path: json\ndataset_name: null\n"
            f"dataset_kwargs:\n  data_files:\n    test: {data}\n    validation: {data}\n"
            "generation_kwargs:\n  until: []\n  max_gen_toks: 32\n  do_sample: false\n")
        names.append(task)
    return names


def write_scorekit_score_suite(out: Path) -> None:
    """scorekit's shipped SCORE tasks (this checkout) on the fixture data, via the tests' helper."""
    for p in (str(REPO), str(REPO / "plugin")):
        if p not in sys.path:
            sys.path.insert(0, p)
    from tests.robustness.fixture_tasks import build_fixture_tasks

    build_fixture_tasks(out, max_gen_toks=32)


def lm_eval_runs(target: Target, venv: Venv, work: Path) -> list[dict]:
    """The runs of one lm-eval version: (name, argv, env extra, tasks) dicts, after writing tasks."""
    lm_dir = venv.site_file("lm_eval")
    style = group_style(lm_dir)  # before hide_builtin_yamls renames the YAML it reads
    hidden = hide_builtin_yamls(lm_dir) if builtins_shadow_include_path(lm_dir) else 0
    tasks = work / "tasks"
    shutil.copytree(LM_EVAL_TASKS, tasks, ignore=shutil.ignore_patterns("__pycache__"))
    write_group_yamls(tasks, style)
    list_metrics_break = (lm_dir / "scorers").is_dir()  # 0.5: see utils.ifeval_process_results_per_doc
    if list_metrics_break:
        ifeval = tasks / "leaderboard_ifeval.yaml"
        text = ifeval.read_text()
        lists = text.replace("task: leaderboard_ifeval", "task: corpus_ifeval_lists")
        (tasks / "corpus_ifeval_lists.yaml").write_text(lists)
        ifeval.write_text(text.replace("utils.ifeval_process_results", "utils.ifeval_process_results_per_doc")
                          .replace("!function utils.agg_inst_level_acc", "mean"))
    shutil.copytree(DATA, work / "data")
    metrics_py = lm_dir / "api" / "metrics.py"  # a package in 0.5
    if metrics_py.is_file() and 'hf_evaluate.load("exact_match")' in metrics_py.read_text():
        # 0.4.2 fetches this metric script from the hub at import time; see evaluate_exact_match.py
        (work / "exact_match").mkdir()
        shutil.copyfile(HERE / "evaluate_exact_match.py", work / "exact_match" / "exact_match.py")
    scripted = [str(venv.python), str(HERE / "scripted_lm.py"), "--model", "corpus-scripted"]
    lm_eval_cli = [str(venv.path / "bin" / "lm_eval")]
    common = ["--include_path", str(tasks), "--log_samples"]
    note = (f"{hidden} built-in leaderboard/SCORE YAMLs renamed *.yaml{HIDDEN_SUFFIX} in the venv: in this "
            "release built-in tasks shadow --include_path tasks of the same name") if hidden else None
    runs = [
        {"name": "leaderboard", "tasks": ["leaderboard"], "group_style": style, "note": note,
         "argv": scripted + ["--model_args", "pretrained=corpus-org/scripted-lm,dtype=float32",
                             "--tasks", "leaderboard",
                             *common, "--output_path", "out/leaderboard"]},
        {"name": "extras", "tasks": ["leaderboard_instruction_following", "corpus_aliases", "corpus_repeats",
                                     "corpus_repeats_filtered"],
         "argv": scripted + ["--model_args", "pretrained=/models/local/Scripted-LM-1B", "--tasks",
                             "leaderboard_instruction_following,corpus_aliases,corpus_repeats,corpus_repeats_filtered",
                             *common, "--output_path", "out/extras"]},
        # multiple choice only: 0.4.2's dummy model crashes on generate_until requests
        {"name": "dummy", "tasks": ["leaderboard_gpqa"],
         "argv": lm_eval_cli + ["--model", "dummy", "--tasks", "leaderboard_gpqa",
                                *common, "--output_path", "out/dummy"]},
    ]
    if list_metrics_break:
        runs[0]["note"] = ("leaderboard_ifeval here returns per-document instruction fractions: the "
                           "list-valued form (run ifeval-lists) fails in this release")
        runs.append({"name": "ifeval-lists", "tasks": ["corpus_ifeval_lists"],
                     "argv": scripted + ["--model_args", "pretrained=corpus-org/scripted-lm", "--tasks",
                                         "corpus_ifeval_lists", *common, "--output_path", "out/ifeval-lists"]})
    if (lm_dir / "tasks" / "score").is_dir():
        names = write_upstream_score_suite(work / "score_upstream", lm_dir)
        runs.append({"name": "score-upstream", "tasks": names,
                     "argv": scripted + ["--model_args", "base_model=corpus-org/base-lm", "--tasks", ",".join(names),
                                         "--include_path", str(work / "score_upstream"), "--limit", SCORE_LIMIT,
                                         "--log_samples", "--output_path", "out/score-upstream"]})
        write_scorekit_score_suite(work / "score_scorekit")
        runs.append({"name": "score-scorekit", "tasks": SCOREKIT_SCORE_TASKS, "needs_scorekit": True,
                     "argv": scripted + ["--model_args", "model=corpus-org/scripted-api", "--tasks",
                                         ",".join(SCOREKIT_SCORE_TASKS), "--include_path", str(work / "score_scorekit"),
                                         "--limit", SCORE_LIMIT, "--log_samples",
                                         "--output_path", "out/score-scorekit"]})
    return runs


# --- lighteval --------------------------------------------------------------------------------------

def lighteval_task_spec(version: str, task: str, fewshot: int = 0) -> str:
    """The CLI task string each release parses: suite|task|n|truncate (<0.11), suite|task|n
    (0.11), task|n (0.13, where suite|task|n is deprecated)."""
    major_minor = tuple(int(x) for x in version.split(".")[:2])
    if major_minor < (0, 11):
        return f"custom|{task}|{fewshot}|0"
    if major_minor < (0, 13):
        return f"custom|{task}|{fewshot}"
    return f"{task}|{fewshot}"


def lighteval_model_args(version: str, model: str) -> str:
    major_minor = tuple(int(x) for x in version.split(".")[:2])
    key = "pretrained" if major_minor < (0, 10) else "model_name"
    return f"{key}={model},batch_size=4"


LIGHTEVAL_CORPUS_TASKS = ["corpus_mc", "corpus_gen", "corpus_bbh:navigate", "corpus_bbh:boolean_expressions"]


def lighteval_runs(target: Target, venv: Venv, work: Path) -> list[dict]:
    # One tiny model, named two ways: relative "corpus-org/tiny-llama" (cwd is the run folder; it
    # reads like a hub id) and, for the SCORE run, its absolute path.
    model = work / "corpus-org" / "tiny-llama"
    data = work / "lighteval_data"
    for name, src in {"mc": "mmlu_pro_test.jsonl", "gen": "aliases_qa.jsonl", "navigate": "bbh_navigate.jsonl",
                      "boolean_expressions": "bbh_boolean_expressions.jsonl"}.items():
        (data / name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DATA / src, data / name / "test.jsonl")
    tasks_arg = ",".join(lighteval_task_spec(target.version, t) for t in LIGHTEVAL_CORPUS_TASKS)
    runs = [{
        "name": "accelerate", "tasks": LIGHTEVAL_CORPUS_TASKS, "needs_tiny_model": model,
        "env": {"CORPUS_LIGHTEVAL_DATA": str(data)},
        "argv": [str(venv.path / "bin" / "lighteval"), "accelerate",
                 lighteval_model_args(target.version, "corpus-org/tiny-llama"), tasks_arg,
                 "--custom-tasks", str(LIGHTEVAL_TASKS / "corpus_tasks.py"), "--output-dir", "out/accelerate",
                 "--save-details"],
    }]
    if target.version.startswith("0.13."):
        score_data = work / "score_data"
        for f in sorted(SCORE_FIXTURES.glob("*.jsonl")):
            (score_data / f.stem).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, score_data / f.stem / "test.jsonl")
        families = ["score_prompt_robustness_mmlu_pro", "score_option_order_robustness_mmlu_pro"]
        runs.append({
            "name": "score-scorekit", "tasks": families, "needs_tiny_model": model, "needs_scorekit": True,
            "env": {"SCOREKIT_SCORE_DATA_DIR": str(score_data), "SCOREKIT_SCORE_GENERATION_SIZE": "8"},
            "argv": [str(venv.path / "bin" / "lighteval"), "accelerate",
                     lighteval_model_args(target.version, str(model)),
                     ",".join(f"{f}|0" for f in families), "--custom-tasks", "scorekit.lighteval.score_suite",
                     "--output-dir", "out/score-scorekit", "--save-details"],
        })
    return runs


# Where each release keeps the module that downloads tinyBenchmarks.pkl when it is imported
# (0.11 and 0.13 import it whenever the task registry is built; 0.8/0.10 only for extended tasks).
TINY_BENCHMARKS_FILES = ("tasks/tasks/tiny_benchmarks.py", "tasks/extended/tiny_benchmarks/main.py")


def write_tiny_benchmarks_placeholder(venv: Venv) -> str | None:
    """Write scorekit's placeholder tinyBenchmarks.pkl next to that module (a throwaway venv only),
    so building the registry offline does not try the download. The module is found by path:
    importing it (or its package) would start the download."""
    sys.path.insert(0, str(REPO / "plugin"))
    from scorekit.lighteval.offline import PKL_NAME, PLACEHOLDER_BYTES

    package = venv.site_file("lighteval")
    for rel in TINY_BENCHMARKS_FILES:
        module = package / rel
        if module.is_file():
            (module.parent / PKL_NAME).write_bytes(PLACEHOLDER_BYTES)
            return str(module.parent / PKL_NAME).replace(str(venv.path), "$VENV")
    return None


def build_tiny_model(venv: Venv, model: Path, env: dict[str, str], log_file: Path) -> None:
    if (model / "config.json").is_file():
        return
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from tests.support.tiny_model import build_tiny_llama; "
            "build_tiny_llama(sys.argv[2])")
    code_rc, out = run([str(venv.python), "-c", code, str(REPO), str(model)], cwd=model.parent.parent, env=env,
                       log_file=log_file)
    if code_rc != 0:
        raise RuntimeError(f"building the tiny model failed:\n{tail(out)}")


# --- one version --------------------------------------------------------------------------------------

def build(target: Target, work_root: Path, uv: str | None, keep: bool) -> dict:
    started = time.time()
    work = work_root / target.key
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    dest = CORPUS / target.key
    venv = Venv(work / "venv", uv)
    entry: dict = {"harness": target.harness, "version": target.version, "python": sys.version.split()[0],
                   "installer": "uv" if uv else "pip"}
    log(f"{target.key}: creating venv")
    venv.create()
    requirements = REQUIREMENTS.get(target.key, [target.requirement]) + [TORCH]
    constraints = LIGHTEVAL_CONSTRAINTS if target.harness == "lighteval" else [TORCH]
    constraints = constraints + EXTRA_CONSTRAINTS.get(target.key, [])
    entry["install_command"] = requirements
    entry["constraints"] = constraints
    notes = {c: CONSTRAINT_NOTES[c] for c in EXTRA_CONSTRAINTS.get(target.key, [])}
    if notes:
        entry["constraint_notes"] = notes
    t0 = time.time()
    code, out = venv.install(requirements, constraints, work / "logs" / "install.log")
    entry["install_seconds"] = round(time.time() - t0, 1)
    entry["installed"] = code == 0
    if dest.exists():
        shutil.rmtree(dest)
    if code != 0:
        entry["install_error"] = tail(out, 12)
        entry["runs"] = []
        log(f"{target.key}: install FAILED\n{entry['install_error']}")
        entry["seconds"] = round(time.time() - started, 1)
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        return entry

    runs = lm_eval_runs(target, venv, work) if target.harness == "lm-eval" else lighteval_runs(target, venv, work)
    if any(r.get("needs_scorekit") for r in runs):
        # With the harness requirement again, so the resolver keeps the harness's own pins
        # (math-verify alone upgrades latex2sympy2_extended past lighteval 0.13's ==1.0.6).
        # scorekit requires lm-eval (its SCORE prompt templates ship inside it): a lighteval venv
        # gets the lm-eval line scorekit declares, as `pip install scorekit[lighteval]` would.
        deps = SCOREKIT_DEPS + (["lm-eval>=0.4.9,<0.5"] if target.harness == "lighteval" else [])
        code, out = venv.install(requirements + deps, constraints, work / "logs" / "install-scorekit-deps.log")
        entry["scorekit_deps"] = deps if code == 0 else f"FAILED: {tail(out, 8)}"
    if target.harness == "lighteval":
        entry["tiny_benchmarks_placeholder"] = write_tiny_benchmarks_placeholder(venv)
    freeze = venv.freeze()
    dest.mkdir(parents=True)
    (dest / "pip-freeze.txt").write_text(freeze)
    name = target.harness.replace("-", "[-_]")
    entry["freeze"] = next((line for line in freeze.splitlines() if re.match(rf"(?i){name}==", line)), None)

    entry["runs"] = []
    for spec in runs:
        run_started = time.time()
        extra = dict(spec.get("env", {}))
        if spec.get("needs_scorekit"):
            extra["PYTHONPATH"] = str(REPO / "plugin")
        env = offline_env(work, extra)
        record = {"name": spec["name"], "tasks": spec["tasks"],
                  "command": [a.replace(str(work), "$WORK").replace(str(REPO), "$REPO") for a in spec["argv"]]}
        for key in ("group_style", "note"):
            if spec.get(key):
                record[key] = spec[key]
        try:
            if spec.get("needs_tiny_model"):
                build_tiny_model(venv, spec["needs_tiny_model"], env, work / "logs" / "tiny-model.log")
            code, out = run(spec["argv"], cwd=work, env=env, log_file=work / "logs" / f"{spec['name']}.log")
        except RuntimeError as exc:
            code, out = 1, str(exc)
        record["seconds"] = round(time.time() - run_started, 1)
        record["ok"] = code == 0
        out_dir = work / "out" / spec["name"]
        files = copy_outputs(out_dir, dest / spec["name"]) if out_dir.is_dir() else []
        if code != 0:
            record["error"] = tail(out, 25)
            log(f"{target.key}/{spec['name']}: FAILED (exit {code})\n{record['error']}")
        else:
            log(f"{target.key}/{spec['name']}: ok, {len(files)} files, {record['seconds']}s")
        record["files"] = [file_entry(dest, f"{spec['name']}/{f}") for f in files]
        entry["runs"].append(record)
    entry["seconds"] = round(time.time() - started, 1)
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/scorekit-corpus"),
                        help="folder for the throwaway venvs and runs (outside the repo)")
    parser.add_argument("--only", action="append", default=[],
                        help="build only this target, e.g. lm-eval==0.4.13 (repeatable)")
    parser.add_argument("--uv", default=None, help="path of a uv binary: install with uv instead of pip")
    parser.add_argument("--keep", action="store_true", help="keep each venv and run folder")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    if work == REPO or REPO in work.parents:
        parser.error("--work must be outside the repository")
    targets = [t for t in TARGETS if not args.only or t.requirement in args.only]
    if not targets:
        parser.error(f"no target matches {args.only}; known: {[t.requirement for t in TARGETS]}")
    index_path = CORPUS / "index.json"
    for target in targets:
        entry = build(target, work, args.uv, args.keep)
        index = json.loads(index_path.read_text()) if index_path.is_file() else {"versions": []}
        others = [e for e in index["versions"] if (e["harness"], e["version"]) != (target.harness, target.version)]
        order = {t.key: i for i, t in enumerate(TARGETS)}
        index["versions"] = sorted(others + [entry], key=lambda e: order.get(f"{e['harness']}-{e['version']}", 99))
        index["note"] = ("Written by tests/conformance/build_corpus.py; paths are relative to this folder. "
                         "Commands show the run folder as $WORK and the repository as $REPO.")
        CORPUS.mkdir(parents=True, exist_ok=True)
        index_path.write_text(json.dumps(index, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
