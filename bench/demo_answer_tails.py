"""How many of a demo run's answers need the tail of the 24/32-token caps (docs/demo.md, "What the demo computes").

Every answer of the run's samples logs is re-tokenized with SmolLM2's tokenizer; for an answer that
parses (``scorekit.robustness.extract``: the choice of a multiple-choice answer, MATH's answer),
the fewest leading tokens whose text already parses to the same answer. Printed per benchmark and
family: answers, mean tokens, answers at the cap, answers that parse, and how many of those need
more than 16, 20 and 24 tokens (what a shorter cap would change).

    python bench/demo_answer_tails.py scorekit-demo/lm_eval/SmolLM2-135M-Instruct-Q4_1
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import warnings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", help="the folder of the run's samples_*.jsonl")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    from transformers import AutoTokenizer

    from scorekit.demo.model import smollm2_gguf
    from scorekit.demo.pipeline import MAX_GEN_TOKS
    from scorekit.robustness.extract import extract_choice, extract_math_answer

    path = smollm2_gguf()
    tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    stats = collections.defaultdict(list)
    for name in sorted(glob.glob(f"{args.run_dir}/samples_*.jsonl")):
        for line in open(name, encoding="utf-8"):
            row = json.loads(line)
            doc = row["doc"]
            bench, n = doc["benchmark"], len(doc.get("options") or [])
            parse = extract_math_answer if bench == "math" else (lambda t, n=n: extract_choice(t, n))
            for text in (x for resp in row["resps"] for x in (resp if isinstance(resp, list) else [resp])):
                ids = tok(text, add_special_tokens=False)["input_ids"]
                final = parse(text)
                need = None if final is None else next(
                    (k for k in range(1, len(ids) + 1) if parse(tok.decode(ids[:k])) == final), len(ids))
                stats[(bench, doc["family"])].append((len(ids), need))
    for (bench, family), rows in sorted(stats.items()):
        cap = MAX_GEN_TOKS[bench]
        needs = [need for _, need in rows if need is not None]
        print(f"{bench:9s} {family:13s} {len(rows):4d} answers, mean {sum(n for n, _ in rows) / len(rows):5.1f} tokens, "
              f"{sum(n >= cap for n, _ in rows):3d} at the cap of {cap}; {len(needs):3d} parse, needing more than "
              f"16: {sum(k > 16 for k in needs)}, 20: {sum(k > 20 for k in needs)}, 24: {sum(k > 24 for k in needs)}"
              f" (most {max(needs, default=0)})")


if __name__ == "__main__":
    main()
