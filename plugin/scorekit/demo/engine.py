"""lm-eval's ``hf`` model with a generation loop that reads each shared prompt prefix once.

SCORE's prompts repeat a lot: the five non-greedy samples of a question are one prompt, the
option orders of a question share everything up to the options, and every chat prompt opens
with the same system turn. lm-eval's ``hf`` model hands a batch to ``model.generate``, which
reads every prompt whole and keeps computing a row after it ends. :class:`SharedPrefixHFLM`
replaces only that step (``_model_generate``), with the same inputs and output:

- **Prefill**: the batch's distinct prompts are read one after another in sorted order, each
  starting from the key/value cache of the previous one cut back to their common prefix (so
  the batch's prompt tokens are read as a prefix tree, once per tree node); their caches are
  then stacked, left-padded, into one batch cache.
- **Decode**: one token per row per step; a row leaves the batch when it ends (an EOS token or
  a stop string), so finished rows cost nothing.

Greedy rows get the tokens ``generate`` gives up to floating-point rounding of a different
batch shape (a near tie can flip, as between two batch sizes of ``generate``). Sampled rows
follow the same distribution as ``generate``'s (temperature, then top-k, default 50 as in
transformers, then top-p, min-p), drawn in another order. Any other generation setting, a
non-causal model or a cache that is not a ``DynamicCache`` goes to lm-eval's own path.

On the demo (535 answers, 2-core AMD EPYC, float32) this reads 32,700 prompt tokens instead
of 70,900 and decodes 8,600 row-steps instead of about 14,000 (docs/demo.md).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Iterator

import torch
from lm_eval.models.huggingface import HFLM

# Generation settings this loop implements; anything else goes to ``model.generate``.
_SAMPLING_KEYS = {"do_sample", "temperature", "top_k", "top_p", "min_p"}
_DEFAULT_TOP_K = 50  # transformers' documented default for sampling


class SharedPrefixHFLM(HFLM):
    """lm-eval's ``hf`` model; only ``_model_generate`` differs (see the module docstring)."""

    def _model_generate(self, context: torch.Tensor, max_length: int, stop: list[str], **generation_kwargs: Any):
        attention_mask = generation_kwargs.pop("attention_mask", None)
        if (set(generation_kwargs) - _SAMPLING_KEYS or self.backend != "causal" or attention_mask is None
                or getattr(self, "mixed_precision_dtype", None) is not None or attention_mask.sum(dim=1).min() < 2):
            return super()._model_generate(context, max_length, stop, attention_mask=attention_mask, **generation_kwargs)
        rows = [ids[mask.bool()].tolist() for ids, mask in zip(context, attention_mask)]
        with torch.inference_mode():
            new = self._decode(rows, max_length - context.shape[1], stop, generation_kwargs)
        out = torch.full((len(rows), context.shape[1] + max(map(len, new), default=0)), self.tokenizer.pad_token_id,
                         dtype=context.dtype)
        out[:, : context.shape[1]] = context
        for i, tokens in enumerate(new):
            out[i, context.shape[1]: context.shape[1] + len(tokens)] = torch.tensor(tokens, dtype=context.dtype)
        return out

    def _prefill(self, rows: list[list[int]]):
        """Cache of every row but its last token, as one left-padded batch: ``(cache, mask)``."""
        from transformers import DynamicCache

        distinct = sorted(set(map(tuple, rows)))
        cache, done = DynamicCache(), ()
        snapshots: dict[tuple, list[tuple[torch.Tensor, torch.Tensor]]] = {}
        for row in distinct:
            body = row[:-1]
            shared = 0
            while shared < min(len(done), len(body)) and done[shared] == body[shared]:
                shared += 1
            if shared < len(done):
                cache.crop(shared - len(done))  # negative: drop that many tokens (every transformers version)
            if shared < len(body):
                self.model(torch.tensor([body[shared:]]), **self._cache_arg(cache), use_cache=True,
                           position_ids=torch.arange(shared, len(body))[None], logits_to_keep=1)
            done = body
            snapshots[row] = [(layer.keys[..., : len(body), :].clone(), layer.values[..., : len(body), :].clone())
                              for layer in cache.layers]
        width = max(len(r) - 1 for r in rows)
        mask = torch.zeros(len(rows), width, dtype=torch.long)
        batch = DynamicCache()
        for layer in range(len(cache.layers)):
            keys, values = [], []
            for i, row in enumerate(rows):
                k, v = snapshots[tuple(row)][layer]
                pad = width - k.shape[-2]
                keys.append(torch.nn.functional.pad(k, (0, 0, pad, 0)))
                values.append(torch.nn.functional.pad(v, (0, 0, pad, 0)))
                mask[i, pad:] = 1
            batch.update(torch.cat(keys), torch.cat(values), layer)
        return batch, mask

    def _decode(self, rows: list[list[int]], max_new: int, stop: list[str], settings: dict) -> list[list[int]]:
        """Up to ``max_new`` new tokens per row, each row stopping at an EOS token or a stop string."""
        sample = bool(settings.get("do_sample")) and float(settings.get("temperature", 1.0) or 0) > 0
        eos = self._eos_ids()
        eos_text = {self.tokenizer.decode([i]) for i in eos}
        strings = [s for s in stop or [] if s and s not in eos_text]
        cache, mask = self._prefill(rows)
        alive = list(range(len(rows)))
        new: list[list[int]] = [[] for _ in rows]
        last = torch.tensor([[r[-1]] for r in rows])
        position = torch.tensor([[len(r) - 1] for r in rows])
        for _ in range(max(max_new, 0)):
            mask = torch.cat([mask, torch.ones(len(alive), 1, dtype=mask.dtype)], dim=1)
            logits = self.model(last, attention_mask=mask, position_ids=position, **self._cache_arg(cache),
                                use_cache=True).logits[:, -1, :].float()
            chosen = _sample(logits, settings) if sample else logits.argmax(dim=-1)
            keep = []
            for j, token in enumerate(chosen.tolist()):
                row = alive[j]
                new[row].append(token)
                ended = token in eos or (strings and any(s in self.tokenizer.decode(new[row]) for s in strings))
                if not ended:
                    keep.append(j)
            if not keep:
                break
            if len(keep) < len(alive):
                index = torch.tensor(keep)
                cache.batch_select_indices(index)
                mask, position, chosen = mask[index], position[index], chosen[index]
                alive = [alive[j] for j in keep]
            last, position = chosen[:, None], position + 1
        return new

    def _cache_arg(self, cache) -> dict:
        # transformers 5 renames forward's ``past_key_values`` to ``cache`` (the old name warns)
        import inspect

        return {"cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values": cache}

    def _eos_ids(self) -> set[int]:
        ids = self.model.generation_config.eos_token_id
        ids = set(ids if isinstance(ids, list) else [] if ids is None else [ids])
        if self.tokenizer.eos_token_id is not None:
            ids.add(self.tokenizer.eos_token_id)
        return ids


