"""Real test questions of MMLU-Pro, AGIEval and MATH, rebuilt from their public repositories.

The hub datasets scorekit's SCORE tasks read (``TIGER-Lab/MMLU-Pro``, ``hails/agieval-<subset>``,
``EleutherAI/hendrycks_math``) are not reachable from every machine; the same questions are in
public git repositories. This script reads them from local clones (plain or bare) at pinned
commits and writes them in the hub datasets' row formats:

=========  ===================================================================================
MMLU-Pro   ``TIGER-AI-Lab/MMLU-Pro`` (Apache-2.0; the dataset MIT), ``eval_results/`` archive of
           jamba-1.5-large: all 12,032 test questions with one model's answers. The archives
           hold three revisions of the test set; this one is the latest (the Gemini 1.5 002
           archives agree with it on every question they share, checked by ``sources``).
           Rows keep the hub columns ``question_id, question, options, answer, answer_index,
           cot_content, category, src`` in question_id order; the model's answer is dropped.
AGIEval    ``ruixiangcui/AGIEval`` ``data/v1/<subset>.jsonl`` (passage, question, options,
           label; each subset under its original dataset's license, listed in
           ``data/v1/LICENSE``: AQuA-RAT Apache-2.0, SAT and LSAT MIT, LogiQA CC BY-NC-SA 4.0).
           hails/agieval rows are AGIEval's own zero-shot construction:
           ``query = passage + "Q: " + question + " Answer Choices: " + " ".join(options) +
           "\\nA: Among A through <last letter>, the answer is"``, ``choices = options``,
           ``gold = [label index]``.
MATH       ``microsoft/ToRA`` (MIT) ``src/data/math/test.jsonl``: the 5,000 MATH test problems
           (MATH: Hendrycks et al., MIT) with the hub columns ``problem, level, type,
           solution``; split by ``type`` into EleutherAI/hendrycks_math's subject configs.
           hendrycks/math itself only links to a download.
=========  ===================================================================================

Commands (each writes only under ``--out`` and says what it wrote):

``sources``  every test question in ``SCOREKIT_SCORE_DATA_DIR``'s layout
    (``mmlu_pro/test.jsonl``, ``agieval_<subset>/test.jsonl``, ``math_<subject>/test.jsonl``)
    plus ``provenance.json``::

        python bench/real_questions.py sources --mmlu-pro GIT --agieval GIT --math GIT --out DIR

``bundle``  the demo's sample (``plugin/scorekit/demo/data``): the rows :func:`demo_rows`
    chooses, ``provenance.json`` naming each row's source; ``--check`` compares with the
    folder instead of writing (exit 1 on a difference)::

        python bench/real_questions.py bundle --sources DIR --out plugin/scorekit/demo/data [--check]

``sample``  a larger MMLU-Pro sample: ``--questions N`` drawn at random (``--seed``) within
    each category in proportion to its size, in question_id order::

        python bench/real_questions.py sample --sources DIR --questions 300 --seed 0 --out DIR
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

MMLU_PRO = {"repo": "TIGER-AI-Lab/MMLU-Pro", "commit": "f418b116db00b065c2aea046518d8fcf74d39872",
            "path": "eval_results/model_outputs_jamba-1.5-large_5shots.zip",
            "license": "MIT (the dataset, per its Hugging Face card); Apache-2.0 (the repository)"}
# archives of the same revision, compared question by question with MMLU_PRO's
MMLU_PRO_SAME_REVISION = ("eval_results/model_outputs_gemini-1.5-pro-002_5shots.zip",
                          "eval_results/model_outputs_gemini-1.5-flash-002_5shots.zip")
MMLU_PRO_COLUMNS = ("question_id", "question", "options", "answer", "answer_index", "cot_content", "category", "src")
AGIEVAL = {"repo": "ruixiangcui/AGIEval", "commit": "5c77d073fda993f1652eaae3cf5d04cc5fd21d40",
           "path": "data/v1/{name}.jsonl"}
# each subset keeps its original dataset's license (AGIEval's data/v1/LICENSE)
AGIEVAL_LICENSES = {
    "aqua_rat": "Apache-2.0 (AQuA-RAT, Copyright 2017 Google Inc.; AGIEval data/v1/LICENSE)",
    "logiqa_en": "CC BY-NC-SA 4.0 (LogiQA; AGIEval data/v1/LICENSE)",
    **{s: "MIT (AR-LSAT, Copyright (c) 2022 Wanjun Zhong, (c) 2023 Microsoft Corporation; AGIEval data/v1/LICENSE)"
       for s in ("lsat_ar", "lsat_lr", "lsat_rc")},
    **{s: "MIT (SAT, Copyright (c) Microsoft Corporation; AGIEval data/v1/LICENSE)" for s in ("sat_en", "sat_math")},
}
AGIEVAL_SUBSETS = tuple(AGIEVAL_LICENSES)
MATH = {"repo": "microsoft/ToRA", "commit": "213c1c995038c73fab10343814df7a42f990f026",
        "path": "src/data/math/test.jsonl",
        "license": "MIT (MATH, Copyright (c) 2021 Dan Hendrycks); MIT (the repository, Copyright (c) Microsoft "
                   "Corporation)"}
MATH_SUBJECTS = {"Algebra": "algebra", "Counting & Probability": "counting_and_probability", "Geometry": "geometry",
                 "Intermediate Algebra": "intermediate_algebra", "Number Theory": "number_theory",
                 "Prealgebra": "prealgebra", "Precalculus": "precalculus"}
MATH_COLUMNS = ("problem", "level", "type", "solution")

# The demo's sample: file stem -> questions. MMLU-Pro rows have 4 options (607 of the 12,032 do),
# so option order asks 4 positions per question; the others keep their real option counts.
DEMO_COUNTS = {"mmlu_pro": 10, "agieval_aqua_rat": 5, "agieval_sat_math": 5,
               "math_algebra": 4, "math_prealgebra": 3, "math_number_theory": 3}


class SourceError(Exception):
    """A source repository lacks the pinned commit or file, or its rows are not as expected."""


def git_blob(git_dir: Path, commit: str, path: str) -> bytes:
    """The bytes of ``path`` at ``commit`` in the clone ``git_dir`` (plain or bare)."""
    proc = subprocess.run(["git", "-C", str(git_dir), "cat-file", "blob", f"{commit}:{path}"], capture_output=True)
    if proc.returncode != 0:
        raise SourceError(f"{git_dir}: cannot read {commit[:12]}:{path}: {proc.stderr.decode().strip()}")
    if proc.stdout.startswith(b"version https://git-lfs"):
        raise SourceError(f"{git_dir}: {path} is a Git LFS pointer, not the file")
    return proc.stdout


def _zip_json(blob: bytes, where: str) -> list[dict]:
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        (member,) = [n for n in archive.namelist() if n.endswith(".json")]
        rows = json.loads(archive.read(member))
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise SourceError(f"{where}: not a list of question objects")
    return rows


def mmlu_pro_rows(git_dir: Path) -> list[dict]:
    """All MMLU-Pro test rows in the hub's columns, question_id order; checked against the
    archives of the same revision (:data:`MMLU_PRO_SAME_REVISION`)."""
    rows = _zip_json(git_blob(git_dir, MMLU_PRO["commit"], MMLU_PRO["path"]), MMLU_PRO["path"])
    out = sorted(({c: r[c] for c in MMLU_PRO_COLUMNS} for r in rows), key=lambda r: r["question_id"])
    if len(out) != 12032 or len({r["question_id"] for r in out}) != 12032:
        raise SourceError(f"{MMLU_PRO['path']}: expected 12,032 distinct questions, found {len(out)}")
    by_id = {r["question_id"]: r for r in out}
    for path in MMLU_PRO_SAME_REVISION:
        for r in _zip_json(git_blob(git_dir, MMLU_PRO["commit"], path), path):
            if any(r[c] != by_id[r["question_id"]][c] for c in MMLU_PRO_COLUMNS):
                raise SourceError(f"{path}: question {r['question_id']} differs from {MMLU_PRO['path']}")
    return out


def answer_mismatches(rows: list[dict]) -> list[int]:
    """question_ids whose ``answer`` letter is not the letter of ``answer_index`` (kept as they
    are: SCORE grades by ``answer_index``)."""
    return [r["question_id"] for r in rows if "ABCDEFGHIJ"[r["answer_index"]] != r["answer"]]


def agieval_row(row: dict) -> dict:
    """One AGIEval v1 row as a hails/agieval row (AGIEval's zero-shot query construction)."""
    options = list(row["options"])
    count = len(options) if len(options) != 1 else 5  # AGIEval's own rule for a one-option row
    query = ((row.get("passage") or "") + "Q: " + row["question"] + " Answer Choices: " + " ".join(options)
             + "\nA: Among A through " + "ABCDEFG"[count - 1] + ", the answer is")
    return {"query": query, "choices": options, "gold": ["ABCDEFG".index(row["label"])]}


def agieval_rows(git_dir: Path, subset: str) -> tuple[str, list[dict]]:
    path = AGIEVAL["path"].format(name=subset.replace("_", "-"))
    text = git_blob(git_dir, AGIEVAL["commit"], path).decode("utf-8")
    return path, [agieval_row(json.loads(line)) for line in text.split("\n") if line.strip()]


def math_rows(git_dir: Path) -> dict[str, list[dict]]:
    """MATH test problems per subject config, in the source's order."""
    text = git_blob(git_dir, MATH["commit"], MATH["path"]).decode("utf-8")
    out: dict[str, list[dict]] = {s: [] for s in MATH_SUBJECTS.values()}
    for line in text.split("\n"):
        if line.strip():
            row = json.loads(line)
            out[MATH_SUBJECTS[row["type"]]].append({c: row[c] for c in MATH_COLUMNS})
    if sum(map(len, out.values())) != 5000:
        raise SourceError(f"{MATH['path']}: expected the 5,000 MATH test problems")
    return out


def _write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in rows]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def _source(info: dict, path: str, **extra: Any) -> dict:
    return {"repo": info["repo"], "commit": info["commit"], "path": path, "license": info["license"], **extra}


