#!/usr/bin/env python3
"""SFT, DPO or online DPO with TRL, resumable, with machine-readable progress on stdout.

Why not `trl sft|dpo`: their `--resume_from_checkpoint` is silently ignored (the CLI scripts call
`trainer.train()` without it), so a retried train stage would restart from step 0. This wrapper passes the
checkpoint to `trainer.train`, validates the data up front (one clear error line instead of a traceback deep in
`datasets`), and prints one JSON line per event:

    collab-loop-resumed    {"step": N}
    collab-loop-progress   {"step": N, "loss": X}
    collab-loop-checkpoint {"path": ".../checkpoint-N", "step": N}
    collab-loop-done       {"path": FINAL_DIR, "step": N, "loss": last logged loss, "train_loss": mean over the run}

Unknown `--key value` pairs go to SFTConfig/DPOConfig/OnlineDPOConfig verbatim (any TRL/TrainingArguments field),
after and so over this script's own defaults. Data: DATA_DIR/train.jsonl with TRL conversational rows,
SFT {"prompt": [messages], "completion": [assistant message]},
DPO {"prompt": [messages], "chosen": [assistant message], "rejected": [assistant message]};
online DPO: DATA_DIR/rl_train.parquet, the prompts the recipe's converter wrote, rewarded through the recipe's reward
service at --reward-url (trl_online_dpo.py).
"""
import argparse
import json
import os
import shutil
import sys

from jsonl_rows import json_objects

# Set before transformers/datasets are imported: they read these at import time. Training is local-only.
for _k, _v in (("HF_HUB_OFFLINE", "1"), ("HF_DATASETS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false"),
               ("HF_DATASETS_DISABLE_PROGRESS_BARS", "1"), ("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1"),
               ("TRL_EXPERIMENTAL_SILENCE", "1")):  # OnlineDPO is in trl.experimental (TRL 1.x)
    os.environ.setdefault(_k, _v)

PROG = "trl_train.py"
ROLES = ("system", "user", "assistant", "tool")
FIELDS = {"sft": ("prompt", "completion"), "dpo": ("prompt", "chosen", "rejected")}
METHODS = (*FIELDS, "online_dpo")
# microsoft/CollabLLM scripts/train/online_dpo.py's example command (1 epoch, beta 0.1); OnlineDPOConfig's default is 5e-7.
ONLINE_DPO_LEARNING_RATE = 5e-6
# The same script samples its two completions with top_k 50 (OnlineDPOConfig's default 0 turns top-k off).
ONLINE_DPO_TOP_K = 50


class DataError(Exception):
    pass


def emit(event, payload):
    print(f"collab-loop-{event} {json.dumps(payload)}", flush=True)


def check_messages(value, field, assistant_only):
    if not isinstance(value, list) or not value:
        raise DataError(f'field "{field}" must be a list of messages')
    for i, m in enumerate(value, 1):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str) or not isinstance(m.get("content"), str):
            raise DataError(f'field "{field}" message {i} must be {{"role": string, "content": string}}')
        if m["role"] not in ROLES:
            raise DataError(f'field "{field}" message {i} has unknown role "{m["role"]}" (expected one of {", ".join(ROLES)})')
        if assistant_only and m["role"] != "assistant":
            raise DataError(f'field "{field}" message {i} must have role "assistant", not "{m["role"]}"')


