#!/usr/bin/env python3
"""Merge verl's latest complete FSDP SFT checkpoint into a Hugging Face directory (the next iteration serves it).

verl names checkpoints WORK/global_step_N; a save is complete once global_step_N/huggingface/config.json exists.
The merge itself is verl's own tool: python -m verl.model_merger merge --backend fsdp --local_dir ... --target_dir ...
Usage: verl_export.py --work-dir WORK --out HF_DIR [--dry-run]"""
import argparse
import os
import re
import subprocess
import sys

PROG = "verl_export.py"


def latest_complete(work):
    best = None
    for name in os.listdir(work) if os.path.isdir(work) else []:
        m = re.fullmatch(r"global_step_(\d+)", name)
        if m and os.path.isfile(os.path.join(work, name, "huggingface", "config.json")):
            step = int(m.group(1))
            if best is None or step > best[0]:
                best = (step, os.path.join(work, name))
    return best


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dry-run", action="store_true", help="print the merge command instead of running it")
    a = ap.parse_args()
    found = latest_complete(a.work_dir)
    if not found:
        print(f"{PROG}: no complete global_step_N checkpoint in {a.work_dir}", file=sys.stderr)
        return 2
    step, ckpt = found
    tmp = a.out + ".tmp"
    cmd = [sys.executable, "-m", "verl.model_merger", "merge", "--backend", "fsdp", "--local_dir", ckpt, "--target_dir", tmp]
    print(f"collab-loop-checkpoint {{\"path\": \"{ckpt}\", \"step\": {step}}}", flush=True)
    if a.dry_run:
        print(" ".join(cmd))
        return 0
    r = subprocess.run(cmd)
    if r.returncode != 0:
        return r.returncode
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
