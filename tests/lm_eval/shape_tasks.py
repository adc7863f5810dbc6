"""Real lm-eval multiple-choice task configs of many shapes, on a few local rows each.

Each local task ``include:``s the installed lm-eval's own YAML and only swaps the data for jsonl
files of rows made up here in the real dataset's columns (the prompt, choices, target,
``process_docs`` and few-shot set-up stay the task's). The shapes:

- options after labels written from a list field (mmlu, mmlu_pro's Python prompt), from separate
  fields (global_mmlu ``option_a``..., openai-mmmlu/cmmlu/ceval/kmmlu ``A``-``D``, belebele
  ``mc_answer1``..., medmcqa ``opa``... in a Python prompt, arabicmmlu ``Option 1``... in a
  Python prompt with Python labels), from a nested dict (commonsense_qa ``choices.text``), as
  ``(A)`` lines from ``process_docs`` fields (gpqa) or inside the input text (leaderboard BBH);
- a task that generates the letter (kmmlu's ``direct`` tasks, scored by exact match);
- cloze tasks asked with ``--show-options``: arc_easy, hellaswag (``process_docs``), and boolq's
  word labels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lm_eval

LM_EVAL_TASKS = Path(lm_eval.__file__).resolve().parent / "tasks"


@dataclass(frozen=True)
class Shape:
    """One local task: ``name`` (also its question-id prefix), the real YAML it includes, its rows
    per split, the gold option text of a row, and whether it needs ``--show-options``."""

    name: str
    include: str
    splits: dict[str, str]  # split -> which rows ("eval" or "fewshot")
    rows: list[dict[str, Any]]
    gold: Any  # row -> gold option text
    show_options: bool = False
    extra: str = ""
    fewshot_rows: list[dict[str, Any]] = field(default_factory=list)


def _mmlu_rows() -> list[dict]:
    return [
        {"question": "Which bone protects the brain?", "subject": "anatomy", "choices": ["femur", "skull", "rib", "ulna"], "answer": 1},
        {"question": "Where is the heart?", "subject": "anatomy", "choices": ["thorax", "pelvis", "skull", "foot"], "answer": 0},
        {"question": "How many chambers does the human heart have?", "subject": "anatomy", "choices": ["1", "2", "3", "4"], "answer": 3},
    ]


GLOBAL_MMLU = [
    {"sample_id": f"college_chemistry/test/{i}", "subject": "college_chemistry", "subject_category": "STEM", "question": q,
     "option_a": a, "option_b": b, "option_c": c, "option_d": d, "answer": ans, "required_knowledge": "[]",
     "time_sensitive": "[]", "reference": "[]", "culture": "[]", "region": "[]", "country": "[]",
     "cultural_sensitivity_label": "CA", "is_annotated": True}
    for i, (q, a, b, c, d, ans) in enumerate([
        ("ما هو الرمز الكيميائي للماء؟", "CO2", "H2O", "O2", "NaCl", "B"),
        ("ما هو الغاز الذي نتنفسه؟", "الأكسجين", "الهيليوم", "النيون", "الأرجون", "A"),
        ("كم عدد البروتونات في الهيدروجين؟", "3", "2", "0", "1", "D"),
    ])]

MMMLU = [
    {"Unnamed: 0": i, "Question": q, "A": a, "B": b, "C": c, "D": d, "Answer": ans, "Subject": "high_school_computer_science"}
    for i, (q, a, b, c, d, ans) in enumerate([
        ("Qual é a base do sistema binário?", "2", "8", "10", "16", "A"),
        ("Qual estrutura segue a ordem LIFO?", "fila", "pilha", "árvore", "grafo", "B"),
        ("Quantos bits há em um byte?", "4", "16", "8", "32", "C"),
    ])]

CMMLU = [
    {"Question": q, "A": a, "B": b, "C": c, "D": d, "Answer": ans}
    for q, a, b, c, d, ans in [
        ("人体最大的器官是什么？", "心脏", "皮肤", "肝脏", "肺", "B"),
        ("成年人有多少块骨头？", "206", "300", "150", "100", "A"),
        ("血液由哪个器官泵出？", "胃", "肾", "心脏", "脑", "C"),
    ]]

CEVAL = [
    {"id": i, "question": q, "A": a, "B": b, "C": c, "D": d, "answer": ans, "explanation": ""}
    for i, (q, a, b, c, d, ans) in enumerate([
        ("TCP协议工作在哪一层？", "传输层", "网络层", "物理层", "应用层", "A"),
        ("IP地址IPv4有多少位？", "16", "64", "32", "128", "C"),
        ("HTTP默认端口是？", "21", "25", "443", "80", "D"),
    ])]

KMMLU = [
    {"question": q, "answer": ans, "A": a, "B": b, "C": c, "D": d, "Category": "Accounting", "Human Accuracy": 0.5}
    for q, a, b, c, d, ans in [
        ("자산은 부채와 무엇의 합인가?", "자본", "수익", "비용", "현금", 1),
        ("재무상태표는 무엇을 보여주는가?", "현금흐름", "특정 시점의 재무상태", "이익", "세금", 2),
        ("감가상각은 어떤 자산에 적용되는가?", "토지", "현금", "매출채권", "건물", 4),
    ]]

BELEBELE = [
    {"link": "https://en.wikibooks.org/wiki/x", "question_number": i, "flores_passage": p, "question": q,
     "mc_answer1": a, "mc_answer2": b, "mc_answer3": c, "mc_answer4": d, "correct_answer_num": ans, "dialect": "eng_Latn", "ds": "2023-05-03"}
    for i, (p, q, a, b, c, d, ans) in enumerate([
        ("The museum opens at nine and closes at five.", "When does the museum close?", "at nine", "at noon", "at five", "at seven", "3"),
        ("Tom bought three apples and ate one.", "How many apples does Tom have left?", "two", "three", "one", "none", "1"),
        ("The river freezes every winter.", "When does the river freeze?", "in summer", "in winter", "in spring", "never", "2"),
    ])]

GPQA = [
    {"Question": q, "Correct Answer": right, "Incorrect Answer 1": w1, "Incorrect Answer 2": w2, "Incorrect Answer 3": w3,
     "Explanation": "", "Subdomain": "Physics", "High-level domain": "Physics"}
    for q, right, w1, w2, w3 in [
        ("What is the SI unit of force?", "newton", "joule", "watt", "pascal"),
        ("Which particle has a negative charge?", "electron", "proton", "neutron", "photon"),
        ("What is the speed of light in vacuum, roughly?", "3e8 m/s", "3e5 m/s", "340 m/s", "1e3 m/s"),
    ]]

COMMONSENSE_QA = [
    {"id": f"cqa{i}", "question": q, "question_concept": c, "choices": {"label": list("ABCDE"), "text": opts}, "answerKey": key}
    for i, (q, c, opts, key) in enumerate([
        ("Where would you keep milk cold?", "milk", ["oven", "refrigerator", "shelf", "car", "garden"], "B"),
        ("What do you use to cut paper?", "paper", ["scissors", "spoon", "pillow", "glue", "brush"], "A"),
        ("Where do fish live?", "fish", ["desert", "tree", "sky", "cave", "water"], "E"),
    ])]

MEDMCQA = [
    {"id": f"m{i}", "question": q, "opa": a, "opb": b, "opc": c, "opd": d, "cop": ans, "choice_type": "single", "exp": "",
     "subject_name": "Physiology", "topic_name": ""}
    for i, (q, a, b, c, d, ans) in enumerate([
        ("Normal resting heart rate in adults?", "20-40", "60-100", "120-160", "200-220", 1),
        ("Which organ produces insulin?", "pancreas", "liver", "spleen", "kidney", 0),
        ("Normal body temperature in Celsius?", "32", "35", "40", "37", 3),
    ])]

BBH_DATE = [
    {"input": "Today is 3/5/2020. What is the date tomorrow in MM/DD/YYYY?\nOptions:\n(A) 03/06/2020\n(B) 03/04/2020\n(C) 04/05/2020",
     "target": "(A)"},
    {"input": "Yesterday was 12/31/1999. What is the date today in MM/DD/YYYY?\nOptions:\n(A) 12/30/1999\n(B) 01/02/2000\n"
              "(C) 01/01/2000\n(D) 12/31/2000", "target": "(C)"},
    {"input": "Today is 7/4/1776. What is the date one week from today in MM/DD/YYYY?\nOptions:\n(A) 07/10/1776\n(B) 07/11/1776\n"
              "(C) 06/27/1776\n(D) 07/04/1777\n(E) 08/04/1776", "target": "(B)"},
]

ARABICMMLU = [
    {"ID": i, "Source": "", "Country": "Egypt", "Group": "Social Science", "Subject": "Accounting", "Level": "Univ",
     "Question": q, "Context": None, "Answer Key": key, "Option 1": o[0], "Option 2": o[1], "Option 3": o[2],
     "Option 4": o[3] if len(o) > 3 else None, "Option 5": o[4] if len(o) > 4 else None, "is_few_shot": 0}
    for i, (q, o, key) in enumerate([
        ("ما هي معادلة الميزانية؟", ["الأصول = الخصوم + حقوق الملكية", "الأصول = الإيرادات", "الخصوم = المصروفات"], "A"),
        ("أي مما يلي أصل متداول؟", ["المباني", "الأراضي", "النقدية", "الآلات", "السيارات"], "C"),
        ("ما هو الإهلاك؟", ["زيادة قيمة الأصل", "توزيع تكلفة الأصل على عمره", "بيع الأصل", "شراء أصل"], "B"),
    ])]

MMLU_PRO = [
    {"question_id": 70 + i, "question": q, "options": o, "answer": "ABCDEFGHIJ"[k], "answer_index": k,
     "cot_content": "", "category": "physics", "src": "stemez"}
    for i, (q, o, k) in enumerate([
        ("What is the unit of electric resistance?", ["ohm", "volt", "ampere", "tesla", "henry", "farad"], 0),
        ("Which planet has the most moons known today?", ["Earth", "Mars", "Saturn", "Venus"], 2),
        ("What is 7 times 8?", ["54", "56", "58", "64", "48", "72", "63", "49", "42", "81"], 1),
    ])]

MMLU_PRO_FEWSHOT = [
    {"question_id": i, "question": f"Sample physics question {i}?", "options": ["alpha", "beta", "gamma", "delta"],
     "answer": "B", "answer_index": 1, "cot_content": "A: Let's think step by step. The answer is (B).",
     "category": "physics", "src": "stemez"} for i in range(5)]

ARC = [
    {"id": "Mercury_1", "question": "Which planet is closest to the Sun?",
     "choices": {"text": ["Venus", "Mercury", "Mars", "Earth"], "label": ["A", "B", "C", "D"]}, "answerKey": "B"},
    {"id": "NYSED_3", "question": "Which animal is a mammal?",
     "choices": {"text": ["shark", "frog", "whale", "trout"], "label": ["1", "2", "3", "4"]}, "answerKey": "3"},
    {"id": "ACTAAP_4", "question": "Water freezes at what temperature in Celsius?",
     "choices": {"text": ["100", "0", "50", "-40"], "label": ["A", "B", "C", "D"]}, "answerKey": "B"},
]

HELLASWAG = [
    {"ind": 8, "activity_label": "Baking cookies", "ctx_a": "A woman mixes flour and sugar in a bowl.", "ctx_b": "she",
     "ctx": "", "endings": ["pours the batter onto a tray.", "throws the bowl away.", "sings to the bowl.", "paints the oven."],
     "source_id": "activitynet~v_x", "split": "val", "split_type": "indomain", "label": "0"},
    {"ind": 9, "activity_label": "Washing hands", "ctx_a": "A child turns on the tap.", "ctx_b": "the child",
     "ctx": "", "endings": ["drinks the soap.", "rubs soap between the hands.", "leaves the room.", "climbs the sink."],
     "source_id": "wikihow~1", "split": "val", "split_type": "zeroshot", "label": "1"},
    {"ind": 12, "activity_label": "Walking the dog", "ctx_a": "A man clips a leash to the dog.", "ctx_b": "they",
     "ctx": "", "endings": ["fly to the moon.", "bake a cake.", "walk out of the door.", "paint the fence."],
     "source_id": "activitynet~v_y", "split": "val", "split_type": "indomain", "label": "2"},
]

BOOLQ = [
    {"question": "is the sun a star", "passage": "The Sun is the star at the centre of the Solar System.", "idx": 0, "label": 1},
    {"question": "is a whale a fish", "passage": "Whales are marine mammals that breathe air.", "idx": 1, "label": 0},
    {"question": "does ice float on water", "passage": "Ice is less dense than liquid water.", "idx": 2, "label": 1},
]

SHAPES: list[Shape] = [
    Shape("mmlu_anatomy", "mmlu/default/mmlu_anatomy.yaml", {"test": "eval", "dev": "eval"}, _mmlu_rows(),
          lambda r: r["choices"][r["answer"]]),
    Shape("global_mmlu_ar_stem", "global_mmlu/default/ar/global_mmlu_ar_stem.yaml", {"test": "eval", "dev": "eval"},
          GLOBAL_MMLU, lambda r: r["option_" + r["answer"].lower()]),
    Shape("mmmlu_pt_br_high_school_computer_science", "openai-mmmlu/default/mmmlu_pt_br_high_school_computer_science.yaml",
          {"test": "eval"}, MMMLU, lambda r: r[r["Answer"]]),
    Shape("cmmlu_anatomy", "cmmlu/cmmlu_anatomy.yaml", {"test": "eval", "dev": "eval"}, CMMLU, lambda r: r[r["Answer"]]),
    Shape("ceval-valid_computer_network", "ceval/ceval-valid_computer_network.yaml", {"val": "eval", "dev": "eval"}, CEVAL,
          lambda r: r[r["answer"]]),
    Shape("kmmlu_accounting", "kmmlu/default/kmmlu_accounting.yaml", {"test": "eval", "dev": "eval"}, KMMLU,
          lambda r: r["ABCD"[r["answer"] - 1]]),
    Shape("kmmlu_direct_accounting", "kmmlu/direct/kmmlu_direct_accounting.yaml", {"test": "eval", "dev": "eval"}, KMMLU,
          lambda r: r["ABCD"[r["answer"] - 1]]),  # generates the letter
    Shape("belebele_eng_Latn", "belebele/belebele_eng_Latn.yaml", {"test": "eval"}, BELEBELE,
          lambda r: r[f"mc_answer{r['correct_answer_num']}"]),
    Shape("gpqa_main_zeroshot", "gpqa/zeroshot/gpqa_main_zeroshot.yaml", {"train": "eval"}, GPQA, lambda r: r["Correct Answer"]),
    Shape("commonsense_qa", "commonsense_qa/default.yaml", {"validation": "eval", "train": "eval"}, COMMONSENSE_QA,
          lambda r: r["choices"]["text"][r["choices"]["label"].index(r["answerKey"])]),
    Shape("medmcqa", "medmcqa/medmcqa.yaml", {"validation": "eval", "train": "eval"}, MEDMCQA,
          lambda r: r["op" + "abcd"[r["cop"]]]),
    Shape("leaderboard_bbh_date_understanding", "leaderboard/bbh_mc/date_understanding.yaml", {"test": "eval"}, BBH_DATE,
          lambda r: next(line[4:] for line in r["input"].splitlines() if line.startswith(r["target"]))),
    Shape("arabicmmlu_accounting_university", "arabicmmlu/arabicmmlu_accounting_university.yaml", {"test": "eval", "dev": "eval"},
          ARABICMMLU, lambda r: r[f"Option {'ABCDE'.index(r['Answer Key']) + 1}"]),
    Shape("leaderboard_mmlu_pro", "leaderboard/mmlu_pro/mmlu_pro.yaml", {"test": "eval", "validation": "fewshot"}, MMLU_PRO,
          lambda r: r["options"][r["answer_index"]], fewshot_rows=MMLU_PRO_FEWSHOT),
    Shape("arc_easy", "arc/arc_easy.yaml", {"test": "eval"}, ARC,
          lambda r: r["choices"]["text"][r["choices"]["label"].index(r["answerKey"])], show_options=True,
          extra="training_split: null\nvalidation_split: null\n"),
    Shape("hellaswag", "hellaswag/hellaswag.yaml", {"validation": "eval"}, HELLASWAG,
          lambda r: r["endings"][int(r["label"])], show_options=True, extra="training_split: null\n"),
    Shape("boolq", "super_glue/boolq/default.yaml", {"validation": "eval"}, BOOLQ, lambda r: ["no", "yes"][r["label"]],
          show_options=True, extra="training_split: null\n"),
]


def local_name(shape: Shape) -> str:
    return f"{shape.name}_local"


def write_shape_tasks(folder: Path) -> Path:
    """Write every shape's local task YAML and data into ``folder``; return it."""
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    for shape in SHAPES:
        files = {}
        for split, which in shape.splits.items():
            path = data / f"{shape.name}_{split}.jsonl"
            rows = shape.rows if which == "eval" else shape.fewshot_rows
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            files[split] = path
        data_files = "".join(f"    {split}: {path}\n" for split, path in files.items())
        (folder / f"{local_name(shape)}.yaml").write_text(
            f"include: {LM_EVAL_TASKS / shape.include}\ntask: {local_name(shape)}\ntag: []\n"
            f"dataset_path: json\ndataset_name: null\ndataset_kwargs:\n  data_files:\n{data_files}" + shape.extra,
            encoding="utf-8")
    return folder


def gold_by_question() -> dict[str, str]:
    """Every row's gold option text, keyed by its question text (see :func:`question_of`)."""
    return {question_of(r): " ".join(str(s.gold(r)).split()) for s in SHAPES for r in s.rows}


def question_of(doc: dict) -> str:
    """The question text of a row of any shape above (each is distinct)."""
    for key in ("input", "Question", "question", "ctx_a"):
        if isinstance(doc.get(key), str):
            return doc[key]
    raise KeyError(f"no question field in {sorted(doc)}")
