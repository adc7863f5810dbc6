"""lm-eval's ``hf`` model with a generation loop that reads each shared prompt prefix once.

SCORE's prompts repeat a lot: the five non-greedy samples of a question are one prompt, the
option orders of a question share everything up to the options, and every chat prompt opens
with the same system turn. lm-eval's ``hf`` model hands a batch to ``model.generate``, which
reads every prompt whole and keeps computing a row after it ends. :class:`SharedPrefixHFLM`
replaces only that step (``_model_generate``), with the same inputs and output:

- **Prefill**: the batch's distinct prompts form a prefix tree whose nodes are the runs of
  tokens they share; each node is read once, a tree level's nodes of similar length in one
  forward pass after their parents' caches. The prompts' caches are then stacked, left-padded, into one
  batch cache.
- **Decode**: one token per row per step; a row leaves the batch when it ends (an EOS token or
  a stop string), so finished rows cost nothing.

Greedy rows get the tokens ``generate`` gives up to floating-point rounding of a different
batch shape (a near tie can flip, as between two batch sizes of ``generate``). Sampled rows
follow the same distribution as ``generate``'s (temperature, then top-k, default 50 as in
transformers, then top-p, min-p), drawn in another order. Any other generation setting, a
non-causal model or mixed precision goes to lm-eval's own path.

On the demo (535 answers, 2-core AMD EPYC, float32) this reads 32,700 prompt tokens instead
of 70,900 and decodes 8,600 row-steps instead of about 14,000 (docs/demo.md).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
from dataclasses import dataclass
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
        """Cache of every row but its last token, as one left-padded batch: ``(cache, mask)``.

        The distinct prompts form a prefix tree whose nodes are the runs of tokens they share
        (:func:`_prefix_tree`); a node is read once, the nodes of one tree level whose runs are
        within 2x of each other's length in one forward pass, each after its parent's cache.
        """
        from transformers import DynamicCache

        nodes, ends = _prefix_tree(sorted({tuple(r[:-1]) for r in rows}))
        paths: dict[int, list] = {}  # node -> its whole path's (keys, values) per layer, [heads, length, dim]
        done: list[int] = []
        level = [i for i, node in enumerate(nodes) if node.parent is None]
        while level:
            # one pass per run of similar lengths: padding to a level's longest run doubled the work
            runs = sorted(level, key=lambda i: -len(nodes[i].tokens))
            while runs:
                chunk = [i for i in runs if 2 * len(nodes[i].tokens) >= len(nodes[runs[0]].tokens)]
                self._read_nodes(nodes, chunk, paths)
                runs = runs[len(chunk):]
            for i in set(done) - set(ends.values()):
                del paths[i]  # its children are read and no prompt ends there
            done, read = level, set(level)
            level = [i for i, node in enumerate(nodes) if node.parent in read]
        width = max(len(r) - 1 for r in rows)
        mask = torch.zeros(len(rows), width, dtype=torch.long)
        batch = DynamicCache()
        layers = len(next(iter(paths.values())))
        for layer in range(layers):
            keys, values = [], []
            for i, row in enumerate(rows):
                k, v = paths[ends[tuple(row[:-1])]][layer]
                keys.append(_left_pad(k, width)[None])
                values.append(_left_pad(v, width)[None])
                mask[i, width - k.shape[-2]:] = 1
            batch.update(torch.cat(keys), torch.cat(values), layer)
        return batch, mask

    def _read_nodes(self, nodes: list[_Node], level: list[int], paths: dict[int, list]) -> None:
        """One forward pass over the tokens of the nodes ``level`` (one tree level), each after
        its parent's path (left-padded in the cache); stores each node's whole path in ``paths``."""
        from transformers import DynamicCache

        parents = [paths[nodes[i].parent] if nodes[i].parent is not None else None for i in level]
        before = max(p[0][0].shape[-2] if p else 0 for p in parents)
        after = max(len(nodes[i].tokens) for i in level)
        tokens = torch.full((len(level), after), self.tokenizer.pad_token_id or 0, dtype=torch.long)
        mask = torch.zeros(len(level), before + after, dtype=torch.long)
        position = torch.zeros(len(level), after, dtype=torch.long)
        for row, (i, parent) in enumerate(zip(level, parents)):
            run, known = nodes[i].tokens, parent[0][0].shape[-2] if parent else 0
            tokens[row, after - len(run):] = torch.tensor(run)
            mask[row, before - known: before] = 1
            mask[row, before + after - len(run):] = 1
            position[row, after - len(run):] = torch.arange(known, known + len(run))
        cache = DynamicCache()
        if before:  # a tree level below the roots: every node has a parent
            for layer in range(len(parents[0])):
                cache.update(*(torch.stack([_left_pad(p[layer][j], before) for p in parents]) for j in (0, 1)), layer)
        self.model(tokens, attention_mask=mask, position_ids=position, **self._cache_arg(cache), use_cache=True,
                   logits_to_keep=1)
        for row, (i, parent) in enumerate(zip(level, parents)):
            new = slice(before + after - len(nodes[i].tokens), None)
            paths[i] = [(torch.cat([parent[n][0], layer.keys[row, :, new]], dim=-2) if parent else layer.keys[row, :, new],
                         torch.cat([parent[n][1], layer.values[row, :, new]], dim=-2) if parent else layer.values[row, :, new])
                        for n, layer in enumerate(cache.layers)]

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
        return {self._cache_name: cache}

    @functools.cached_property
    def _cache_name(self) -> str:
        # transformers 5 renames forward's ``past_key_values`` to ``cache`` (the old name warns)
        import inspect

        return "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"

    def _eos_ids(self) -> set[int]:
        ids = self.model.generation_config.eos_token_id
        ids = set(ids if isinstance(ids, list) else [] if ids is None else [ids])
        if self.tokenizer.eos_token_id is not None:
            ids.add(self.tokenizer.eos_token_id)
        return ids


def _left_pad(states: torch.Tensor, length: int) -> torch.Tensor:
    """``[heads, n, dim]`` states with zeros before them up to ``length`` places."""
    return torch.nn.functional.pad(states, (0, 0, length - states.shape[-2], 0))


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


@dataclass(frozen=True)
class _Node:
    tokens: tuple[int, ...]  # the run of tokens this node adds to its parent's path
    parent: int | None


def _prefix_tree(prompts: list[tuple[int, ...]]) -> tuple[list[_Node], dict[tuple[int, ...], int]]:
    """The prefix tree of distinct ``prompts`` with every run of tokens they share in one node:
    ``(nodes, ends)``, ``ends[prompt]`` being the node where ``prompt`` ends.

    >>> nodes, ends = _prefix_tree([(1, 2, 3), (1, 2, 4, 5), (1, 2)])
    >>> [(n.tokens, n.parent) for n in nodes]
    [((1, 2), None), ((3,), 0), ((4, 5), 0)]
    >>> ends == {(1, 2): 0, (1, 2, 3): 1, (1, 2, 4, 5): 2}
    True
    """
    nodes: list[_Node] = []
    ends: dict[tuple[int, ...], int] = {}
    pending = [(list(prompts), 0, None)]  # (prompts sharing [:start], start, parent node)
    while pending:
        group, start, parent = pending.pop(0)
        stop = start
        while all(len(p) > stop for p in group) and len({p[stop] for p in group}) == 1:
            stop += 1
        node = parent
        if stop > start:  # (only the roots can share nothing)
            nodes.append(_Node(group[0][start:stop], parent))
            node = len(nodes) - 1
        for prompt in group:
            if len(prompt) == stop:
                ends[prompt] = node
        longer = sorted(p for p in group if len(p) > stop)
        for _, same in itertools.groupby(longer, key=lambda p: p[stop]):
            pending.append((list(same), stop, node))
    return nodes, ends
