#!/usr/bin/env python3
"""JSONL -> Parquet for trainers that read parquet only (verl). Nested values stay nested: a list of
{"role", "content"} messages becomes a list<struct<...>> column, which verl's datasets read back as lists of dicts.

Usage: jsonl_to_parquet.py IN.jsonl OUT.parquet [--messages-key KEY] [--val-output VAL.parquet --val-rows N]
  --messages-key  every row must hold a non-empty list of {"role": str, "content": str} under KEY, ending with an
                  assistant message (the SFT target)
  --val-output    also write the first N rows (default 64) as a validation file
Outputs are written to *.tmp and renamed. A bad input -> one line on stderr naming the file (and line), exit 2."""
import argparse
import json
import os
import sys

# activities/data/jsonl_rows.py, shared with the other converter (run as a script, this folder alone is on sys.path).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data"))
from jsonl_rows import json_objects  # noqa: E402

PROG = "jsonl_to_parquet.py"
ROLES = ("system", "user", "assistant", "tool")


class InputError(Exception):
    pass


def check_messages(row, key):
    messages = row.get(key)
    if not isinstance(messages, list) or not messages:
        raise InputError(f'field "{key}" must be a non-empty list of messages')
    for i, m in enumerate(messages, 1):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str) or not isinstance(m.get("content"), str):
            raise InputError(f'field "{key}" message {i} must be {{"role": string, "content": string}}')
        if m["role"] not in ROLES:
            raise InputError(f'field "{key}" message {i} has unknown role "{m["role"]}" (expected one of {", ".join(ROLES)})')
    if messages[-1]["role"] != "assistant":
        raise InputError(f'field "{key}": the last message (the target) must have role "assistant", not "{messages[-1]["role"]}"')


def read_rows(src, messages_key):
    rows = []
    for n, row in json_objects(src, InputError):
        if messages_key:
            try:
                check_messages(row, messages_key)
            except InputError as e:
                raise InputError(f"{src} line {n}: {e}") from None
        rows.append(row)
    if not rows:
        raise InputError(f"{src}: no rows")
    return rows


def write_parquet(rows, dst, src):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise InputError(f"{src}: rows do not share one schema ({e})") from None
    tmp = dst + ".tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, dst)


def main(argv):
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--messages-key")
    ap.add_argument("--val-output")
    ap.add_argument("--val-rows", type=int, default=64)
    a = ap.parse_args(argv)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        print(f"{PROG}: pyarrow is not installed in {sys.executable} (pip install pyarrow)", file=sys.stderr)
        return 1
    try:
        rows = read_rows(a.input, a.messages_key)
        write_parquet(rows, a.output, a.input)
        val = rows[: max(1, a.val_rows)]
        if a.val_output:
            write_parquet(val, a.val_output, a.input)
    except UnicodeDecodeError as e:
        print(f"{PROG}: {a.input}: not UTF-8 text ({e.reason} at byte {e.start})", file=sys.stderr)
        return 2
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    summary = {"path": a.output, "rows": len(rows)}
    if a.val_output:
        summary.update(val_path=a.val_output, val_rows=len(val))
    print(f"collab-loop-parquet {json.dumps(summary)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
