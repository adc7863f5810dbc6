"""``scorekit variants --family option_order`` over every task of the installed lm-eval, offline:
each is written or refused in one line (never a traceback), every written YAML loads with
lm-eval's own loader, and the multiple-choice tasks that get a real option-order test (the
options after their labels move) are counted (docs/variants.md, "Task shapes")."""

from __future__ import annotations

import contextlib
import io
import time
from collections import Counter

import pytest

from scorekit.cli import main

# The letter-labelled tasks of lm-eval 0.4.13's 8,384 multiple-choice tasks, at least
MIN_LABELLED = 5000


def variants_one(name: str, out: str) -> tuple[int | str, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc: int | str = main(["variants", name, "--family", "option_order", "--output-dir", out])
        except BaseException as exc:  # noqa: BLE001 - a crash is what this test looks for
            rc = f"crash: {type(exc).__name__}: {exc}"
    return rc, err.getvalue()


def test_every_task_is_written_or_refused_in_one_line(tmp_path):
    import lm_eval
    from lm_eval.tasks._index import Kind
    from lm_eval.tasks._yaml_loader import load_yaml

    from scorekit.commands.variants import _task_index
    from scorekit.lm_eval.task_variants_yaml import option_shape

    started = time.process_time()
    index = _task_index(None)
    tasks = sorted(n for n, e in index.items() if e.kind not in (Kind.GROUP, Kind.TAG))
    outcomes: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    generation: Counter[str] = Counter()  # tasks generating a letter of shown options
    bad = []
    written_names: list[str] = []
    for name in tasks:
        rc, err = variants_one(name, str(tmp_path))
        lines = err.splitlines()
        if rc == 0:
            outcomes["written"] += 1
            written_names.append(name)
            text = (tmp_path / f"robust_option_order_{name}.yaml").read_text(encoding="utf-8")
            assert "family: option_order" in text
        elif rc == 2 and len(lines) == 1 and lines[0].startswith("scorekit: error: "):
            outcomes["refused"] += 1
        else:
            bad.append((name, rc, err[-300:]))
            continue
        entry = index[name]
        if entry.kind is Kind.TASK:
            cfg = load_yaml(entry.yaml_path, resolve_func=False)
            if cfg.get("output_type") == "multiple_choice":
                shapes[f"{option_shape(cfg)}:{'written' if rc == 0 else 'refused'}"] += 1
            elif cfg.get("output_type", "generate_until") == "generate_until":
                generation[f"{'written' if rc == 0 else 'refused'}"] += 1
    assert not bad, bad[:5]
    # what was written loads with lm-eval's loader (RobustTask resolved through !function)
    written = [tmp_path / f"robust_option_order_{name}.yaml" for name in written_names]
    assert all(path.is_file() for path in written)
    for path in written[:: max(1, len(written) // 200)]:
        cfg = load_yaml(str(path), resolve_func=True)
        assert cfg["class"].__name__ == "RobustTask"
    cpu = time.process_time() - started
    print(f"\nlm-eval {lm_eval.__version__}: {len(tasks)} tasks, {dict(outcomes)}; multiple choice: {dict(sorted(shapes.items()))}; generate_until: {dict(generation)}; "
          f"{cpu:.0f} s CPU")
    mc = sum(shapes.values())
    # letter-labelled tasks are all written; cloze tasks all refused offline (no data to tell)
    assert shapes["labels:refused"] == 0 and shapes["cloze:written"] == 0
    assert shapes["labels:written"] >= MIN_LABELLED, shapes
    assert mc > shapes["labels:written"]


if __name__ == "__main__":  # pragma: no cover - a quick look outside pytest
    pytest.main([__file__, "-q", "-s"])
