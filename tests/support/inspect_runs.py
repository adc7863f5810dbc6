"""Real Inspect runs on inspect_ai's built-in ``mockllm`` model with scripted answers (offline).

``inspect_run(log_dir, model, right, epochs=...)`` evaluates a small arithmetic task
(question ``q<i>``: "What is i + 1?", target ``str(i + 1)``) scored by Inspect's ``match()``
and writes the log (``metrics``: Inspect's task-level metrics instead of the scorer's
``accuracy`` and ``stderr``). ``right(i, k)`` says whether the k-th answer (k = 0, 1, ...) given to
question i is correct: the mock answers ``i + 1`` then, else ``i + 2``. The k-th call for a
question is counted per question, so which epoch gets which answer may vary with Inspect's
scheduling but each question's number of correct epochs is exactly what ``right`` says.

mockllm counts tokens with tiktoken (a download) unless the output carries its usage, so each
scripted output sets one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

TASK = "arith"


def arith_task(n: int, name: str = TASK, epochs: int = 1, metrics: list | None = None, wording: str = "What is"):
    from inspect_ai import Epochs, Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    dataset = [Sample(id=f"q{i}", input=f"q{i}: {wording} {i} + 1?", target=str(i + 1)) for i in range(n)]
    return Task(dataset=dataset, solver=generate(), scorer=match(), name=name, epochs=Epochs(epochs), metrics=metrics)


def scripted_outputs(right: Callable[[int, int], bool]):
    """The mockllm ``custom_outputs`` callable answering question i by ``right(i, k)``."""
    from inspect_ai.model import ModelOutput, ModelUsage

    calls: dict[int, int] = defaultdict(int)

    def answer(messages, tools, tool_choice, config):
        text = messages[-1].text
        i = int(text.split(":", 1)[0][1:])
        k = calls[i]
        calls[i] += 1
        out = ModelOutput.from_content(model="mockllm", content=str(i + 1 if right(i, k) else i + 2))
        out.usage = ModelUsage(input_tokens=8, output_tokens=2, total_tokens=10)
        return out

    return answer


def inspect_run(log_dir: Path, model: str, right: Callable[[int, int], bool], *, n: int, epochs: int = 1,
                log_format: str = "eval", name: str = TASK, metrics: list | None = None,
                wording: str = "What is") -> Path:
    """Run the task once on ``mockllm/<model>`` and return the log file written to ``log_dir``."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    mock = get_model(f"mockllm/{model}", custom_outputs=scripted_outputs(right))
    (log,) = inspect_eval(arith_task(n, name, epochs, metrics, wording), model=mock, log_dir=str(log_dir), display="none",
                          log_format=log_format)
    assert log.status == "success", log.error
    return Path(log.location)


# The worked example of docs/compare.md and docs/export.md: 40 questions, 4 epochs; of question
# i's four answers, strong gets 1 right when i % 5 == 0, else 4; weak gets i % 4 right.
DOCS_EXAMPLE = {"strong": lambda i: 1 if i % 5 == 0 else 4, "weak": lambda i: i % 4}


def write_docs_example(folder: Path) -> None:
    """``folder/strong`` and ``folder/weak``: the logs of the docs' worked example."""
    for name, correct in DOCS_EXAMPLE.items():
        inspect_run(folder / name, f"acme/{name}", lambda i, k, c=correct: k < c(i), n=40, epochs=4)


if __name__ == "__main__":  # python tests/support/inspect_runs.py DIR (the docs check's setup)
    import sys

    write_docs_example(Path(sys.argv[1]))
