"""lm-eval's own command line with the demo's generation loop as model ``hf-shared-prefix``.

``scorekit.demo.engine.SharedPrefixHFLM`` is lm-eval's ``hf`` model with a generation loop that
reads shared prompt prefixes once (same greedy text as ``model.generate`` up to rounding; see
docs/demo.md); this registers it under a name and hands the arguments to lm-eval's
``cli_evaluate``, so a long run over real questions costs what the demo's loop costs. The GGUF
file is read once while the model loads (``gguf_read_once``). Every other argument is lm-eval's::

    python bench/lm_eval_shared_prefix.py --model hf-shared-prefix \\
        --model_args pretrained=DIR,gguf_file=FILE,dtype=bfloat16 --tasks ... --log_samples ...
"""

from __future__ import annotations

import sys


def main() -> None:
    from lm_eval.__main__ import cli_evaluate
    from lm_eval.api.registry import register_model

    from scorekit.demo.engine import SharedPrefixHFLM, gguf_read_once

    register_model("hf-shared-prefix")(SharedPrefixHFLM)
    with gguf_read_once():
        cli_evaluate()


if __name__ == "__main__":
    sys.exit(main())