def write_sources(mmlu_pro: Path, agieval: Path, math: Path, out: Path) -> dict[str, dict]:
    """Every test question, in ``SCOREKIT_SCORE_DATA_DIR``'s layout; returns the provenance."""
    provenance: dict[str, dict] = {}
    rows = mmlu_pro_rows(mmlu_pro)
    provenance["mmlu_pro/test.jsonl"] = _source(MMLU_PRO, MMLU_PRO["path"], rows=_write_jsonl(
        out / "mmlu_pro" / "test.jsonl", rows), answer_letter_differs_from_answer_index=answer_mismatches(rows))
    for subset in AGIEVAL_SUBSETS:
        path, rows = agieval_rows(agieval, subset)
        n = _write_jsonl(out / f"agieval_{subset}" / "test.jsonl", rows)
        provenance[f"agieval_{subset}/test.jsonl"] = _source({**AGIEVAL, "license": AGIEVAL_LICENSES[subset]}, path, rows=n)
    for subject, rows in math_rows(math).items():
        provenance[f"math_{subject}/test.jsonl"] = _source(MATH, MATH["path"], type_filter=subject, rows=_write_jsonl(
            out / f"math_{subject}" / "test.jsonl", rows))
    (out / "provenance.json").write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")
    return provenance


def read_source(sources: Path, stem: str) -> list[dict]:
    path = sources / stem / "test.jsonl"
    if not path.is_file():
        raise SourceError(f"{path}: not found (run the sources command first)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def _length(stem: str, row: dict) -> int:
    """Characters a question adds to a prompt: question and options, AGIEval's query, MATH's problem."""
    if stem == "mmlu_pro":
        return len(row["question"]) + sum(len(o) for o in row["options"])
    return len(row["query"]) if stem.startswith("agieval") else len(row["problem"])


def demo_rows(stem: str, rows: list[dict], count: int) -> list[int]:
    """Row numbers of the demo's sample of one file, in file order.

    Short questions keep the demo fast (its prompts read about as many tokens as its earlier
    made-up questions did), so the sample is the shortest real questions, not a random one:

    - MMLU-Pro: 4-option questions; per category the shortest (characters of the question and
      its options, then the lower question_id); of those the ``count`` shortest;
    - AGIEval, MATH: the ``count`` shortest (query or problem characters, then row order)
      whose answer a SCORE task can grade (MATH: a ``\\boxed{}`` in the solution).
    """
    if stem == "mmlu_pro":
        best: dict[str, int] = {}
        for i, r in enumerate(rows):
            if len(r["options"]) == 4:
                key = (_length(stem, r), r["question_id"])
                if r["category"] not in best or key < (_length(stem, rows[best[r["category"]]]),
                                                       rows[best[r["category"]]]["question_id"]):
                    best[r["category"]] = i
        chosen = sorted(best.values(), key=lambda i: (_length(stem, rows[i]), rows[i]["question_id"]))[:count]
    else:
        usable = [i for i, r in enumerate(rows) if not stem.startswith("math") or "\\boxed" in r["solution"]]
        chosen = sorted(usable, key=lambda i: (_length(stem, rows[i]), i))[:count]
    if len(chosen) < count:
        raise SourceError(f"{stem}: only {len(chosen)} rows fit the demo's rule, {count} wanted")
    return sorted(chosen)


def build_bundle(sources: Path) -> tuple[dict[str, list[dict]], dict[str, dict]]:
    """The demo's files (``{file name: rows}``) and their provenance, from a ``sources`` folder."""
    known = json.loads((sources / "provenance.json").read_text(encoding="utf-8"))
    files: dict[str, list[dict]] = {}
    provenance: dict[str, dict] = {}
    for stem, count in DEMO_COUNTS.items():
        rows = read_source(sources, stem)
        picked = demo_rows(stem, rows, count)
        files[f"{stem}.jsonl"] = [rows[i] for i in picked]
        origin = {k: known[f"{stem}/test.jsonl"][k] for k in ("repo", "commit", "path", "license", "type_filter")
                  if k in known[f"{stem}/test.jsonl"]}
        if stem == "mmlu_pro":
            origin["question_ids"] = [rows[i]["question_id"] for i in picked]
        else:  # the row numbers within the source file (MATH: within the subject's problems)
            origin["source_rows"] = picked
        provenance[f"{stem}.jsonl"] = origin
    return files, provenance


def stratified_sample(rows: list[dict], n: int, seed: int, key: str = "category") -> list[dict]:
    """``n`` rows drawn without replacement within each ``key`` group in proportion to its size
    (largest remainders get the rounding), in the input order."""
    import numpy as np

    if not 0 < n <= len(rows):
        raise SourceError(f"cannot draw {n} of {len(rows)} rows")
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[r[key]].append(i)
    names = sorted(groups)
    exact = [n * len(groups[g]) / len(rows) for g in names]
    take = [int(x) for x in exact]
    for j in sorted(range(len(names)), key=lambda j: (-(exact[j] - take[j]), names[j]))[: n - sum(take)]:
        take[j] += 1
    rng = np.random.default_rng(seed)
    picked = [int(i) for g, k in zip(names, take) for i in rng.choice(groups[g], size=k, replace=False)]
    return [rows[i] for i in sorted(picked)]


def _files_text(files: dict[str, list[dict]], provenance: dict[str, dict]) -> dict[str, str]:
    text = {name: "".join(json.dumps(r) + "\n" for r in rows) for name, rows in files.items()}
    text["provenance.json"] = json.dumps(provenance, indent=2) + "\n"
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sources", help="every test question in the hub formats")
    s.add_argument("--mmlu-pro", type=Path, required=True, help="clone of TIGER-AI-Lab/MMLU-Pro")
    s.add_argument("--agieval", type=Path, required=True, help="clone of ruixiangcui/AGIEval")
    s.add_argument("--math", type=Path, required=True, help="clone of microsoft/ToRA")
    s.add_argument("--out", type=Path, required=True)
    b = sub.add_parser("bundle", help="the demo's sample")
    b.add_argument("--sources", type=Path, required=True)
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--check", action="store_true", help="compare with --out instead of writing")
    m = sub.add_parser("sample", help="a larger MMLU-Pro sample, stratified by category")
    m.add_argument("--sources", type=Path, required=True)
    m.add_argument("--questions", type=int, default=300)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        if args.command == "sources":
            for name, info in write_sources(args.mmlu_pro, args.agieval, args.math, args.out).items():
                print(f"{args.out / name}: {info['rows']} rows from {info['repo']}@{info['commit'][:12]}:{info['path']}")
        elif args.command == "bundle":
            text = _files_text(*build_bundle(args.sources))
            if args.check:
                differ = [n for n, t in text.items() if not (args.out / n).is_file()
                          or (args.out / n).read_text(encoding="utf-8") != t]
                print("bundle matches the sources" if not differ else f"differs from the sources: {', '.join(differ)}")
                return 1 if differ else 0
            args.out.mkdir(parents=True, exist_ok=True)
            for name, t in text.items():
                (args.out / name).write_text(t, encoding="utf-8")
                print(f"wrote {args.out / name}")
        else:
            rows = stratified_sample(read_source(args.sources, "mmlu_pro"), args.questions, args.seed)
            _write_jsonl(args.out / "mmlu_pro" / "test.jsonl", rows)
            known = json.loads((args.sources / "provenance.json").read_text(encoding="utf-8"))["mmlu_pro/test.jsonl"]
            sample = f"{args.questions} questions, stratified by category, seed {args.seed}"
            provenance = {"mmlu_pro/test.jsonl": {**{k: known[k] for k in ("repo", "commit", "path", "license")},
                                                  "sample": sample, "question_ids": [r["question_id"] for r in rows]}}
            (args.out / "provenance.json").write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")
            print(f"wrote {args.out / 'mmlu_pro' / 'test.jsonl'}: {len(rows)} questions, "
                  f"{len({r['category'] for r in rows})} categories")
    except SourceError as exc:
        print(f"real_questions: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
