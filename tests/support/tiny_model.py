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


def build_tiny_llama(out_dir: str | Path, *, seed: int = 1234, vocab_size: int = 400) -> Path:
    """Write a ~100k-parameter Llama model and its tokenizer to ``out_dir``; return the path."""
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
        num_attention_heads=2,
        num_key_value_heads=2,
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
