"""The multiplicity case of issue 34 on real data: GPQA-Diamond, gpt-5-nano against gpt-5.4-mini,
198 questions x 5 epochs, per-question scores published with evalconfidence (Apache-2.0,
github.com/stephlinds/evalconfidence, examples/data/gpqa_diamond_scores.csv; columns item_id,
model_id, score, epoch). Its README reports the paired difference +5.9 points, 95% CI
[0.4, 11.3], p 0.036 (paired t), and ~334 questions to detect 6 points with 80% power.

The scores are replayed as two real Inspect logs (inspect_ai's ``mockllm`` answering right
exactly where the published score is 1), then read by ``scorekit compare`` and ``scorekit plan
--pilot``. Printed: match's difference, interval and raw p; its Holm-adjusted p over the logged
metrics (now) and over every row with the derived pass@2..pass@5 (before issue 34); the plan.

    python bench/real_gpqa.py PATH/TO/gpqa_diamond_scores.csv

The CSV is not bundled (fetch the repository). Output (2026-11-28, Intel Xeon 2 cores, ~1 min):

    match: 0.676 vs 0.617, difference +0.059 [+0.004, +0.113], p 0.031
      adjusted over the logged metrics (now, 1 row): 0.031
      adjusted over every row (before, 5 rows with pass@2..pass@5): 0.092
    plan: questions to detect +0.060 with 80% power: 336 (paired t; 334 by the normal approximation)
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorekit.cli import main  # noqa: E402
from scorekit.metrics.intervals import holm  # noqa: E402
from tests.support.inspect_runs import inspect_run  # noqa: E402

EPOCHS = 5


def read_scores(path: Path) -> dict[str, list[list[float]]]:
    """model -> per question (sorted item ids) -> the five epochs' scores, in epoch order."""
    scores: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    with path.open(newline="") as f:
        for row in csv.DictReader(f):
            scores[row["model_id"]][row["item_id"]][int(row["epoch"])] = float(row["score"])
    out = {}
    for model, items in scores.items():
        ids = sorted(items)
        assert all(sorted(items[i]) == list(range(1, EPOCHS + 1)) for i in ids), f"{model}: not {EPOCHS} epochs each"
        out[model] = [[items[i][e] for e in range(1, EPOCHS + 1)] for i in ids]
    return out


def run(path: Path, tmp: Path) -> tuple[dict, dict]:
    folders = []
    for model, per_question in read_scores(path).items():
        folder = tmp / model.replace("/", "_")
        inspect_run(folder, model, lambda i, k, s=per_question: s[i][k] == 1.0, n=len(per_question), epochs=EPOCHS,
                    name="gpqa_diamond")
        folders.append(str(folder))
    compared, planned = tmp / "compare.json", tmp / "plan.json"
    assert main(["compare", *folders, "--format", "json", "--output", str(compared)]) == 0
    assert main(["plan", "--pilot", *folders, "--metric", "match", "--difference", "0.06", "--format", "json",
                 "--output", str(planned)]) == 0
    return json.loads(compared.read_text()), json.loads(planned.read_text())


def report(path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        doc, plan = run(path, Path(tmp))
    rows = doc["comparisons"]
    match = next(c for c in rows if c["metric"] == "match")
    before = holm([c["p_value"] for c in rows])[rows.index(match)]
    print(f"match: {match['a_value']:.3f} vs {match['b_value']:.3f}, difference {match['difference']:+.3f} "
          f"[{match['ci_low']:+.3f}, {match['ci_high']:+.3f}], p {match['p_value']:.3f}")
    print(f"  adjusted over the logged metrics (now, {sum(c['family'] == 'logged' for c in rows)} row): "
          f"{match['p_value_adjusted']:.3f}")
    print(f"  adjusted over every row (before, {len(rows)} rows with pass@2..pass@{EPOCHS}): {before:.3f}")
    print(f"plan: questions to detect {plan['difference']:+.3f} with {plan['power']:.0%} power: {plan['questions']} "
          f"(paired t; {plan['questions_approximation']} by the normal approximation)")


if __name__ == "__main__":
    report(Path(sys.argv[1]))