def _sample(logits: torch.Tensor, settings: dict) -> torch.Tensor:
    """One token per row: temperature, then top-k (default 50), top-p and min-p, as transformers
    applies them for ``do_sample=True``."""
    logits = logits / float(settings.get("temperature", 1.0))
    top_k = settings.get("top_k", _DEFAULT_TOP_K)
    if top_k:
        kth = torch.topk(logits, min(int(top_k), logits.shape[-1])).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    top_p = settings.get("top_p")
    if top_p is not None and float(top_p) < 1.0:
        ordered, order = torch.sort(logits, descending=False)
        cumulative = ordered.softmax(dim=-1).cumsum(dim=-1)
        drop = cumulative <= 1 - float(top_p)
        drop[:, -1] = False
        logits = logits.masked_fill(drop.scatter(1, order, drop), float("-inf"))
    min_p = settings.get("min_p")
    if min_p:
        probs = logits.softmax(dim=-1)
        logits = logits.masked_fill(probs < float(min_p) * probs.max(dim=-1, keepdim=True).values, float("-inf"))
    return torch.multinomial(logits.softmax(dim=-1), 1)[:, 0]


@contextlib.contextmanager
def gguf_read_once() -> Iterator[None]:
    """While lm-eval loads a model from a GGUF file, read the file once.

    transformers reads the file's metadata for the config, the tokenizer and the model, then
    its tensors, and rebuilds gguf's tensor-name table for every module: 21 s of CPU for
    SmolLM2-135M, about half the demo's wait before the first answer. Inside this block
    ``gguf.GGUFReader`` and ``gguf.get_tensor_name_map`` return the first result for the same
    arguments (bench/demo_load.py measures both ways). transformers imports both names from
    ``gguf`` when it calls them, which is why replacing them there is enough.
    """
    import gguf

    saved = gguf.GGUFReader, gguf.get_tensor_name_map
    gguf.GGUFReader = functools.lru_cache(maxsize=None)(gguf.GGUFReader)
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(gguf.get_tensor_name_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = saved