def read_rows(path, method):
    """Validated rows of train.jsonl; DataError names the line and field of the first bad row."""
    if not os.path.isfile(path):
        raise DataError("no such file")
    rows = []
    for n, row in json_objects(path, DataError):
        try:
            for field in FIELDS[method]:
                if field not in row:
                    raise DataError(f'missing field "{field}" ({method} rows need {", ".join(FIELDS[method])})')
                check_messages(row[field], field, assistant_only=field != "prompt")
        except DataError as e:
            raise DataError(f"line {n}: {e}") from None
        rows.append({k: row[k] for k in FIELDS[method]})
    if not rows:
        raise DataError("has no rows")
    return rows


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description="SFT/DPO/online DPO with TRL, resumable (see module docstring).")
    p.add_argument("--method", choices=sorted(METHODS), required=True)
    p.add_argument("--model", required=True, help="Hugging Face directory of the base model")
    p.add_argument("--data", required=True, help="directory containing train.jsonl")
    p.add_argument("--output-dir", required=True, help="work dir: checkpoints, stable across retries")
    p.add_argument("--hf-output", required=True, help="final Hugging Face directory (written atomically)")
    p.add_argument("--resume-from", help="checkpoint-N directory to resume from")
    p.add_argument("--max-steps", type=int)
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--learning-rate", type=float)
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--gradient-accumulation", type=int, default=1)
    p.add_argument("--max-length", type=int, default=1024)
    p.add_argument("--save-steps", type=int, default=0, help="checkpoint every N steps (0: no checkpoints)")
    p.add_argument("--beta", type=float, default=0.1, help="DPO beta")
    p.add_argument("--reward-url", help="online DPO: the recipe's reward service")
    p.add_argument("--futures", type=int, default=3, help="online DPO: futures played per completion")
    p.add_argument("--max-user-turns", type=int, default=2)
    p.add_argument("--max-assistant-turns", type=int, default=3, help="counting the completion")
    p.add_argument("--max-new-tokens", type=int, default=512, help="online DPO: tokens per completion and future turn")
    p.add_argument("--temperature", type=float, default=1.0, help="online DPO: sampling temperature")
    p.add_argument("--seed", type=int, default=42)
    return p.parse_known_args(argv)


def config_argv(args, use_cpu):
    """SFTConfig/DPOConfig fields as `--field value`; HfArgumentParser then applies the dataclass types."""
    cfg = {
        "output_dir": args.output_dir,
        "num_train_epochs": args.epochs,
        "per_device_train_batch_size": args.batch_size,
        "gradient_accumulation_steps": args.gradient_accumulation,
        "max_length": args.max_length,
        "seed": args.seed,
        "logging_steps": 1,  # one progress line per optimizer step
        "report_to": "none",
        "disable_tqdm": True,
        "save_strategy": "steps" if args.save_steps > 0 else "no",
        "save_total_limit": 2,
        # Resume needs optimizer, scheduler and RNG state in each checkpoint; at this project's CPU sizes they're small.
        "save_only_model": False,
    }
    if args.save_steps > 0:
        cfg["save_steps"] = args.save_steps
    if args.max_steps is not None:
        cfg["max_steps"] = args.max_steps
    if args.learning_rate is not None:
        cfg["learning_rate"] = args.learning_rate
    if args.method in ("dpo", "online_dpo"):
        cfg["beta"] = args.beta
    if args.method == "online_dpo":
        cfg.update(max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_k=ONLINE_DPO_TOP_K)
        cfg.setdefault("learning_rate", ONLINE_DPO_LEARNING_RATE)
    if use_cpu:
        # TRL defaults bf16 on (GPU assumption); fp32 is the fast and exact choice on a CPU.
        cfg.update(use_cpu=True, bf16=False)
    out = []
    for k, v in cfg.items():
        out += [f"--{k}", str(v)]
    return out


def read_data(args):
    """(the data file, its validated rows); a bad file is one error line and exit 2."""
    if args.method == "online_dpo":
        from trl_online_dpo import PromptError, read_prompts

        if not args.reward_url:
            fail("--reward-url is required with --method online_dpo")
        data_file = os.path.join(args.data, "rl_train.parquet")
        if not os.path.isfile(data_file):
            fail(f"{data_file}: no such file (the prepare step writes it)")
        try:
            return data_file, read_prompts(data_file)
        except PromptError as e:
            fail(f"{data_file}: {e}")
    data_file = os.path.join(args.data, "train.jsonl")
    try:
        return data_file, read_rows(data_file, args.method)
    except DataError as e:
        fail(f"{data_file}{' ' if str(e).startswith('line ') else ': '}{e}")


def trainer_classes(method):
    """(config class, trainer class) of a method; OnlineDPO lives in trl.experimental in TRL 1.x."""
    if method == "online_dpo":
        from trl.experimental.online_dpo import OnlineDPOConfig, OnlineDPOTrainer

        return OnlineDPOConfig, OnlineDPOTrainer
    from trl import DPOConfig, DPOTrainer, SFTConfig, SFTTrainer

    return (SFTConfig, SFTTrainer) if method == "sft" else (DPOConfig, DPOTrainer)


