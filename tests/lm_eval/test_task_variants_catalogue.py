"""``scorekit variants --family option_order`` over lm-eval's catalogue (docs/variants.md,
"lm-eval's catalogue").

- Offline, without data, every task of the installed lm-eval is written or refused in one line
  (never a traceback), and a multiple-choice task is written only when its own prompt template
  shows the options (its documents cannot be read to check them).
- On local rows in the real columns (tests/lm_eval/catalogue_rows.py), one task of every folder
  of ``lm_eval/tasks`` with and without ``--show-options``: each is written and really moves the
  options the model reads (tests/lm_eval/catalogue_check.py, independently of scorekit's option
  finder), or is refused in one line. The full sweep over every task is bench/variants_catalogue.py.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections import Counter
from pathlib import Path

import pytest

from scorekit.cli import main

# lm-eval 0.4.13: 5,006 multiple-choice tasks are scored on labels their template writes (0.5: the same)
MIN_SHOWN_BY_TEMPLATE = 4900


def variants_one(name: str, out: str) -> tuple[int | str, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc: int | str = main(["variants", name, "--family", "option_order", "--output-dir", out])
        except BaseException as exc:  # noqa: BLE001 - a crash is what this test looks for
            rc = f"crash: {type(exc).__name__}: {exc}"
    return rc, err.getvalue()


def test_every_task_is_written_or_refused_in_one_line_offline(tmp_path):
    import lm_eval
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.lm_eval.task_variants_build import task_index as _task_index
    from scorekit.lm_eval.task_variants_yaml import template_shows

    started = time.process_time()
    index = _task_index(None)
    tasks = sorted(n for n, e in index.items() if e.kind not in (Kind.GROUP, Kind.TAG))
    outcomes: Counter[str] = Counter()
    bad = []
    written_names = []
    for name in tasks:
        rc, err = variants_one(name, str(tmp_path))
        lines = err.splitlines()
        if not (rc == 0 or (rc == 2 and len(lines) == 1 and lines[0].startswith("scorekit: error: "))):
            bad.append((name, rc, err[-300:]))
            continue
        if rc == 0:
            written_names.append(name)
        entry = index[name]
        cfg = load_yaml(entry.yaml_path, resolve_func=False) if entry.kind is Kind.TASK else {}
        kind = cfg.get("output_type", "generate_until") if entry.kind is Kind.TASK else "python"
        if kind == "multiple_choice":
            shown = template_shows(cfg) is not None
            outcomes[f"multiple_choice, template {'shows' if shown else 'hides'} options: "
                     f"{'written' if rc == 0 else 'refused'}"] += 1
            if rc == 2 and not shown:
                # lm-eval 0.5 tells several inputs per document (winogrande) from the config alone
                assert any(why in err for why in ("could not check offline", "Python task class",
                                                  "several inputs per document")), (name, err)
        else:
            outcomes[f"{kind}: {'written' if rc == 0 else 'refused'}"] += 1
    assert not bad, bad[:5]
    # what was written loads with lm-eval's loader (RobustTask resolved through !function)
    written = [tmp_path / f"robust_option_order_{name}.yaml" for name in written_names]
    assert all(path.is_file() for path in written)
    for path in written[:: max(1, len(written) // 200)]:
        assert load_yaml(str(path), resolve_func=True)["class"].__name__ == "RobustTask"
    print(f"\nlm-eval {lm_eval.__version__}: {len(tasks)} tasks, {dict(sorted(outcomes.items()))}; "
          f"{time.process_time() - started:.0f} s CPU")
    assert outcomes["multiple_choice, template hides options: written"] == 0
    assert outcomes["multiple_choice, template shows options: written"] >= MIN_SHOWN_BY_TEMPLATE


@pytest.fixture(scope="module")
def one_per_folder(tmp_path_factory):
    """The first task of every folder that has rows, as a local task on them: {task: (local, golds)}."""
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.lm_eval.task_variants_build import task_index as _task_index
    from tests.lm_eval.catalogue_check import LM_EVAL_TASKS, write_local
    from tests.lm_eval.catalogue_rows import rows_for

    folder = tmp_path_factory.mktemp("catalogue")
    index = _task_index(None)
    picked: dict[str, tuple[str, list]] = {}
    seen: set[str] = set()
    for name in sorted(index):
        entry = index[name]
        if entry.kind is not Kind.TASK:
            continue
        top = Path(entry.yaml_path).resolve().relative_to(LM_EVAL_TASKS).parts[0]
        if top in seen:
            continue
        cfg = load_yaml(entry.yaml_path, resolve_func=False)
        if cfg.get("output_type") != "multiple_choice" or "class" in cfg:
            continue
        found = rows_for(name, entry.yaml_path, cfg)
        if found is None:
            continue
        fixture, rows = found
        seen.add(top)
        picked[name] = (write_local(folder, name, entry.yaml_path, rows, cfg, fixture.extra), [fixture.gold(r) for r in rows])
    return folder, picked


@pytest.mark.parametrize("show", [False, True], ids=["", "show-options"])
def test_one_task_of_every_folder_on_its_rows_moves_its_options_or_is_refused(one_per_folder, tmp_path, show):
    import lm_eval

    from tests.lm_eval.catalogue_check import moves, run_variants

    folder, picked = one_per_folder
    folders = {p.name for p in (Path(lm_eval.__file__).resolve().parent / "tasks").iterdir() if p.is_dir()}
    outcomes: Counter[str] = Counter()
    bad = []
    for i, (name, (local, golds)) in enumerate(picked.items()):
        out = tmp_path / str(i)
        rc, err = run_variants(local, folder, out, *(["--show-options"] if show else []))
        errors = [line for line in err.splitlines() if not line.startswith("scorekit: note: ")]
        if rc == 0:
            problem = moves(out, local, golds)
            outcomes["written, moves" if problem is None else "written, WRONG"] += 1
            if problem:
                bad.append((name, problem))
        elif rc == 2 and len(errors) == 1 and errors[0].startswith("scorekit: error: "):
            outcomes["refused"] += 1
        else:
            bad.append((name, rc, err[-300:]))
    print(f"\nlm-eval {lm_eval.__version__}, one task in each of {len(picked)} folders"
          f"{' --show-options' if show else ''}: {dict(outcomes)}")
    assert not bad, bad[:5]
    assert len(picked) >= 125 and len(picked) <= len(folders)  # folders with rows: 135 on lm-eval 0.4.13, 129 on 0.5
    assert outcomes["written, moves"] >= (100 if show else 45), outcomes
