"""Build a tiny, randomly initialised Llama model with a byte-level BPE tokenizer.

Used by the end-to-end tests that exercise the real ``--model hf`` path of lm-eval and the
``accelerate`` path of lighteval without downloading anything. The model is built with the
installed transformers, so its files always load with the same version.
"""

from __future__ import annotations

from pathlib import Path

# Plenty of the characters SCORE prompts use, so the tokenizer rarely falls back to bytes.
_CORPUS = [
    "The following are multiple choice questions. Think step by step and then finish your "
    "answer with 'the best answer is (X)' where X is the correct letter choice.",
    "Question: What is the capital of France? Options: A: Paris B: London C: Rome D: Berlin",
    "Answer: The best answer is C. Let's think step by step. Therefore the answer is A.",
    "Solve the problem. Put your final answer within \\boxed{}. The answer is \\boxed{42}.",
    "0123456789 + - * / = ( ) [ ] { } < > ^ _ \\frac \\sqrt x y z n k",
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ .,:;!?'\"",
    "system user assistant <|im_start|> <|im_end|>",
]

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tiny_llama(out_dir: str | Path, *, seed: int = 1234, vocab_size: int = 400, heads: int = 2,
                     kv_heads: int = 2) -> Path:
    """Write a ~100k-parameter Llama model and its tokenizer to ``out_dir``; return the path.
    ``kv_heads`` below ``heads`` groups the query heads, as SmolLM2's 9 over 3."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|im_start|>",
        eos_token="<|endoftext|>",
        pad_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.model_max_length = 4096
    fast.save_pretrained(out)

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=4096,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(config)
    model.eval()
    model.save_pretrained(out, safe_serialization=True)
    return out


def build_letter_llama(out_dir: str | Path, *, seed: int = 1234, scale: float = 20.0) -> Path:
    """The tiny Llama of :func:`build_tiny_llama`, rewired so its next token is one of the letters
    A-J, chosen by the prompt: a one-token generation is then a parsable SCORE answer that
    depends on the question, the template and the option order (a random model answers nothing
    parsable, and every robustness number would be 0).

    The final norm keeps only hidden dimensions 0 and 1, and the (tied) embedding rows of the ten
    letters point in ten directions of that plane with length ``scale``; every other token's row
    is 0 there. The logit of a letter is ``scale`` times the projection of the last hidden state
    on its direction (every other token: 0), so the letter most aligned with the prompt's last
    hidden state wins, and sampling at temperature 0.7 still varies between close letters.
    """
    import math

    import torch
    from transformers import AutoTokenizer, LlamaForCausalLM

    out = build_tiny_llama(out_dir, seed=seed)
    tok = AutoTokenizer.from_pretrained(out)
    model = LlamaForCausalLM.from_pretrained(out)
    letters = [tok.convert_tokens_to_ids(c) for c in "ABCDEFGHIJ"]
    assert tok.unk_token_id not in letters, "the tokenizer lacks single-letter tokens"
    with torch.no_grad():
        norm = model.model.norm.weight
        norm.zero_()
        norm[:2] = 1.0
        emb = model.model.embed_tokens.weight
        emb[:, :2] = 0.0
        for i, t in enumerate(letters):
            angle = 2 * math.pi * i / len(letters)
            emb[t, 0], emb[t, 1] = scale * math.cos(angle), scale * math.sin(angle)
    model.save_pretrained(out, safe_serialization=True)
    return out
