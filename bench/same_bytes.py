"""Run a fixed set of scorekit commands on the test corpus and save every output, to check
that a refactor changes no byte.

    python bench/same_bytes.py OUT [--inputs DIR]

Each command's stdout, stderr and exit code go to ``OUT/<name>.out`` / ``.err`` / ``.rc``; files
written with ``--output``/``--output-dir`` go under ``OUT/<name>.files/``. Every ``--help`` is
saved as well. The inputs are tests/conformance/corpus (real runs of lm-eval 0.4.2-0.5.0.dev1
and lighteval 0.8.1-0.13.0), configs/ranking_sample.txt, and Inspect logs written once into
``--inputs`` (default ``OUT/../same_bytes_inputs``) by inspect_ai's mockllm
(tests/support/inspect_runs.py); they are reused when present, because an Inspect log carries
its creation time. Compare two runs with ``diff -r BEFORE AFTER``.

The commands run with the ``scorekit`` of the current ``python`` (set ``PYTHONPATH`` to the
checkout to test). The commands run in the repository root; in what they print and write, the
output folder, the inputs folder (absolute or relative) and the checkout's path (this script's
and the tested package's, whose configs/ the commands read) are replaced by ``{files}``,
``{inputs}`` and ``{repo}``, so that checkouts at different paths (a worktree, a fresh clone)
give the same bytes. (A path long enough to wrap a table's line would still show.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
C = "tests/conformance/corpus"
FORMATS = ("table", "markdown", "csv", "json", "html", "latex")


def commands(inp: str) -> dict[str, list[str]]:
    strong, weak, epochs = f"{inp}/strong", f"{inp}/weak", f"{inp}/strong_epochs"
    out: dict[str, list[str]] = {}
    for fmt in FORMATS:
        out[f"leaderboard_lm_eval_{fmt}"] = ["leaderboard", f"{C}/lm-eval-0.4.13/leaderboard", "--format", fmt]
        out[f"robustness_lm_eval_{fmt}"] = ["robustness", f"{C}/lm-eval-0.4.13/score-upstream",
                                            f"{C}/lm-eval-0.4.13/score-scorekit", "--format", fmt]
        out[f"compare_inspect_{fmt}"] = ["compare", strong, weak, "--format", fmt]
        out[f"rank_{fmt}"] = ["rank", "configs/ranking_sample.txt", "--format", fmt]
    for fmt in ("table", "json"):
        out[f"scorecard_{fmt}"] = ["scorecard", f"{C}/lm-eval-0.4.13/leaderboard", f"{C}/lighteval-0.13.0/accelerate",
                                   "--format", fmt]
        out[f"scorecard_inspect_{fmt}"] = ["scorecard", strong, weak, "--format", fmt]
        out[f"leaderboard_lighteval_{fmt}"] = ["leaderboard", f"{C}/lighteval-0.13.0/accelerate", "--format", fmt]
        out[f"leaderboard_every_version_{fmt}"] = ["leaderboard", C, "--format", fmt]
        out[f"robustness_lighteval_{fmt}"] = ["robustness", f"{C}/lighteval-0.13.0/score-scorekit", "--format", fmt]
        out[f"robustness_every_version_{fmt}"] = ["robustness", C, "--format", fmt]
        out[f"compare_lm_eval_{fmt}"] = ["compare", f"{C}/lm-eval-0.4.13/extras", f"{C}/lm-eval-0.4.11/extras",
                                         "--format", fmt]
        out[f"compare_lighteval_{fmt}"] = ["compare", f"{C}/lighteval-0.13.0/accelerate",
                                           f"{C}/lighteval-0.11.0/accelerate", "--format", fmt]
        out[f"compare_score_{fmt}"] = ["compare", f"{C}/lm-eval-0.4.13/score-upstream",
                                       f"{C}/lm-eval-0.4.11/score-upstream", "--format", fmt]
        out[f"compare_epochs_values_{fmt}"] = ["compare", epochs, "--values", "--format", fmt]
    for name, run in {"lm_eval": f"{C}/lm-eval-0.4.13/extras", "lm_eval_05": f"{C}/lm-eval-0.5.0.dev1/extras",
                      "lighteval": f"{C}/lighteval-0.13.0/accelerate", "inspect": strong, "epochs": epochs,
                      "score": f"{C}/lm-eval-0.4.13/score-upstream", "results_only": f"{C}/lm-eval-0.4.13/leaderboard"}.items():
        out[f"export_{name}"] = ["export", run, "--retrieved-timestamp", "0"]
    out["export_dir"] = ["export", f"{C}/lm-eval-0.4.13/extras", strong, "--retrieved-timestamp", "0",
                         "--output-dir", "{files}"]
    out["robustness_html_file"] = ["robustness", f"{C}/lm-eval-0.4.13/score-upstream", "--format", "html",
                                   "--output", "{files}/report.html"]
    # errors: one line, exit 2
    out["error_compare_results_only"] = ["compare", f"{C}/lm-eval-0.4.13/leaderboard", strong]
    out["error_robustness_inspect_file"] = ["robustness", next(str(p) for p in sorted(Path(strong).iterdir()))]
    out["error_leaderboard_samples"] = ["leaderboard", f"{C}/lm-eval-0.4.13/dummy"]
    return out


def make_inputs(inp: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.support.inspect_runs import inspect_run

    for name, model, right, fmt, epochs, n in (
        ("strong", "acme/strong", lambda i, k: i % 5 != 0, "json", 1, 40),
        ("weak", "acme/weak", lambda i, k: i % 3 != 0, "eval", 1, 40),
        ("strong_epochs", "acme/strong", lambda i, k: k < min(i % 5, 4), "eval", 4, 30),
    ):
        if not (inp / name).is_dir():
            inspect_run(inp / name, model, right, n=n, log_format=fmt, epochs=epochs)


def placeheld(data: bytes, marks: tuple[tuple[str, str], ...]) -> bytes:
    """``data`` with each path of ``marks`` replaced by its placeholder, in order."""
    for path, mark in marks:
        data = data.replace(path.encode(), mark.encode())
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--inputs")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    inp = Path(args.inputs).resolve() if args.inputs else out.parent / "same_bytes_inputs"
    make_inputs(inp)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    os.chdir(ROOT)
    rel = os.path.relpath(inp, ROOT)
    where = subprocess.run([sys.executable, "-c", "import scorekit; print(scorekit.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    package_checkout = str(Path(where).parents[2])  # configs/ and tasks/ are found beside plugin/
    helps = {f"help_{c}": [c, "--help"] for c in ("leaderboard", "rank", "scorecard", "robustness", "variants",
                                                   "compare", "export", "plan", "lighteval-offline")}
    for name, argv in {**commands(rel), "help": ["--help"], **helps}.items():
        files = out / f"{name}.files"
        # longest first: one path can hold another (the checkout the inputs; the relative path
        # "../../work/..." the absolute one; the absolute path a relative one inside the checkout)
        marks = tuple(sorted(((str(files), "{files}"), (str(inp), "{inputs}"), (str(ROOT), "{repo}"),
                              (package_checkout, "{repo}"), (rel, "{inputs}")), key=lambda m: -len(m[0])))
        argv = [a.replace("{files}", str(files)) for a in argv]
        if any(str(files) in a for a in argv):
            files.mkdir()
        env = {**os.environ, "COLUMNS": "100", "SOURCE_DATE_EPOCH": "0"}
        done = subprocess.run([sys.executable, "-m", "scorekit", *argv], capture_output=True, env=env)
        (out / f"{name}.out").write_bytes(placeheld(done.stdout, marks))
        (out / f"{name}.err").write_bytes(placeheld(done.stderr, marks))
        for written in sorted(files.rglob("*")) if files.is_dir() else ():
            if written.is_file():
                written.write_bytes(placeheld(written.read_bytes(), marks))
        (out / f"{name}.rc").write_text(f"{done.returncode}\n")
        print(f"{done.returncode} {name}")


if __name__ == "__main__":
    main()
