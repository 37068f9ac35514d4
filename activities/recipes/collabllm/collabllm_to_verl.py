#!/usr/bin/env python3
"""CollabLLM multi-turn rows -> verl parquet (RL prompts for GRPO, and multi-turn SFT conversations).

Input: JSONL rows of the published collabllm/collabllm-multiturn-* datasets (exported with `datasets`), or the
loop's own `multiturn` rows (activities/recipes/collabllm/data.ts collabMultiturnRows), one row per scored candidate:
  {"prompt": [messages ending with a user turn], "completion", "conv_id", "turn_id", "score",
   "single_turn_prompt", "single_turn_completion", "single_turn_metadata"?, "sessions"?, "rewards"?}
Rows are converted as the verl recipe's process_dataset.py does (verl recipe/collabllm, now in verl-recipe):
  RL   prompt = [system prompt] + the prefix; ground_truth = single_turn_completion; data_source "collabllm";
       agent_name (--agent-name, process_dataset.py's "collabllm_agent"); reward_model {"style": "rule",
       "ground_truth"}; extra_info with the prompt, its index, and interaction_kwargs {"name" (--interaction-name,
       "collabllm"), "single_turn_prompt", "task_desc"} plus what collab-loop's reward service rebuilds the task from
       ("single_turn_completion", "task_kind", "task_id"); deduplicated by prompt (the first row wins).
  SFT  per conversation the row of its latest turn with the highest score (the first such row on ties):
       prompt = [system prompt] + the prefix + the assistant completion (messages_key=prompt).
Each set is split into train and validation with a seeded shuffle (default 10 % validation, at least one row in
each; a single row goes to both, since verl needs a non-empty validation file).
Differences from process_dataset.py: the system prompt is optional (--system-prompt-file; the loop evaluates the
policy without one); extra_info keeps a fixed set of fields instead of every source field (the futures `sessions`
and `rewards` are large and unused, and a fixed set keeps one parquet schema); the index is a digest of the prompt,
not a random uuid, so reruns write identical files.

Usage: collabllm_to_verl.py --out-dir DIR --task-kind math|document|code|abg-coqa [--task-desc TEXT]
           [--system-prompt-file FILE] [--validation-fraction 0.1] [--seed 42]
           [--agent-name collabllm_agent] [--interaction-name collabllm] IN.jsonl [IN2.jsonl ...]
Writes DIR/rl_train.parquet, rl_validation.parquet, sft_train.parquet, sft_validation.parquet (each via *.tmp and a
rename) and prints one summary line. A bad input row -> one line on stderr naming the file, line and field; exit 2."""
import argparse
import hashlib
import json
import math
import os
import random
import sys

# activities/data/jsonl_rows.py, shared with the other converter (run as a script, this folder alone is on sys.path).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data"))
from jsonl_rows import json_objects  # noqa: E402

PROG = "collabllm_to_verl.py"
ROLES = ("system", "user", "assistant")
KINDS = ("math", "document", "code", "abg-coqa")
DATA_SOURCE = "collabllm"
OUTPUTS = ("rl_train", "rl_validation", "sft_train", "sft_validation")


class InputError(Exception):
    pass


def _bad(where, field, detail):
    return InputError(f'{where}: field "{field}" {detail}' if field else f"{where}: {detail}")


def _text(row, field, where):
    v = row.get(field)
    if not isinstance(v, str) or not v.strip():
        raise _bad(where, field, "must be a non-empty string")
    return v


