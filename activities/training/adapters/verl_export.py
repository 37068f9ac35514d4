#!/usr/bin/env python3
"""Merge verl's last FSDP checkpoint into a Hugging Face directory (the next iteration serves it).

Which checkpoint: the one named by WORK/latest_checkpointed_iteration.txt, which verl's SFT trainer rewrites
atomically after global_step_N (shards, huggingface/ config and tokenizer, data.pt) is saved, and which its
resume_mode=auto reads too. The trainer always saves its last step, so after training this is the final model.
The merge is verl's own tool: python -m verl.model_merger merge --backend fsdp --local_dir ... --target_dir ...,
run into OUT.tmp and renamed, so OUT never holds half a model.

main_ppo (GRPO) keeps the policy's shards in global_step_N/actor: --subdir actor merges that folder.

Usage: verl_export.py --work-dir WORK --out HF_DIR [--subdir actor] [--dry-run]
A problem -> one line on stderr, exit 2."""
import argparse
import json
import os
import shutil
import subprocess
import sys

PROG = "verl_export.py"
TRACKER = "latest_checkpointed_iteration.txt"


def latest_checkpoint(work):
    tracker = os.path.join(work, TRACKER)
    if not os.path.isfile(tracker):
        raise ValueError(f"no {TRACKER} in {work}: training saved no checkpoint")
    with open(tracker, encoding="utf-8") as f:
        text = f.read().strip()
    if not text.isdigit():
        raise ValueError(f"{tracker} holds {text!r}, not a step number")
    step = int(text)
    ckpt = os.path.join(work, f"global_step_{step}")
    if not os.path.isdir(ckpt):
        raise ValueError(f"{tracker} names step {step}, but {ckpt} is missing")
    return step, ckpt


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--subdir", help="the model's folder inside global_step_N (main_ppo: actor)")
    ap.add_argument("--dry-run", action="store_true", help="print the merge command instead of running it")
    a = ap.parse_args()
    try:
        step, ckpt = latest_checkpoint(a.work_dir)
    except ValueError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    if a.subdir:
        ckpt = os.path.join(ckpt, a.subdir)
        if not os.path.isdir(ckpt):
            print(f"{PROG}: {ckpt} is missing (step {step} saved no {a.subdir}/)", file=sys.stderr)
            return 2
    tmp = a.out + ".tmp"
    cmd = [sys.executable, "-m", "verl.model_merger", "merge", "--backend", "fsdp", "--local_dir", ckpt, "--target_dir", tmp]
    print(f"collab-loop-checkpoint {json.dumps({'path': ckpt, 'step': step})}", flush=True)
    if a.dry_run:
        print(" ".join(cmd))
        return 0
    shutil.rmtree(tmp, ignore_errors=True)  # left by a merge that was killed
    r = subprocess.run(cmd)
    if r.returncode != 0:
        return r.returncode
    shutil.rmtree(a.out, ignore_errors=True)
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
