"""bench/real_questions.py: the demo's questions rebuilt from git clones of the source repositories.

The clones here are small git repositories written by the test with the sources' real layouts
(an MMLU-Pro ``eval_results`` zip holding a JSON list of rows with a model's answers, AGIEval v1
JSONL rows with passage/question/options/label, ToRA's MATH test JSONL); the script reads them at
their commits exactly as it reads the real clones at the pinned ones.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from bench import real_questions as rq

CATEGORIES = ["biology", "business", "chemistry", "computer science", "economics", "engineering", "health",
              "history", "law", "math", "other", "philosophy", "physics", "psychology"]


def _git_repo(root: Path, files: dict[str, bytes]) -> str:
    """A git repository at ``root`` holding ``files``; returns the commit."""
    root.mkdir(parents=True)
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "data"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def _mmlu_pro_rows() -> list[dict]:
    rows = []
    for qid in range(12032, 0, -1):  # the archives are in run order, not question_id order
        n = 4 if qid % 15 == 0 else 10
        rows.append({"question_id": qid, "question": f"Question {qid}?" + " long" * (qid % 7),
                     "options": [f"o{qid}-{i}" for i in range(n)], "answer": "ABCDEFGHIJ"[qid % n],
                     "answer_index": qid % n, "cot_content": "", "category": CATEGORIES[qid % 14],
                     "src": f"ori_mmlu-{CATEGORIES[qid % 14]}", "pred": "A", "model_outputs": "The answer is (A)."})
    return rows


def _zip(rows: list[dict], name: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, json.dumps(rows))
    return buffer.getvalue()


AGIEVAL_ROWS = {
    "aqua-rat": [{"passage": None, "question": f"What is {i} + {i}?" + " please" * (i % 3),
                  "options": [f"({x}){i + j}" for j, x in enumerate("ABCDE")], "label": "ABCDE"[i % 5],
                  "answer": None, "other": {"solution": "..."}} for i in range(8)],
    "lsat-ar": [{"passage": "Six people sit in a row.", "question": "Who sits first?",
                 "options": ["(A)Ann", "(B)Bo", "(C)Cy", "(D)Di", "(E)Ed"], "label": "C", "other": None},
                {"passage": None, "question": "A lone option?", "options": ["(A)only"], "label": "A", "other": None}],
}


def _math_rows() -> list[dict]:
    kinds = list(rq.MATH_SUBJECTS)
    return [{"problem": f"Compute {i}." + " x" * (i % 5), "level": f"Level {i % 5 + 1}", "type": kinds[i % 7],
             "solution": f"It is $\\boxed{{{i}}}$.", "idx": i} for i in range(5000)]


@pytest.fixture(scope="module")
def clones(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clones")
    rows = _mmlu_pro_rows()
    mmlu = {rq.MMLU_PRO["path"]: _zip(rows, "model_outputs_jamba.json")}
    for path in rq.MMLU_PRO_SAME_REVISION:  # the same revision, fewer questions (as the Gemini archives)
        mmlu[path] = _zip(rows[:-20], "gemini.json")
    agieval = {f"data/v1/{s.replace('_', '-')}.jsonl": b"" for s in rq.AGIEVAL_SUBSETS}
    for name, subset_rows in AGIEVAL_ROWS.items():
        agieval[f"data/v1/{name}.jsonl"] = "".join(json.dumps(r) + "\n" for r in subset_rows).encode()
    agieval["data/v1/sat-math.jsonl"] = agieval["data/v1/aqua-rat.jsonl"]
    math = {rq.MATH["path"]: "".join(json.dumps(r) + "\n" for r in _math_rows()).encode()}
    return {name: (tmp / name, _git_repo(tmp / name, files)) for name, files in
            (("mmlu", mmlu), ("agieval", agieval), ("math", math))}


@pytest.fixture
def pinned(clones, monkeypatch):
    """The script's pinned commits pointed at the test clones' commits."""
    for info, name in ((rq.MMLU_PRO, "mmlu"), (rq.AGIEVAL, "agieval"), (rq.MATH, "math")):
        monkeypatch.setitem(info, "commit", clones[name][1])
    return {name: path for name, (path, _) in clones.items()}


def _sources(pinned, out: Path) -> int:
    return rq.main(["sources", "--mmlu-pro", str(pinned["mmlu"]), "--agieval", str(pinned["agieval"]),
                    "--math", str(pinned["math"]), "--out", str(out)])


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().split("\n") if line]


def test_sources_are_written_in_the_hub_formats(pinned, tmp_path):
    assert _sources(pinned, tmp_path) == 0
    mmlu = _read(tmp_path / "mmlu_pro" / "test.jsonl")
    assert [r["question_id"] for r in mmlu] == list(range(1, 12033))
    assert list(mmlu[0]) == list(rq.MMLU_PRO_COLUMNS)  # the model's answer is not kept
    lsat = _read(tmp_path / "agieval_lsat_ar" / "test.jsonl")
    assert lsat[0] == {"query": "Six people sit in a row.Q: Who sits first? Answer Choices: (A)Ann (B)Bo (C)Cy (D)Di "
                                "(E)Ed\nA: Among A through E, the answer is",
                       "choices": ["(A)Ann", "(B)Bo", "(C)Cy", "(D)Di", "(E)Ed"], "gold": [2]}
    assert lsat[1]["query"].endswith("Answer Choices: (A)only\nA: Among A through E, the answer is")
    algebra = _read(tmp_path / "math_algebra" / "test.jsonl")
    assert len(algebra) == 715 and list(algebra[0]) == list(rq.MATH_COLUMNS) and algebra[0]["type"] == "Algebra"
    provenance = json.loads((tmp_path / "provenance.json").read_text())
    assert provenance["agieval_aqua_rat/test.jsonl"]["license"].startswith("Apache-2.0")
    assert provenance["math_number_theory/test.jsonl"]["type_filter"] == "number_theory"


def test_bundle_takes_the_shortest_questions_and_check_compares(pinned, tmp_path, capsys):
    _sources(pinned, tmp_path / "src")
    out = tmp_path / "bundle"
    assert rq.main(["bundle", "--sources", str(tmp_path / "src"), "--out", str(out)]) == 0
    mmlu = _read(out / "mmlu_pro.jsonl")
    # the rule, written out: 4-option questions by length (question and options), then
    # question_id; the first of each category; the 10 shortest of those
    def length(r):
        return len(r["question"]) + sum(map(len, r["options"]))

    first: dict[str, dict] = {}
    for r in sorted((r for r in _read(tmp_path / "src" / "mmlu_pro" / "test.jsonl") if len(r["options"]) == 4),
                    key=lambda r: (length(r), r["question_id"])):
        first.setdefault(r["category"], r)
    expected = sorted(sorted(first.values(), key=lambda r: (length(r), r["question_id"]))[:10],
                      key=lambda r: r["question_id"])
    assert mmlu == expected and len({r["category"] for r in mmlu}) == 10
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["mmlu_pro.jsonl"]["question_ids"] == [r["question_id"] for r in mmlu]
    assert provenance["mmlu_pro.jsonl"]["repo"] == "TIGER-AI-Lab/MMLU-Pro"
    # AQuA-RAT: no " please" (rows 0, 3, 6), then one (1, 4); row 6's options have a two-digit number
    assert provenance["agieval_aqua_rat.jsonl"]["source_rows"] == [0, 1, 3, 4, 6]
    source = _read(tmp_path / "src" / "agieval_aqua_rat" / "test.jsonl")
    assert _read(out / "agieval_aqua_rat.jsonl") == [source[i] for i in (0, 1, 3, 4, 6)]
    assert [len(_read(out / f"math_{s}.jsonl")) for s in ("algebra", "prealgebra", "number_theory")] == [4, 3, 3]
    capsys.readouterr()
    assert rq.main(["bundle", "--sources", str(tmp_path / "src"), "--out", str(out), "--check"]) == 0
    (out / "math_algebra.jsonl").write_text((out / "math_algebra.jsonl").read_text().replace("Compute", "Find"))
    assert rq.main(["bundle", "--sources", str(tmp_path / "src"), "--out", str(out), "--check"]) == 1
    assert "differs from the sources: math_algebra.jsonl" in capsys.readouterr().out


def test_sample_is_stratified_by_category(pinned, tmp_path):
    _sources(pinned, tmp_path / "src")
    assert rq.main(["sample", "--sources", str(tmp_path / "src"), "--questions", "300", "--seed", "0",
                    "--out", str(tmp_path / "s")]) == 0
    rows = _read(tmp_path / "s" / "mmlu_pro" / "test.jsonl")
    counts = Counter(r["category"] for r in rows)
    assert len(rows) == 300 and set(counts.values()) <= {21, 22} and len(counts) == 14  # 12,032 / 14 per category
    assert [r["question_id"] for r in rows] == sorted(r["question_id"] for r in rows)
    again = tmp_path / "again"
    rq.main(["sample", "--sources", str(tmp_path / "src"), "--questions", "300", "--seed", "0", "--out", str(again)])
    assert _read(again / "mmlu_pro" / "test.jsonl") == rows


def test_an_archive_of_another_revision_is_refused(clones, pinned, tmp_path, capsys, monkeypatch):
    rows = _mmlu_pro_rows()
    rows[5]["answer_index"] = (rows[5]["answer_index"] + 1) % len(rows[5]["options"])
    path = tmp_path / "mmlu"
    shutil.copytree(clones["mmlu"][0], path)  # the module's clone stays as it is
    (path / rq.MMLU_PRO_SAME_REVISION[0]).write_bytes(_zip(rows, "gemini.json"))
    monkeypatch.setitem(rq.MMLU_PRO, "commit", _git_commit_all(path))
    pinned = {**pinned, "mmlu": path}
    assert _sources(pinned, tmp_path / "out") == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"real_questions: {rq.MMLU_PRO_SAME_REVISION[0]}: question {rows[5]['question_id']} differs "
                   f"from {rq.MMLU_PRO['path']}")
    monkeypatch.setitem(rq.MMLU_PRO, "commit", "0" * 40)
    assert _sources(pinned, tmp_path / "out2") == 2
    assert "cannot read 000000000000:" in capsys.readouterr().err


def _git_commit_all(root: Path) -> str:
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "commit", "-q", "-am", "other revision"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
