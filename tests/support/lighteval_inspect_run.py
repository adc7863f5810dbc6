"""Inspect logs the way ``lighteval eval`` (lighteval 0.13) makes them, offline, with a scripted model.

Run as ``python -m tests.support.lighteval_inspect_run MODE LOG_DIR MODEL EPOCHS`` from a
working directory holding ``EleutherAI/arithmetic/`` (a local copy of the dataset that
lighteval's built-in ``arithmetic:1dc`` task names: ``datasets`` loads a local folder of that
name before asking the hub; see :func:`write_arithmetic_dataset`).

MODE ``cli`` runs the real ``lighteval eval`` command in-process. With inspect_ai 0.3.285 it
fails before evaluating anything: lighteval 0.13 passes ``frequence_penalty``, ``log_probs``
and ``response_format`` to Inspect, whose ``GenerateConfig`` now rejects unknown fields.
MODE ``builder`` therefore runs what ``lighteval eval`` runs around that call: lighteval's
registry (``Registry(tasks=..., custom_tasks=None)``), its task builder
(``lighteval.main_inspect.get_inspect_ai_task``, with ``epochs`` and the ``pass_at_{k}``
reducer) and Inspect's ``eval_set``, which is how ``lighteval eval`` writes its logs; EPOCHS
is then a comma-separated list, one run per value, into ``LOG_DIR/epochs_<E>``.

The model ``scripted/<MODEL>`` is an Inspect model provider registered here: question
"What is a + b?" is answered ``a + b`` when ``a % 3 != 0``, else ``a + b + 1`` (wrong).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

TASK = "arithmetic:1dc"
N = 12


def write_arithmetic_dataset(cwd: Path) -> None:
    """``EleutherAI/arithmetic`` with one config (``arithmetic_1dc``, split ``validation``) of
    N rows "Question: What is a + (a+1)?" -> " 2a+1", in lighteval's field names."""
    root = cwd / "EleutherAI" / "arithmetic"
    (root / "arithmetic_1dc").mkdir(parents=True, exist_ok=True)
    rows = [{"context": f"Question: What is {a} + {a + 1}?\nAnswer:", "completion": f" {2 * a + 1}"} for a in range(N)]
    (root / "arithmetic_1dc" / "validation.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "README.md").write_text("---\nconfigs:\n- config_name: arithmetic_1dc\n  data_files:\n"
                                    "  - split: validation\n    path: arithmetic_1dc/validation.jsonl\n---\n")


def correct(a: int) -> bool:
    return a % 3 != 0


def _register() -> None:
    from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi

    @modelapi(name="scripted")
    class Scripted(ModelAPI):
        def __init__(self, model_name, base_url=None, api_key=None, config=GenerateConfig(), **kw):
            super().__init__(model_name, base_url, api_key, [], config)

        async def generate(self, input, tools, tool_choice, config):
            a, b = map(int, re.search(r"What is (\d+) \+ (\d+)", input[-1].text).groups())
            out = ModelOutput.from_content(model=self.model_name, content=f"The answer is {a + b if correct(a) else a + b + 1}")
            out.usage = ModelUsage(input_tokens=5, output_tokens=3, total_tokens=8)
            return out


def main(mode: str, log_dir: str, model: str, epochs: str) -> None:
    from scorekit.lighteval.offline import prepare_offline

    _register()
    prepare_offline()
    if mode == "cli":
        from lighteval.__main__ import app

        app(["eval", f"scripted/{model}", TASK, "--log-dir", log_dir, "--display", "none", "--epochs", epochs],
            standalone_mode=False)
        return
    from inspect_ai import eval_set
    from lighteval.main_inspect import get_inspect_ai_task
    from lighteval.tasks.registry import Registry

    registry = Registry(tasks=TASK, custom_tasks=None, load_multilingual=False)
    for e in map(int, epochs.split(",")):
        reducer = f"pass_at_{e}" if e > 1 else None
        tasks = [get_inspect_ai_task(c, epochs=e, epochs_reducer=reducer)
                 for configs in registry.task_to_configs.values() for c in configs]
        ok, _ = eval_set(tasks, model=[f"scripted/{model}"], log_dir=f"{log_dir}/epochs_{e}", display="none")
        if not ok:
            raise SystemExit("eval_set did not succeed")


if __name__ == "__main__":
    main(*sys.argv[1:5])
