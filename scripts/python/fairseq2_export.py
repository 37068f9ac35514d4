#!/usr/bin/env python3
"""Finish a fairseq2 0.4 run as a directory the next iteration can serve and continue from.

fairseq2 0.4 has no Hugging Face weight exporter: `fairseq2 llama write_hf_config` (the step before this one) puts
config.json in OUT; this script links the latest complete checkpoint's consolidated weights (checkpoints/step_N,
never step_N.tmp) into OUT, copies the base model's tokenizer files, and writes fairseq2-run.json so the next
iteration's fairseq2 run continues from these weights (common.assets.checkpoint_dir=... model.name=last_checkpoint).
Usage: fairseq2_export.py --checkpoint-dir WORK/checkpoints --base BASE_DIR --out OUT"""
import argparse
import json
import os
import re
import shutil
import sys

PROG = "fairseq2_export.py"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "special_tokens_map.json",
                   "chat_template.jinja", "generation_config.json")


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--checkpoint-dir", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    steps = []
    for name in os.listdir(a.checkpoint_dir) if os.path.isdir(a.checkpoint_dir) else []:
        m = re.fullmatch(r"step_(\d+)", name)
        if m:
            steps.append((int(m.group(1)), os.path.join(a.checkpoint_dir, name)))
    if not steps:
        print(f"{PROG}: no complete checkpoints/step_N in {a.checkpoint_dir}", file=sys.stderr)
        return 2
    step, ckpt = max(steps)
    weights = [f for f in sorted(os.listdir(ckpt)) if re.fullmatch(r"model(\.\d+)?\.pt", f)]
    if not weights:
        print(f"{PROG}: {ckpt} holds no model*.pt", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    for w in weights:
        dst = os.path.join(a.out, w)
        if os.path.lexists(dst):
            os.remove(dst)
        os.link(os.path.join(ckpt, w), dst) if os.stat(ckpt).st_dev == os.stat(a.out).st_dev else shutil.copy2(os.path.join(ckpt, w), dst)
    for f in TOKENIZER_FILES:
        if os.path.isfile(os.path.join(a.base, f)):
            shutil.copy2(os.path.join(a.base, f), os.path.join(a.out, f))
    with open(os.path.join(a.out, "fairseq2-run.json"), "w") as f:
        json.dump({"checkpointDir": os.path.abspath(a.checkpoint_dir), "step": step, "weights": weights}, f, indent=2)
    print(f"collab-loop-checkpoint {{\"path\": \"{ckpt}\", \"step\": {step}}}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
