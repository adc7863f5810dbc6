"""lm-eval's data-parallel path on CPU: ``torchrun --nproc_per_node N tests/support/cpu_data_parallel.py
<lm_eval arguments> --model hf-cpu-dp ...``.

lm-eval 0.4.13's ``hf`` model shards documents over the processes of ``accelerate launch`` only when
there are several CUDA devices (``torch.cuda.device_count() > 1``); on a CPU machine every process
evaluates every document as rank 0 of 1 (and ``accelerate launch --num_processes 2 --cpu`` starts a
single process anyway). ``hf-cpu-dp`` is the ``hf`` model with that one condition lifted: under a
multi-process launch it takes its rank and world size from accelerate (gloo on CPU), exactly as
``hf`` does with GPUs, so lm-eval's evaluator shards the documents, pads the ranks, gathers the
per-document metrics and samples to rank 0 and aggregates there: the path a multi-GPU
``accelerate launch -m lm_eval --model hf`` run takes. Generation is ``hf``'s own.

This file registers the model and then runs lm-eval's command line with the given arguments.
"""

from __future__ import annotations

import sys

from lm_eval.api.registry import register_model
from lm_eval.models.huggingface import HFLM


@register_model("hf-cpu-dp")
class CpuDataParallelHFLM(HFLM):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        accelerator = getattr(self, "accelerator", None)  # set by HFLM under a multi-process launch
        if accelerator is not None and accelerator.num_processes > 1:
            self._rank = accelerator.process_index
            self._world_size = accelerator.num_processes
            print(f"cpu-data-parallel: rank {self._rank} of {self._world_size}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()
