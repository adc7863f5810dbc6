"""Intervals of a leaderboard of SCORE per-prompt accuracies, by a bootstrap over questions
from the runs' samples logs (``scorekit demo``'s summary, and ``scorekit leaderboard`` with such
a config: ``configs/score_demo_normalization.yaml``, ``score_robustness_normalization.yaml``).

lm-eval's results files hold no stderr for SCORE's per-prompt accuracies (``"N/A"``), and the
prompts of a column are answered on the same questions, so the leaderboard's propagation of
independent stderrs cannot give these columns an interval; :func:`summary_intervals` resamples
the questions instead.
"""

from __future__ import annotations

from typing import Any

from scorekit.leaderboards.scorecard_config import LEADERBOARD_OVERALL, ScorecardConfig

Part = tuple[str, int, bool, Any]  # (task, prompt, macro accuracy?, metric spec)


def prompt_columns(config: ScorecardConfig) -> list[tuple[str, list[Part]]] | None:
    """``[(column, [(task, prompt, macro, spec), ...]), ...]`` when every metric of ``config``
    reads one SCORE per-prompt accuracy (``<k>_accuracy`` or ``<k>_macro_accuracy`` of a task),
    else None (the config is not one :func:`summary_intervals` can bootstrap)."""
    out = []
    for name, bench in zip(config.columns, config.benchmarks):
        parts = []
        for spec in bench.metrics:
            task, metric = spec.keys[0]
            prompt, _, kind = metric.partition(",")[0].partition("_")
            if len(spec.keys) != 1 or not prompt.isdigit() or kind not in ("accuracy", "macro_accuracy") or spec.normalizer:
                return None
            parts.append((task, int(prompt), kind == "macro_accuracy", spec))
        out.append((name, parts))
    return out