def check_row(row, kind, where):
    """The fields this converter reads; returns the row's normalised parts."""
    prompt = row.get("prompt")
    if not isinstance(prompt, list) or not prompt:
        raise _bad(where, "prompt", "must be a non-empty list of messages")
    for i, m in enumerate(prompt):
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise _bad(where, f"prompt[{i}].role", f"must be one of {', '.join(ROLES)}")
        if not isinstance(m.get("content"), str):
            raise _bad(where, f"prompt[{i}].content", "must be a string")
    if prompt[-1]["role"] != "user":
        raise _bad(where, "prompt", f'must end with a user message (the turn to answer), not "{prompt[-1]["role"]}"')
    completion = _text(row, "completion", where)
    conv_id = row.get("conv_id")
    if isinstance(conv_id, bool) or not (isinstance(conv_id, int) or (isinstance(conv_id, str) and conv_id.strip())):
        raise _bad(where, "conv_id", "must be an integer or a non-empty string")
    turn_id = row.get("turn_id")
    if isinstance(turn_id, bool) or not isinstance(turn_id, int) or turn_id < 0:
        raise _bad(where, "turn_id", "must be a non-negative integer")
    score = row.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score)):
        raise _bad(where, "score", "must be a finite number or null")
    single_turn_prompt = _text(row, "single_turn_prompt", where)
    ground_truth = _text(row, "single_turn_completion", where)
    if kind == "code":
        try:
            pkg = json.loads(ground_truth)
        except json.JSONDecodeError:
            pkg = None
        if not isinstance(pkg, dict):
            raise _bad(where, "single_turn_completion", "must be a JSON object string {dataset, task_id, test, entry_point, answer}")
        for f in ("answer", "test", "entry_point"):
            if not isinstance(pkg.get(f), str) or not pkg[f].strip():
                raise _bad(where, f"single_turn_completion.{f}", "must be a non-empty string")
    meta = row.get("single_turn_metadata")
    if meta is not None and not isinstance(meta, dict):
        raise _bad(where, "single_turn_metadata", "must be an object or null")
    return {
        "prompt": [{"role": m["role"], "content": m["content"]} for m in prompt],
        "completion": completion,
        "conv_id": str(conv_id),
        "turn_id": turn_id,
        "score": None if score is None else float(score),
        "single_turn_prompt": single_turn_prompt,
        "ground_truth": ground_truth,
        "meta": meta,
    }


def read_rows(files, kind):
    rows = []
    for fi, src in enumerate(files):
        first_of_conv = {}
        for n, raw in json_objects(src, InputError, blank_lines_ok=True):
            where = f"{src} line {n}"
            r = check_row(raw, kind, where)
            first = first_of_conv.setdefault(r["conv_id"], (n, r["single_turn_prompt"]))
            if first[1] != r["single_turn_prompt"]:
                raise _bad(where, "single_turn_prompt", f"differs from line {first[0]}, which has the same conv_id")
            # Conversations are numbered per file: two files may both have a conv_id 0.
            r["conv_key"] = (fi, r["conv_id"])
            prefix = "" if len(files) == 1 else f"f{fi}/"
            meta_id = (r["meta"] or {}).get("task_id")
            r["task_id"] = meta_id if isinstance(meta_id, str) and meta_id.strip() else f"{prefix}conv-{r['conv_id']}"
            r["source"] = f"{os.path.basename(src)}:{n}"
            rows.append(r)
        if not first_of_conv:
            raise InputError(f"{src}: no rows")
    return rows


def rl_rows(rows, kind, task_desc, system, agent_name, interaction_name):
    out, seen = [], set()
    for r in rows:
        prompt = system + r["prompt"]
        key = json.dumps(prompt, sort_keys=True, ensure_ascii=False)
        if key in seen:
            continue
        seen.add(key)
        index = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        out.append(
            {
                "prompt": prompt,
                "raw_prompt": prompt,
                "ground_truth": r["ground_truth"],
                "data_source": DATA_SOURCE,
                "agent_name": agent_name,
                "index": index,
                "reward_model": {"style": "rule", "ground_truth": r["ground_truth"]},
                "extra_info": {
                    "prompt": prompt,
                    "index": index,
                    "interaction_kwargs": {
                        "name": interaction_name,
                        "single_turn_prompt": r["single_turn_prompt"],
                        "single_turn_completion": r["ground_truth"],
                        **({"task_desc": task_desc} if task_desc else {}),
                        "task_kind": kind,
                        "task_id": r["task_id"],
                    },
                    "conv_id": r["conv_id"],
                    "turn_id": r["turn_id"],
                    "score": r["score"],
                    "completion": r["completion"],
                    "single_turn_metadata": None if r["meta"] is None else json.dumps(r["meta"], sort_keys=True, ensure_ascii=False),
                    "source": r["source"],
                },
            }
        )
    return out


