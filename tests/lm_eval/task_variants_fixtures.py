"""Local tasks for the ``scorekit variants`` tests, written into a folder on demand.

- ``arc_easy_local``: lm-eval's own ``arc_easy.yaml`` (``include:``d from the installed lm-eval)
  on a jsonl test split in ARC's row shape (id, question, choices {text, label}, answerKey);
- ``hellaswag_local``: lm-eval's own ``hellaswag.yaml`` (its ``process_docs`` included) on a jsonl
  validation split in HellaSwag's row shape;
- ``local_mc``: a plain multiple_choice task (choices from a field, gold index; a question with a
  repeated choice text; questions with 3 and 4 choices);
- ``local_qa``: a generate_until task scored with exact_match;
- ``mmlu_local``: lm-eval's own ``mmlu_abstract_algebra.yaml`` on rows in MMLU's shape: the choices
  are the labels A-D and the options are written into the prompt from the ``choices`` field.

The rows are made up here; the shapes are the real datasets'.
"""

from __future__ import annotations

import json
from pathlib import Path

import lm_eval

LM_EVAL_TASKS = Path(lm_eval.__file__).resolve().parent / "tasks"

ARC_ROWS = [
    {"id": "Mercury_1", "question": "Which planet is closest to the Sun?",
     "choices": {"text": ["Venus", "Mercury", "Mars", "Earth"], "label": ["A", "B", "C", "D"]}, "answerKey": "B"},
    {"id": "Mercury_2", "question": "What do plants need to make food?",
     "choices": {"text": ["sunlight", "sand", "noise"], "label": ["A", "B", "C"]}, "answerKey": "A"},
    {"id": "NYSED_3", "question": "Which is a mammal?",
     "choices": {"text": ["shark", "frog", "whale", "trout"], "label": ["1", "2", "3", "4"]}, "answerKey": "3"},
    {"id": "ACTAAP_4", "question": "Water freezes at what temperature in Celsius?",
     "choices": {"text": ["100", "0", "50", "-40"], "label": ["A", "B", "C", "D"]}, "answerKey": "B"},
]

HELLASWAG_ROWS = [
    {"ind": 4, "activity_label": "Removing ice from car", "ctx_a": "Then, the man writes over the snow covering the window of a car, and a woman wearing winter clothes smiles.",
     "ctx_b": "then", "ctx": "", "endings": [", the man adds wax to the windshield.", ", a person board a ski lift.",
                                                ", the man puts on a christmas coat.", ", the man continues removing the snow on his car."],
     "source_id": "activitynet~v_-1IBHYS3L-Y", "split": "val", "split_type": "indomain", "label": "3"},
    {"ind": 8, "activity_label": "Baking cookies", "ctx_a": "A woman mixes flour and sugar in a bowl.", "ctx_b": "she",
     "ctx": "", "endings": [" pours the batter onto a tray.", " throws the bowl away.", " [title] sings to the bowl.", " paints the oven."],
     "source_id": "activitynet~v_x", "split": "val", "split_type": "indomain", "label": "0"},
    {"ind": 9, "activity_label": "Washing hands", "ctx_a": "A child turns on the tap.", "ctx_b": "the child",
     "ctx": "", "endings": [" drinks the soap.", " rubs soap between the hands.", " leaves the room.", " climbs the sink."],
     "source_id": "wikihow~1", "split": "val", "split_type": "zeroshot", "label": "1"},
]

MC_ROWS = [
    {"q": "2 + 2 = ?", "options": ["3", "4", "5", "22"], "gold": 1},
    {"q": "Colour of the sky?", "options": ["blue", "green", "red"], "gold": 0},
    {"q": "Capital of France?", "options": ["Rome", "Paris", "Paris", "Oslo"], "gold": 2},
    {"q": "Opposite of hot?", "options": ["warm", "cold", "wet", "dry"], "gold": 1},
]

MMLU_ROWS = [
    {"question": "Find the order of the group Z_6.", "subject": "abstract_algebra", "choices": ["2", "3", "6", "12"], "answer": 2},
    {"question": "Is every cyclic group abelian?", "subject": "abstract_algebra", "choices": ["Yes", "No", "Only finite ones", "Only Z"], "answer": 0},
    {"question": "How many elements does S_3 have?", "subject": "abstract_algebra", "choices": ["3", "6", "9", "27"], "answer": 1},
]

QA_ROWS = [
    {"question": "What is 2 + 3?", "answer": "5"},
    {"question": "Spell cat backwards.", "answer": "tac"},
    {"question": "First letter of the alphabet?", "answer": "a"},
]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_tasks(folder: Path) -> Path:
    """Write the four tasks and their data into ``folder``; return it."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data"
    data.mkdir(exist_ok=True)
    files = {name: _jsonl(data / f"{name}.jsonl", rows) for name, rows in
             (("arc", ARC_ROWS), ("hellaswag", HELLASWAG_ROWS), ("mc", MC_ROWS), ("qa", QA_ROWS), ("mmlu", MMLU_ROWS))}
    (folder / "arc_easy_local.yaml").write_text(
        f"include: {LM_EVAL_TASKS / 'arc' / 'arc_easy.yaml'}\ntask: arc_easy_local\ntag: []\n"
        f"dataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n    test: {files['arc']}\n"
        "training_split: null\nvalidation_split: null\n")
    (folder / "hellaswag_local.yaml").write_text(
        f"include: {LM_EVAL_TASKS / 'hellaswag' / 'hellaswag.yaml'}\ntask: hellaswag_local\ntag: []\n"
        f"dataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n    validation: {files['hellaswag']}\n"
        "training_split: null\n")
    (folder / "local_mc.yaml").write_text(
        "task: local_mc\noutput_type: multiple_choice\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {files['mc']}\ntest_split: test\n"
        "doc_to_text: \"Question: {{q}}\\nAnswer:\"\ndoc_to_choice: options\ndoc_to_target: gold\n"
        "metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n"
        "metadata:\n  version: 1.0\n")
    (folder / "local_qa.yaml").write_text(
        "task: local_qa\noutput_type: generate_until\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {files['qa']}\ntest_split: test\n"
        "doc_to_text: \"Q: {{question}}\\nA:\"\ndoc_to_target: answer\n"
        "generation_kwargs:\n  until: [\"\\n\"]\n  do_sample: false\n"
        "metric_list:\n  - metric: exact_match\n    aggregation: mean\n    higher_is_better: true\n    ignore_case: true\n"
        "    ignore_punctuation: true\nmetadata:\n  version: 1.0\n")
    (folder / "mmlu_local.yaml").write_text(  # labels as choices, options inside the prompt
        f"include: {LM_EVAL_TASKS / 'mmlu' / 'default' / 'mmlu_abstract_algebra.yaml'}\ntask: mmlu_local\ntag: []\n"
        f"dataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n    test: {files['mmlu']}\n"
        f"    dev: {files['mmlu']}\n")
    return folder