def summary_intervals(samples, config, confidence: float = 0.95) -> dict[str, dict[str, tuple[float, float, float]]]:
    """``{model: {column: (estimate, low, high)}}`` for the summary's columns and Average, by a
    bootstrap over questions of the leaderboard of ``config`` (:func:`prompt_columns`; the scores
    of :func:`scorekit.leaderboards.leaderboard.compute_leaderboard`), from the runs' sample sets
    (:func:`scorekit.robustness.readers.read_paths`).

    Every question of every column is one row (its
    0/1 per prompt, split by category for a macro accuracy), the rows are resampled together,
    and each draw recomputes every part as the harness does (``k_accuracy``: correct share;
    ``k_macro_accuracy``: mean over categories), normalizes it with the part's chance level
    and averages the parts and the columns. Percentile bootstrap, 2000 draws, seed 0; the
    estimate equals the summary's value (tested). Where every draw gives the same score (every
    part at 0 or 1 on every question), each part is taken at the ends of its Wilson interval
    instead. A model without the logs of every part gets no interval.
    """
    import warnings

    import numpy as np

    from scorekit.leaderboards.threshold import threshold_score
    from scorekit.metrics.intervals import bootstrap_intervals, wilson_interval

    def scale(value, spec):  # the config's score of one part (good = 1, bad = chance, 0-100)
        return threshold_score(value, spec.good, spec.bad) * config.scale

    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    columns = prompt_columns(config)
    for model, table in _tables(samples, columns):

        def scores(m: np.ndarray, table=table) -> np.ndarray:
            # nanmean: a budgeted run's draw may hold no question asked some prompt; that part is left out
            return np.stack([np.nanmean([scale(table.accuracy(m, task, prompt), spec) for task, prompt, _, spec in parts],
                                     axis=0) for _, parts in columns], axis=-1)

        stats = [lambda m, j=j: scores(m)[..., j] for j in range(len(columns))]
        names = [name for name, _ in columns]
        stats.append(lambda m: scores(m).mean(axis=-1))
        names.append(LEADERBOARD_OVERALL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of a draw without some category
            results = bootstrap_intervals(table.x, stats, confidence=confidence)
            # every draw the same (every part's accuracy 0 or 1 on every question): the bootstrap
            # says nothing; each part is then taken at the ends of its Wilson interval over its
            # questions (as intervals.boundary_safe does for one accuracy), the score being
            # monotone in every part
            full = table.x.mean(axis=0)

            def at(end: int) -> np.ndarray:
                values = []
                for _, parts in columns:
                    values.append(np.mean([scale(float(wilson_interval(table.accuracy(full, t, k) * table.asked(t, k),
                                                                       table.asked(t, k), confidence)[end]), spec)
                                           for t, k, _, spec in parts if table.asked(t, k)]))
                return np.array(values + [float(np.mean(values))])

            if any(r.ci_low == r.ci_high for r in results):
                low, high = at(0), at(1)
                results = [r._replace(ci_low=min(r.ci_low, low[j]), ci_high=max(r.ci_high, high[j]))
                           if r.ci_low == r.ci_high else r for j, r in enumerate(results)]
        out[model] = {name: (r.estimate, r.ci_low, r.ci_high) for name, r in zip(names, results)}
    return out


def raw_values(samples, config: ScorecardConfig) -> dict[str, dict[str, float]]:
    """``{model: {column: raw value}}`` from the sample sets: the mean of the column's
    per-prompt accuracies over every question, as the results files give them (each
    ``<k>_accuracy`` the correct share, ``<k>_macro_accuracy`` the mean over categories)."""
    import warnings

    import numpy as np

    columns = prompt_columns(config)
    out: dict[str, dict[str, float]] = {}
    for model, table in _tables(samples, columns):
        full = table.x.mean(axis=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            # nanmean: a prompt no question of a small budgeted task was asked is left out
            out[model] = {name: float(np.nanmean([table.accuracy(full, t, k) for t, k, _, _ in parts])) for name, parts in columns}
    return out


class _Table:
    """One model's questions as rows: per task and category a ``share`` column (1 for the
    question's group) and per prompt a ``right`` column (its 0/1), so a resampled row set gives
    every part's accuracy again (:meth:`accuracy`)."""

    def __init__(self, by_task: dict[str, list], columns: list[tuple[str, list[Part]]]):
        import numpy as np

        self.macro = {task: m for _, parts in columns for task, _, m, _ in parts}
        rows: dict[tuple[str, str], int] = {}
        self.index: dict[tuple, int] = {}  # ("share", task, group) or ("right", task, prompt, group) -> column of x
        cells: list[tuple[int, tuple, float]] = []
        for task, is_macro in self.macro.items():
            for r in by_task[task]:
                group = r.category if is_macro else ""
                if (task, r.question_id) not in rows:
                    rows[(task, r.question_id)] = len(rows)
                    cells.append((rows[(task, r.question_id)], ("share", task, group), 1.0))
                cells.append((rows[(task, r.question_id)], ("right", task, r.variant, group), float(r.correct)))
                cells.append((rows[(task, r.question_id)], ("asked", task, r.variant, group), 1.0))
        for _, key, _ in cells:
            self.index.setdefault(key, len(self.index))
        self.x = np.zeros((len(rows), len(self.index)))
        for row, key, value in cells:
            self.x[row, self.index[key]] = value
        self.groups = {task: sorted({k[2] for k in self.index if k[0] == "share" and k[1] == task}) for task in self.macro}
        self.n_q = {task: sum(1 for t, _ in rows if t == task) for task in self.macro}

    def asked(self, task: str, prompt: int) -> int:
        """How many of the task's questions were asked ``prompt`` (all of them in a full run)."""
        return int(sum(self.x[:, j].sum() for key, j in self.index.items() if key[:3] == ("asked", task, prompt)))

    def accuracy(self, m: Any, task: str, prompt: int) -> Any:
        import numpy as np

        index, groups = self.index, self.groups[task]
        # the questions asked this prompt: all of them in a full run, B of V in a budgeted one
        # (scorekit demo's prompt family), whose per-prompt accuracy is over those asked, as
        # lm-eval's results files give it (scorekit.robustness.budget.variants.harness_metrics)
        share = np.stack([m[..., index[("asked", task, prompt, g)]] if ("asked", task, prompt, g) in index
                          else np.zeros(m.shape[:-1]) for g in groups], axis=-1)
        right = np.stack([m[..., index[("right", task, prompt, g)]] if ("right", task, prompt, g) in index
                          else np.zeros(m.shape[:-1]) for g in groups], axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.macro[task]:  # categories a draw misses are left out, as the harness would
                return np.nanmean(np.where(share > 0, right / share, np.nan), axis=-1)
            return right.sum(axis=-1) / share.sum(axis=-1)


def _tables(samples, columns: list[tuple[str, list[Part]]] | None):
    """``(model, _Table)`` for every model whose sample sets hold every task of ``columns``."""
    from scorekit.harness_outputs.keys import ungrouped

    if columns is None:
        return
    records: dict[str, dict[str, list]] = {}
    for sample_set in samples:
        records.setdefault(sample_set.model, {})[ungrouped(sample_set.task.name)] = list(sample_set.records)
    for model, by_task in records.items():
        if all(task in by_task for _, parts in columns for task, _, _, _ in parts):
            yield model, _Table(by_task, columns)
