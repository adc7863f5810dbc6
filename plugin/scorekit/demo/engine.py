"""lm-eval's ``hf`` model with a generation loop that reads each shared prompt prefix once.

SCORE's prompts repeat a lot: the five non-greedy samples of a question are one prompt, the
option orders of a question share everything up to the options, and every chat prompt opens
with the same system turn. lm-eval's ``hf`` model hands each batch of one generation setting
to ``model.generate``, which reads every prompt whole and keeps computing a row after it ends.
:class:`SharedPrefixHFLM` keeps lm-eval's ``generate_until`` (tokenizing, stop sequences,
post-processing, the cache hook) and computes its answers differently:

- **All requests at once.** ``generate_until`` first runs lm-eval's loop without a model to
  collect every row it would generate (prompt tokens, token budget, stop strings, sampling
  settings), answers them all, then runs lm-eval's loop again handing back those answers.
- **Prefill.** Rows are taken in the order of their prompt tokens, so prompts sharing a prefix
  are read together. A wave's distinct prompts form a prefix tree whose nodes are the runs of
  tokens they share; each node is read once, a tree level's nodes of similar length in one
  forward pass after their parents' caches.
- **Decode.** One token per row per step, rows of every setting in one batch (greedy or
  sampled is chosen per row). A row leaves when it ends (an EOS token, a stop string, its token
  budget); its place is dropped once an eighth of the batch has ended, and when half the
  batch has left the next wave joins it, so the batch stays full. The key/value cache has
  room reserved for the tokens to come, so a step writes in place.

Greedy rows get the tokens ``generate`` gives up to floating-point rounding of a different
batch shape (a near tie can flip, as between two batch sizes of ``generate``). Sampled rows
follow the same distribution as ``generate``'s (temperature, then top-k, default 50 as in
transformers, then top-p, min-p), drawn in another order. Any other generation setting, a
non-causal model, mixed precision or ``batch_size=auto`` goes to lm-eval's own path.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch
from lm_eval.models.huggingface import HFLM
from transformers.cache_utils import DynamicCache, DynamicLayer

# Generation settings this loop implements; anything else goes to ``model.generate``.
_SAMPLING_KEYS = {"do_sample", "temperature", "top_k", "top_p", "min_p"}
_DEFAULT_TOP_K = 50  # transformers' documented default for sampling
_FORCE_GQA = "TRANSFORMERS_SDPA_FORCE_GQA"


@dataclass(frozen=True)
class _Row:
    """One answer to generate: the prompt's tokens (no padding), at most ``budget`` new tokens,
    ``stop`` strings other than the EOS token's text, and the sampling ``settings``."""

    tokens: tuple[int, ...]
    budget: int
    stop: tuple[str, ...]
    settings: tuple[tuple[str, Any], ...]


