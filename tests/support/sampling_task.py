"""A scorekit sampling task for lm-eval (``repeats`` samples per question, ``ScorekitTask``) over
``n_docs`` questions ``{"q": "question i", "answer": "ai", "i": i}``, for tests that drive the real
lm-eval with a scripted model answering ``doc["answer"]`` or ``"wrong"``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path


def write_sampling_task(root: Path, name: str, *, n_docs: int, n_samples: int, metric_list: str) -> Path:
    """Write ``root/data.jsonl`` and ``root/tasks/<name>.yaml``; return the tasks folder.
    ``metric_list``: the YAML lines of ``metric_list`` (dedented, so they may be indented alike)."""
    data = root / "data.jsonl"
    data.write_text("".join(json.dumps({"q": f"question {i}", "answer": f"a{i}", "i": i}) + "\n" for i in range(n_docs)))
    tasks = root / "tasks"
    tasks.mkdir()
    (tasks / f"{name}.yaml").write_text(sampling_task_yaml(name, data, n_samples=n_samples, metric_list=metric_list))
    return tasks


def task_header(name: str, data: Path) -> str:
    """The first YAML lines of a ``ScorekitTask`` named ``name`` over the JSON lines file ``data``
    (its test split), asking ``doc["q"]``."""
    return textwrap.dedent(f"""\
        task: {name}
        class: !function scorekit.lm_eval.ScorekitTask
        dataset_path: json
        dataset_kwargs:
          data_files:
            test: {data}
        test_split: test
        doc_to_text: "Q: {{{{q}}}} A:"
    """)


def sampling_task_yaml(name: str, data: Path, *, n_samples: int, metric_list: str) -> str:
    """The YAML of a ``ScorekitTask`` asking ``doc["q"]`` ``n_samples`` times (lowercased answers
    against ``doc["answer"]``) over the JSON lines file ``data``; ``metric_list`` as above."""
    return task_header(name, data) + textwrap.dedent(f"""\
        output_type: generate_until
        doc_to_target: "{{{{answer}}}}"
        repeats: {n_samples}
        generation_kwargs:
          until: ["\\n"]
        filter_list:
          - name: all
            filter:
              - function: lowercase
        metric_list:
    """) + textwrap.dedent(metric_list)
