"""``scorekit variants --family option_order`` on lm-eval's own task configs with local rows in
their real columns (tests/lm_eval/catalogue_rows.py), and an independent check of what it wrote.

For a task T of the installed lm-eval, :func:`write_local` writes ``T__local``: a YAML that
``include:``s T's own file and only swaps its data for a jsonl file of the rows (every split T
names reads it), so the prompt, choices, target, ``process_docs`` and few-shot set-up stay T's.
:func:`outcome` runs ``scorekit variants`` on it (in process, as the CLI) and, when it wrote the
variant task, :func:`moves` builds that task as lm-eval does and reads what the model would be
asked, independently of scorekit's own option finder:

- every question is asked once per arrangement, and no two arrangements ask the same thing;
- the gold option's text (from the raw row, :attr:`Rows.gold`) sits at a different place in the
  prompt in every arrangement;
- the continuation scored as correct names the gold: its own text (options scored as texts), or
  a label written right before the gold's text in the prompt (``B. ``, ``(B) ``, ``Option B: ``).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import lm_eval

LM_EVAL_TASKS = Path(lm_eval.__file__).resolve().parent / "tasks"
SUFFIX = "__local"


@dataclass(frozen=True)
class Rows:
    """Local rows in the real columns of one dataset, for the tasks of ``folder`` whose names
    match ``tasks`` (a regex, whole name). ``gold(row)`` is the gold option's text as the prompt
    shows it (None: the task's own gold choice, for options that are the choices' texts);
    ``per_task(name, process_docs)`` gives fields to set in every row for one task (the subject
    its ``process_docs`` keeps, ...); ``extra`` is appended to the local task's YAML."""

    folder: str
    tasks: str
    rows: tuple[dict[str, Any], ...]
    gold: Callable[[dict[str, Any]], str | None]
    per_task: Callable[[str, Any], dict[str, Any]] | None = None
    extra: str = ""

    def fits(self, name: str) -> bool:
        return re.fullmatch(self.tasks, name) is not None


def splits(cfg: dict[str, Any]) -> list[str]:
    """Every split the task reads (evaluation, training and few-shot)."""
    names = [cfg.get(k) for k in ("test_split", "validation_split", "training_split", "fewshot_split")]
    names.append((cfg.get("fewshot_config") or {}).get("split") if isinstance(cfg.get("fewshot_config"), dict) else None)
    return list(dict.fromkeys(str(n) for n in names if n))


def write_local(folder: Path, name: str, yaml_path: str, rows: list[dict[str, Any]], cfg: dict[str, Any],
                extra: str = "", local: str | None = None) -> str:
    """Write ``local`` (default ``<name>__local``: T's own YAML on the rows) and its data into
    ``folder``; its name."""
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path = data / f"{abs(hash(text)):x}.jsonl"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    files = "".join(f"    {json.dumps(s)}: {path}\n" for s in splits(cfg))
    local = local or name + SUFFIX
    (folder / f"{local}.yaml").write_text(
        f"include: {json.dumps(str(Path(yaml_path).resolve()))}\ntask: {local}\ntag: []\n"
        f"dataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n{files}" + extra, encoding="utf-8")
    return local


def run_variants(local: str, include: Path, out: Path, *show: str) -> tuple[int | str, str]:
    """``scorekit variants LOCAL --family option_order [--show-options]``: (exit status or the
    crash, standard error)."""
    from scorekit.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc: int | str = main(["variants", local, "--family", "option_order", *show, "--include-path", str(include),
                                  "--output-dir", str(out)])
        except BaseException as exc:  # noqa: BLE001 - a crash is what the check looks for
            rc = f"crash: {type(exc).__name__}: {exc}"
    return rc, err.getvalue()


def _squash(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _places(prompt: str, text: str) -> frozenset[int]:
    """Where ``text`` occurs in ``prompt`` (white space runs and case ignored)."""
    flat, want = _squash(prompt), _squash(text)
    return frozenset(m.start() for m in re.finditer(re.escape(want), flat)) if want else frozenset()


def moves(written: Path, local: str, golds: list[str | None]) -> str | None:
    """None when the written variant task of ``local`` really moves its options and scores the
    gold (module docstring), else what is wrong. ``golds[i]``: the gold option text of row i
    (None: the text of the task's own gold choice)."""
    import logging
    import warnings

    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.lm_eval.task_variants import RobustTask

    cfg = load_yaml(str(written / f"robust_option_order_{local}.yaml"), resolve_func=False)
    cfg = {k: v for k, v in cfg.items() if k != "class"}
    import datasets

    logging.getLogger("lm_eval").setLevel(logging.CRITICAL)
    datasets.disable_progress_bars()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        task = RobustTask(config=cfg)
    docs = task.test_docs() if task.has_test_docs() else task.validation_docs()
    asked: dict[str, list[tuple[str, tuple[str, ...], int, int]]] = {}
    for doc in docs:
        meta = doc["_robust"]
        choices = tuple(str(c) for c in task.doc_to_choice(doc))
        asked.setdefault(meta["question_id"], []).append((task.doc_to_text(doc), choices, int(task.doc_to_target(doc)),
                                                          int(meta["n_variants"])))
    if not asked:
        return f"no question asked of {len(golds)} rows"
    first = {str(d["_robust"]["question_id"]): d for d in docs}
    for q, rows in asked.items():
        gold = golds[int(q)] if int(q) < len(golds) else None  # a process_docs may drop or split rows
        if gold is None:
            _, options, index = task._question(first[q])
            if first[q]["_robust"]["layout"] not in ("text", "converted"):
                return f"question {q}: no gold text given for a task scored on labels"
            gold = options[index]
        if len(rows) != rows[0][3] or len({(p, c) for p, c, _, _ in rows}) != len(rows):
            return f"question {q}: {len(rows)} arrangements, {len({(p, c) for p, c, _, _ in rows})} different"
        places = [_places(p, gold) for p, _, _, _ in rows]
        if any(not p for p in places) or len(set(places)) != len(places):
            return f"question {q}: the gold {gold!r} does not move to a new place in every arrangement"
        for prompt, choices, target, _ in rows:
            said = choices[target].strip()
            if _squash(said) == _squash(gold):
                continue
            label = re.escape(said.strip("()[].: "))
            before = rf"(?:^|[\s(\[])(?:\w+\s+)?[(\[]?{label}[)\].:：．、\-–]?\s*{re.escape(' '.join(gold.split()))}"
            if not re.search(before, " ".join(prompt.split()), flags=re.IGNORECASE):
                return f"question {q}: the continuation scored correct, {said!r}, does not name the gold {gold!r}"
    return None