def sft_rows(rows, system):
    """Per conversation the latest turn's best-scored row; an unscored row loses to any scored one."""
    best, order = {}, []
    rank = lambda r: (r["turn_id"], -math.inf if r["score"] is None else r["score"])  # noqa: E731
    for r in rows:
        k = r["conv_key"]
        if k not in best:
            order.append(k)
            best[k] = r
        elif rank(r) > rank(best[k]):
            best[k] = r
    return [{"prompt": system + best[k]["prompt"] + [{"role": "assistant", "content": best[k]["completion"]}]} for k in order]


def split(items, fraction, seed):
    """Seeded: shuffle the positions, the first ceil(fraction * n) are validation; both keep the input order."""
    n = len(items)
    if n == 1:
        return items, items
    idx = list(range(n))
    random.Random(seed).shuffle(idx)
    n_val = min(n - 1, max(1, math.ceil(fraction * n)))
    val = set(idx[:n_val])
    return [x for i, x in enumerate(items) if i not in val], [x for i, x in enumerate(items) if i in val]


def write_parquet(rows, dst, schema):
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = dst + ".tmp"
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
    os.replace(tmp, dst)


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--task-kind", required=True, choices=KINDS)
    ap.add_argument("--task-desc")
    ap.add_argument("--system-prompt-file")
    ap.add_argument("--validation-fraction", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--agent-name", default="collabllm_agent")
    ap.add_argument("--interaction-name", default="collabllm")
    a = ap.parse_args(argv)
    if not 0 < a.validation_fraction < 1:
        ap.error("--validation-fraction must be in (0, 1)")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        print(f"{PROG}: pyarrow is not installed in {sys.executable} (pip install pyarrow)", file=sys.stderr)
        return 1
    try:
        system = []
        if a.system_prompt_file:
            with open(a.system_prompt_file, encoding="utf-8") as f:
                text = f.read().strip()
            if not text:
                raise InputError(f"{a.system_prompt_file}: the system prompt is empty")
            system = [{"role": "system", "content": text}]
        rows = read_rows(a.inputs, a.task_kind)
    except OSError as e:
        print(f"{PROG}: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as e:
        print(f"{PROG}: not UTF-8 text ({e.reason} at byte {e.start})", file=sys.stderr)
        return 2
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    # Without --task-desc the reward service tells the simulator its own description of the kind (tasks.ts).
    task_desc = a.task_desc
    rl_train, rl_val = split(rl_rows(rows, a.task_kind, task_desc, system, a.agent_name, a.interaction_name), a.validation_fraction, a.seed)
    sft_train, sft_val = split(sft_rows(rows, system), a.validation_fraction, a.seed)
    import pyarrow as pa

    os.makedirs(a.out_dir, exist_ok=True)
    sets = dict(zip(OUTPUTS, (rl_train, rl_val, sft_train, sft_val)))
    # One schema per kind, inferred from all its rows: train and validation files always agree (a column that is
    # null in one split's rows only would otherwise get another type there).
    schemas = {kind: pa.Table.from_pylist(sets[f"{kind}_train"] + sets[f"{kind}_validation"]).schema for kind in ("rl", "sft")}
    for name, items in sets.items():
        write_parquet(items, os.path.join(a.out_dir, f"{name}.parquet"), schemas[name.split("_")[0]])
    summary = {"input_rows": len(rows), **{name: len(items) for name, items in sets.items()}}
    print(f"collab-loop-verl-data {json.dumps(summary)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