class SharedPrefixHFLM(HFLM):
    """lm-eval's ``hf`` model; only how answers are computed differs (see the module docstring).

    ``on_answers``, when set, is called with the number of answers just finished;
    ``before_wave``, when set, before each wave of rows joins the batch (the demo sets torch's
    thread count there: :class:`scorekit.demo.threads.ThreadFollower`).
    """

    on_answers: Callable[[int], None] | None = None
    pass_spread: tuple[int, int] = (4, 3)  # a prompt-reading pass holds the runs within 4/3 of its longest run
    before_wave: Callable[[], None] | None = None
    _planned: list[_Row] | None = None  # while lm-eval's loop runs to collect the rows
    _answers: dict[_Row, list[list[int]]] | None = None  # while it runs to hand them back

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        if not str(self.batch_size).isdigit():  # "auto": lm-eval sizes its batches by trying them
            return super().generate_until(requests, disable_tqdm=disable_tqdm)
        hook, self.cache_hook = self.cache_hook, _NoCache()
        self._planned = []
        try:  # lm-eval's loop, collecting rows instead of generating
            super().generate_until(requests, disable_tqdm=True)
        finally:
            rows, self._planned, self.cache_hook = self._planned, None, hook
        answers: dict[_Row, list[list[int]]] = defaultdict(list)
        for row, new in zip(rows, self._answer(rows)):
            answers[row].append(new)
        self._answers = answers
        try:
            return super().generate_until(requests, disable_tqdm=disable_tqdm)
        finally:
            self._answers = None

    def _model_generate(self, context: torch.Tensor, max_length: int, stop: list[str], **generation_kwargs: Any):
        attention_mask = generation_kwargs.pop("attention_mask", None)
        if (set(generation_kwargs) - _SAMPLING_KEYS or self.backend != "causal" or attention_mask is None
                or getattr(self, "mixed_precision_dtype", None) is not None or attention_mask.sum(dim=1).min() < 2):
            if self._planned is not None:
                return context  # lm-eval's own path answers these when the loop runs again
            out = super()._model_generate(context, max_length, stop, attention_mask=attention_mask, **generation_kwargs)
            if self.on_answers is not None:
                self.on_answers(len(context))
            return out
        eos_text = {self.tokenizer.decode([i]) for i in self._eos_ids()}
        strings = tuple(s for s in stop or [] if s and s not in eos_text)
        settings = tuple(sorted(generation_kwargs.items()))
        rows = [_Row(tuple(ids[mask.bool()].tolist()), max_length - context.shape[1], strings, settings)
                for ids, mask in zip(context, attention_mask)]
        if self._planned is not None:
            self._planned.extend(rows)
            return context
        known = self._answers or {}
        missing = [row for row in rows if not known.get(row)]
        computed = iter(self._answer(missing) if missing else [])
        new = [known[row].pop() if known.get(row) else next(computed) for row in rows]
        out = torch.full((len(rows), context.shape[1] + max(map(len, new), default=0)), self.tokenizer.pad_token_id,
                         dtype=context.dtype)
        out[:, : context.shape[1]] = context
        for i, tokens in enumerate(new):
            out[i, context.shape[1]: context.shape[1] + len(tokens)] = torch.tensor(tokens, dtype=context.dtype)
        return out

    def _answer(self, rows: list[_Row]) -> list[list[int]]:
        """The new tokens of every row: waves of rows in prompt order join one decoding batch of
        at most ``batch_size`` rows whenever half of it has left."""
        width = max(1, int(self.batch_size))
        new: list[list[int]] = [[] for _ in rows]
        queue = [i for i in sorted(range(len(rows)), key=lambda i: rows[i].tokens) if rows[i].budget > 0]
        done = len(rows) - len(queue)
        if done and self.on_answers is not None:
            self.on_answers(done)
        batch = _Batch.empty()
        eos = self._eos_ids()
        with torch.inference_mode():
            while queue or batch.places:
                room = width - len(batch.live())
                if queue and 2 * room >= width:
                    if self.before_wave is not None:
                        self.before_wave()
                    wave, queue = queue[:room], queue[room:]
                    batch = self._join(batch, wave, rows, new)
                logits = self.model(batch.last, attention_mask=batch.mask, position_ids=batch.position,
                                    **self._cache_arg(batch.cache), use_cache=True).logits[:, -1, :].float()
                chosen = self._choose(logits, [rows[i].settings if i is not None else None for i in batch.places])
                ended = 0
                for j, token in enumerate(chosen.tolist()):
                    i = batch.places[j]
                    if i is None:
                        continue
                    new[i].append(token)
                    if (token in eos or len(new[i]) >= rows[i].budget
                            or (rows[i].stop and any(s in self.tokenizer.decode(new[i]) for s in rows[i].stop))):
                        batch.places[j] = None
                        ended += 1
                if ended and self.on_answers is not None:
                    self.on_answers(ended)
                batch.step(chosen)
        return new

    def _join(self, batch: _Batch, wave: list[int], rows: list[_Row], new: list[list[int]]) -> _Batch:
        """``batch`` without its ended rows, and the rows ``wave`` after reading their prompts
        but the last token: one batch whose caches are right-aligned, with room for every row's
        remaining tokens."""
        paths = self._prefill([rows[i].tokens[:-1] for i in wave])
        keep = batch.live()
        # the kept rows' longest cache: the places left of it are padding for every kept row
        kept = int(batch.mask[keep].sum(dim=1).max()) - 1 if keep else 0
        cut = batch.length - kept
        length = max([kept] + [len(rows[i].tokens) - 1 for i in wave])
        room = max([rows[i].budget - len(new[i]) for i in batch.places if i is not None] + [rows[i].budget for i in wave])
        places = [batch.places[j] for j in keep] + wave
        mask = torch.zeros(len(places), length + 1, dtype=torch.long)  # the cache, then the token read next
        if keep:
            mask[: len(keep), length - kept:] = batch.mask[keep][:, cut:]
        for n, i in enumerate(wave, start=len(keep)):
            mask[n, length - len(rows[i].tokens) + 1:] = 1
        cache = DynamicCache()
        first = next(iter(paths.values()))
        for layer in range(len(first)):
            buffers = []
            for j in (0, 1):  # keys, values
                like = first[layer][j]
                buffer = like.new_zeros(len(places), like.shape[0], length + room, like.shape[-1])
                if keep:
                    old = batch.cache.layers[layer].keys if j == 0 else batch.cache.layers[layer].values
                    buffer[: len(keep), :, length - kept: length] = old[keep][:, :, cut:]
                for n, i in enumerate(wave, start=len(keep)):
                    states = paths[rows[i].tokens[:-1]][layer][j]
                    buffer[n, :, length - states.shape[-2]: length] = states
                buffers.append(buffer)
            cache.layers.append(_ReservedLayer(*buffers, length))
            if keep:  # copied: let the old layer go before the next one is built
                batch.cache.layers[layer] = None
        last = torch.tensor([[rows[i].tokens[-1]] for i in wave], dtype=torch.long)
        position = torch.tensor([[len(rows[i].tokens) - 1] for i in wave], dtype=torch.long)
        if keep:
            last, position = torch.cat([batch.last[keep], last]), torch.cat([batch.position[keep], position])
        return _Batch(cache, mask, position, last, places, length)

    def _prefill(self, prompts: list[tuple[int, ...]]) -> dict[tuple[int, ...], list]:
        """Each distinct prompt's cache: per layer ``(keys, values)``, ``[heads, length, dim]``.

        The distinct prompts form a prefix tree whose nodes are the runs of tokens they share
        (:func:`_prefix_tree`); a node is read once, the nodes of one tree level whose runs are
        within 4/3 of each other's length in one forward pass, each after its parent's cache.
        """
        nodes, ends = _prefix_tree(sorted(set(prompts)))
        paths: dict[int, list] = {}  # node -> its whole path's (keys, values) per layer, [heads, length, dim]
        done: list[int] = []
        level = [i for i, node in enumerate(nodes) if node.parent is None]
        while level:
            # one pass per run of similar lengths: a pass pads every run to its longest
            runs = sorted(level, key=lambda i: -len(nodes[i].tokens))
            spread, one = self.pass_spread  # a run joins the pass when spread * its length >= one * the longest
            while runs:
                chunk = [i for i in runs if spread * len(nodes[i].tokens) >= one * len(nodes[runs[0]].tokens)]
                self._read_nodes(nodes, chunk, paths)
                runs = runs[len(chunk):]
            for i in set(done) - set(ends.values()):
                del paths[i]  # its children are read and no prompt ends there
            done, read = level, set(level)
            level = [i for i, node in enumerate(nodes) if node.parent in read]
        return {prompt: paths[node] for prompt, node in ends.items()}

    def _read_nodes(self, nodes: list[_Node], level: list[int], paths: dict[int, list]) -> None:
        """One forward pass over the tokens of the nodes ``level`` (one tree level), each after
        its parent's path (left-padded in the cache); stores each node's whole path in ``paths``."""
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
        with _grouped_attention():
            self.model(tokens, attention_mask=mask, position_ids=position, **self._cache_arg(cache), use_cache=True,
                       logits_to_keep=1)
        for row, (i, parent) in enumerate(zip(level, parents)):
            new = slice(before + after - len(nodes[i].tokens), None)
            paths[i] = [(torch.cat([parent[n][0], layer.keys[row, :, new]], dim=-2) if parent else layer.keys[row, :, new],
                         torch.cat([parent[n][1], layer.values[row, :, new]], dim=-2) if parent else layer.values[row, :, new])
                        for n, layer in enumerate(cache.layers)]

    def _choose(self, logits: torch.Tensor, settings: list[tuple | None]) -> torch.Tensor:
        """The next token of each batch place: greedy (the most likely) unless its settings
        sample; sampled places are drawn per setting (``None``: an ended row's place)."""
        chosen = logits.argmax(dim=-1)
        groups: dict[tuple, list[int]] = defaultdict(list)
        for j, setting in enumerate(settings):
            if setting is not None and _samples(dict(setting)):
                groups[setting].append(j)
        for setting, places in groups.items():
            index = torch.tensor(places)
            chosen[index] = _sample(logits[index], dict(setting))
        return chosen

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
    applies them for ``do_sample=True``. After top-k only the kept tokens (ties at the k-th
    included) are candidates, so the draw is over them, not the whole vocabulary."""
    logits = logits / float(settings.get("temperature", 1.0))
    top_k = settings.get("top_k", _DEFAULT_TOP_K)
    index = None
    if top_k:
        kth = torch.topk(logits, min(int(top_k), logits.shape[-1])).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
        logits, index = torch.topk(logits, int((logits > float("-inf")).sum(dim=-1).max()))
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
    drawn = torch.multinomial(logits.softmax(dim=-1), 1)
    return (drawn if index is None else index.gather(1, drawn))[:, 0]


class _ReservedLayer(DynamicLayer):
    """A cache layer whose states sit in buffers with room reserved for the tokens still to come:
    a decode step writes its position in place where ``DynamicLayer`` concatenates, copying the
    whole cache (half of a 128-row decode step's time on the demo's CPU)."""

    def __init__(self, keys: torch.Tensor, values: torch.Tensor, length: int):
        super().__init__()
        self.device, self.is_initialized = keys.device, True
        self._buffers = keys, values  # [rows, heads, capacity, dim], the first ``length`` places filled
        self._show(length)

    def _show(self, length: int) -> None:
        self.keys, self.values = (buffer[:, :, :length] for buffer in self._buffers)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any):
        start = self.keys.shape[-2]
        end = start + key_states.shape[-2]
        if end > self._buffers[0].shape[-2]:  # more tokens than reserved: grow as DynamicLayer would
            self._buffers = tuple(torch.cat([b[:, :, :start], s], dim=-2) for b, s in zip(self._buffers, (key_states, value_states)))
        else:
            self._buffers[0][:, :, start:end] = key_states
            self._buffers[1][:, :, start:end] = value_states
        self._show(end)
        return self.keys, self.values

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        length = self.keys.shape[-2]
        self._buffers = tuple(buffer[indices] for buffer in self._buffers)
        self._show(length)


@dataclass
class _Batch:
    """The rows being decoded: their cache (``length`` places, right-aligned), attention mask
    (the cache's places and the token read next), that token and its position; ``places[j]`` is the row at batch place ``j``, ``None``
    once it ended (its place is dropped when an eighth of the places are ended or a wave joins)."""

    cache: Any
    mask: torch.Tensor
    position: torch.Tensor
    last: torch.Tensor
    places: list[int | None]
    length: int

    @classmethod
    def empty(cls) -> _Batch:
        none = torch.zeros(0, 1, dtype=torch.long)
        return cls(None, none, none, none, [], 0)

    def live(self) -> list[int]:
        """The batch places whose rows have not ended."""
        return [j for j, i in enumerate(self.places) if i is not None]

    def step(self, chosen: torch.Tensor) -> None:
        """Move on one token: ``chosen`` is read at the next step (its place is now cached)."""
        self.mask = torch.cat([self.mask, torch.ones(len(self.places), 1, dtype=self.mask.dtype)], dim=1)
        self.last, self.position, self.length = chosen[:, None], self.position + 1, self.length + 1
        keep = self.live()
        if 8 * (len(self.places) - len(keep)) >= len(self.places):
            index = torch.tensor(keep, dtype=torch.long)
            if keep:
                self.cache.batch_select_indices(index)
            self.mask, self.position, self.last = self.mask[index], self.position[index], self.last[index]
            self.places = [self.places[j] for j in keep]


class _NoCache:
    """Stands in for lm-eval's cache hook while its loop only collects rows."""

    def add_partial(self, *args: Any) -> None:
        pass


def _samples(settings: dict) -> bool:
    return bool(settings.get("do_sample")) and float(settings.get("temperature", 1.0) or 0) > 0


@contextlib.contextmanager
def _grouped_attention() -> Iterator[None]:
    """Inside, transformers' ``sdpa`` attention hands the model's grouped key/value heads to torch
    as they are (``enable_gqa``) instead of copying them for every query head: reading prompts
    after their shared prefix takes 13-15% less time on the demo's CPU (float32), same answers.
    Only for reading prompts: at one token per row transformers already avoids the copies, and
    ``enable_gqa`` there made bfloat16 decoding 30% slower.
    ``TRANSFORMERS_SDPA_FORCE_GQA`` is transformers' own switch, read at every attention call
    (versions without it ignore it); torch has ``enable_gqa`` from 2.5."""
    if torch.torch_version.TorchVersion(torch.__version__) < (2, 5):
        yield
        return
    saved = os.environ.get(_FORCE_GQA)
    os.environ[_FORCE_GQA] = "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[_FORCE_GQA]
        else:
            os.environ[_FORCE_GQA] = saved


@contextlib.contextmanager
def gguf_read_once() -> Iterator[None]:
    """While lm-eval loads a model from a GGUF file, read the file once.

    transformers reads the file's metadata for the config, the tokenizer and the model, then
    its tensors, and rebuilds gguf's tensor-name table for every module: 21 s of CPU for
    SmolLM2-135M, about half the demo's wait before the first answer. Inside this block
    ``gguf.GGUFReader`` is :class:`scorekit.demo.gguf_file.GGUFFile` (the same values, read
    without gguf's per-item arrays) and returns the first result for the same path, as does
    ``gguf.get_tensor_name_map``; ``gguf.dequantize`` is :func:`scorekit.demo.gguf_file.dequantize`
    (Q4_1 in one pass, the same bits). ``python bench/bench_demo.py --load`` measures the ways
    side by side. transformers imports these names from ``gguf`` when it calls them, which is
    why replacing them there is enough.
    """
    import gguf

    from scorekit.demo import gguf_file

    saved = gguf.GGUFReader, gguf.get_tensor_name_map, gguf.dequantize
    gguf.GGUFReader = functools.lru_cache(maxsize=None)(gguf_file.GGUFFile)
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(gguf.get_tensor_name_map)
    gguf.dequantize = gguf_file.dequantize
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map, gguf.dequantize = saved


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
