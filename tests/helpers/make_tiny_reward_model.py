#!/usr/bin/env python3
"""A tiny sequence reward model for tests: the tiny Llama's body with a fresh one-output score head
(LlamaForSequenceClassification, num_labels 1) — the shape of a reward model such as ArmoRM that vLLM serves with its
pooling runner (detected from the architecture). Random weights: its rewards are numbers that mean nothing.

    make_tiny_reward_model.py SRC_LLAMA_DIR OUT_DIR
"""
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(src, out):
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForSequenceClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # the new score head is reported as "newly initialized": expected
    hf_logging.disable_progress_bar()
    config = LlamaConfig.from_pretrained(src)
    config.num_labels = 1
    config.architectures = ["LlamaForSequenceClassification"]
    torch.manual_seed(0)
    LlamaForSequenceClassification.from_pretrained(src, config=config).save_pretrained(out)
    AutoTokenizer.from_pretrained(src).save_pretrained(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
