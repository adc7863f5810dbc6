"""A scorekit sampling task for lm-eval (``repeats`` samples per question, ``ScorekitTask``) over
``n_docs`` questions ``{"q": "question i", "answer": "ai", "i": i}``, for tests that drive the real
lm-eval with a scripted model answering ``doc["answer"]`` or ``"wrong"``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path


def write_sampling_task(root: Path, name: str, *, n_docs: int, n_samples: int, metric_list: str) -> Path:
    """Write ``root/data.jsonl`` and ``root/tasks/<name>.yaml``; return the tasks folder.
    ``metric_list``: the YAML lines of ``metric_list`` (indented two spaces)."""
    data = root / "data.jsonl"
    data.write_text("".join(json.dumps({"q": f"question {i}", "answer": f"a{i}", "i": i}) + "\n" for i in range(n_docs)))
    tasks = root / "tasks"
    tasks.mkdir()
    (tasks / f"{name}.yaml").write_text(textwrap.dedent(f"""\
        task: {name}
        class: !function scorekit.lm_eval.ScorekitTask
        dataset_path: json
        dataset_kwargs:
          data_files:
            test: {data}
        test_split: test
        doc_to_text: "Q: {{{{q}}}} A:"
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
    """) + textwrap.dedent(metric_list))
    return tasks