def online_reward(args):
    from trl_online_dpo import MultiturnReward

    return MultiturnReward(
        args.reward_url, args.futures, args.max_user_turns, args.max_assistant_turns, args.max_new_tokens, args.temperature,
    )


def parse_config(config_cls, argv):
    """The dataclass from `--field value` pairs; a bad or unknown field is one error line and exit 2."""
    from transformers import HfArgumentParser

    class ConfigParser(HfArgumentParser):
        def error(self, message):  # one line, not argparse's usage of every TrainingArguments field
            fail(message)

    config, unknown = ConfigParser(config_cls).parse_args_into_dataclasses(args=argv, return_remaining_strings=True)
    if unknown:
        fail(f"not {config_cls.__name__} fields: {' '.join(unknown)}")
    return config


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def make_callback(resuming):
    from transformers import TrainerCallback

    class ProgressLines(TrainerCallback):
        last_loss = None

        def on_train_begin(self, args, state, control, **kw):
            if resuming and state.is_world_process_zero:
                emit("resumed", {"step": state.global_step})

        def on_log(self, args, state, control, logs=None, **kw):
            if logs and "loss" in logs:
                self.last_loss = float(logs["loss"])
                if state.is_world_process_zero:
                    emit("progress", {"step": state.global_step, "loss": self.last_loss})

        def on_save(self, args, state, control, **kw):
            if state.is_world_process_zero:
                path = os.path.join(os.path.abspath(args.output_dir), f"checkpoint-{state.global_step}")
                emit("checkpoint", {"path": path, "step": state.global_step})

    return ProgressLines()


def replace_dir(tmp, final):
    old = final + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(final):
        os.rename(final, old)
    os.rename(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def main(argv=None):
    args, passthrough = parse_args(sys.argv[1:] if argv is None else argv)
    data_file, rows = read_data(args)
    if args.resume_from and not os.path.isfile(os.path.join(args.resume_from, "trainer_state.json")):
        fail(f"{args.resume_from}: not a complete checkpoint (no trainer_state.json)")

    import datasets
    import torch
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    datasets.disable_progress_bars()
    config_cls, trainer_cls = trainer_classes(args.method)
    config = parse_config(config_cls, config_argv(args, use_cpu=not torch.cuda.is_available()) + passthrough)

    if int(os.environ.get("RANK", "0")) == 0:
        shutil.rmtree(os.path.abspath(args.hf_output) + ".tmp", ignore_errors=True)  # left by a killed attempt
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    progress = make_callback(resuming=bool(args.resume_from))
    reward = online_reward(args) if args.method == "online_dpo" else None
    trainer = trainer_cls(
        model=args.model, args=config, train_dataset=datasets.Dataset.from_list(rows),
        processing_class=tokenizer, callbacks=[progress], **({"reward_funcs": [reward]} if reward else {}),
    )
    if reward:
        reward.bind(trainer)
    if len(trainer.train_dataset) == 0:  # TRL drops rows longer than max_length; the sampler would fail cryptically
        fail(f"{data_file}: none of its {len(rows)} rows fits in --max-length {args.max_length} tokens (raise trainer.maxLength)")
    result = trainer.train(resume_from_checkpoint=args.resume_from or None)

    final = os.path.abspath(args.hf_output)
    tmp = final + ".tmp"
    # Every rank calls save_model (sharded/ZeRO-3 weights are gathered collectively); rank 0 writes and renames.
    trainer.save_model(tmp)  # model, config, generation config, tokenizer and chat template
    if trainer.is_world_process_zero():
        replace_dir(tmp, final)
        # result.training_loss divides only this attempt's losses by ALL steps (halved after a mid-run resume);
        # the log history restored from the checkpoint covers the whole run.
        losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
        train_loss = sum(losses) / len(losses) if losses else result.training_loss
        loss = progress.last_loss if progress.last_loss is not None else train_loss
        emit("done", {"path": final, "step": trainer.state.global_step, "loss": loss, "train_loss": train_loss})
    return 0


if __name__ == "__main__":
    sys.exit(main())
