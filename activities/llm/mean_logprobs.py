"""Mean log-prob of each conversation's last (assistant) message under a local checkpoint, on CPU or GPU.

The CPU stand-in for vLLM's prompt log-probs (activities/llm/logprob-api.ts asks a served model for the same
number): SWEET-RL ranks a candidate turn by the critic's mean log-prob of it minus the policy's (sweet_rl
scripts/rank_best_of_n.py). Used by the data builder when the serving kind gives no prompt log-probs
(`transformers serve`).

    python mean_logprobs.py --model DIR < items.jsonl > means.jsonl

Each input line is {"messages": [..., {"role": "assistant", "content": ...}]}; each output line, in order,
{"mean": float, "tokens": int}: the mean over the tokens after the chat template's rendering of the other messages
with the generation prompt (the action and the template's end-of-turn marker), as logprob-api.ts counts them.
A bad line exits with code 2 and one message naming it.
"""

import argparse
import json
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def fail(message):
    print(f"mean_logprobs.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_items(stream):
    items = []
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as err:
            fail(f"line {number}: not JSON ({err})")
        messages = item.get("messages") if isinstance(item, dict) else None
        if not isinstance(messages, list) or len(messages) < 2 or messages[-1].get("role") != "assistant":
            fail(f"line {number}: messages must be a list ending in an assistant message")
        items.append(messages)
    return items


def token_ids(tokenizer, messages, add_generation_prompt):
    out = tokenizer.apply_chat_template(messages, add_generation_prompt=add_generation_prompt, tokenize=True)
    # transformers 5 returns a BatchEncoding for tokenize=True; older versions a list of ids.
    return list(out["input_ids"] if hasattr(out, "keys") else out)


@torch.no_grad()
def mean_logprob(model, tokenizer, messages, device):
    prefix = token_ids(tokenizer, messages[:-1], True)
    full = token_ids(tokenizer, messages, False)
    if full[: len(prefix)] != prefix or len(full) <= len(prefix):
        raise ValueError("the chat template does not render the context as a prefix of the whole conversation")
    ids = torch.tensor([full], device=device)
    logits = model(ids).logits[0, :-1].float()
    targets = ids[0, 1:]
    logprobs = torch.log_softmax(logits, dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)
    action = logprobs[len(prefix) - 1 :]
    return float(action.mean()), int(action.numel())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="checkpoint directory (weights + tokenizer with a chat template)")
    args = parser.parse_args()
    items = read_items(sys.stdin)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model).to(device).eval()
    for number, messages in enumerate(items, start=1):
        try:
            mean, tokens = mean_logprob(model, tokenizer, messages, device)
        except ValueError as err:
            fail(f"item {number}: {err}")
        print(json.dumps({"mean": mean, "tokens": tokens}), flush=True)


if __name__ == "__main__":
    main()
