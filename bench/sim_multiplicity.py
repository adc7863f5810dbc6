"""What the Holm family of `scorekit compare` does to a logged metric's adjusted p when Inspect
logs have epochs (issue 34: derived pass@k rows counted in the family of the metric the user asked
for). docs/compare.md quotes its output.

    python bench/sim_multiplicity.py            # two mockllm runs, GPQA-Diamond's size (198 x 5 epochs)

Two real Inspect logs (inspect_ai's ``mockllm`` with scripted answers, as in the tests) of a
198-question task scored by ``match()`` with 5 epochs: per question an ability a ~ U(0, 1), model
A right in Binomial(5, a + 0.03) epochs, model B in Binomial(5, a - 0.03) (seed 22: of seeds
0-39, one whose raw p for match is near the real case's 0.031). scorekit compare then gives ``match`` (logged) and ``match/pass@2..5`` (derived). Printed: match's
difference, interval and raw p; its adjusted p in the family now used (the logged metrics) and
in the old one (every row). This is a scripted fixture of the real case's shape, not its data.
Output (2026-11-28; 3 min on a loaded 2-core machine, mostly Inspect's mock runs):

    match: 0.518 vs 0.482, difference +0.036 [+0.004, +0.073], p 0.034
      adjusted over the logged metrics (now, 1 row): 0.034
      adjusted over every row (before, 5 rows with pass@2..pass@5): 0.168
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorekit.cli import main  # noqa: E402
from scorekit.metrics.intervals import holm  # noqa: E402
from tests.support.inspect_runs import inspect_run  # noqa: E402

QUESTIONS, EPOCHS, SEED, SHIFT = 198, 5, 22, 0.03


def run() -> dict:
    rng = np.random.default_rng(SEED)
    ability = rng.random(QUESTIONS)
    correct = {"acme/a": rng.binomial(EPOCHS, np.clip(ability + SHIFT, 0, 1)),
               "acme/b": rng.binomial(EPOCHS, np.clip(ability - SHIFT, 0, 1))}
    with tempfile.TemporaryDirectory() as tmp:
        folders = []
        for model, c in correct.items():
            folder = Path(tmp) / model.replace("/", "_")
            inspect_run(folder, model, lambda i, k, c=c: k < c[i], n=QUESTIONS, epochs=EPOCHS)
            folders.append(str(folder))
        out = Path(tmp) / "cmp.json"
        assert main(["compare", *folders, "--format", "json", "--output", str(out)]) == 0
        return json.loads(out.read_text())


def report() -> None:
    doc = run()
    rows = doc["comparisons"]
    match = next(c for c in rows if c["metric"] == "match")
    old = holm([c["p_value"] for c in rows])[rows.index(match)]
    print(f"match: {match['a_value']:.3f} vs {match['b_value']:.3f}, difference {match['difference']:+.3f} "
          f"[{match['ci_low']:+.3f}, {match['ci_high']:+.3f}], p {match['p_value']:.3f}")
    print(f"  adjusted over the logged metrics (now, {sum(c['family'] == 'logged' for c in rows)} row): "
          f"{match['p_value_adjusted']:.3f}")
    print(f"  adjusted over every row (before, {len(rows)} rows with pass@2..pass@{EPOCHS}): {old:.3f}")
    for c in rows:
        if c["family"] == "derived":
            print(f"  {c['metric']}: p {c['p_value']:.4f}, adjusted among the derived rows {c['p_value_adjusted']:.4f}")


if __name__ == "__main__":
    report()
