#!/usr/bin/env python3
"""train.jsonl -> train.parquet for verl, which reads parquet only. Nested message lists stay nested lists.

Usage: jsonl_to_parquet.py IN.jsonl OUT.parquet. A bad line -> one error naming file and line, exit 2."""
import json
import os
import sys

PROG = "jsonl_to_parquet.py"


def main(argv):
    if len(argv) != 2:
        print(f"{PROG}: usage: {PROG} IN.jsonl OUT.parquet", file=sys.stderr)
        return 2
    src, dst = argv
    rows = []
    try:
        with open(src, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    print(f"{PROG}: {src} line {n}: not valid JSON ({e.msg})", file=sys.stderr)
                    return 2
                if not isinstance(row, dict):
                    print(f"{PROG}: {src} line {n}: must be a JSON object", file=sys.stderr)
                    return 2
                rows.append(row)
    except OSError as e:
        print(f"{PROG}: cannot read {src}: {e.strerror}", file=sys.stderr)
        return 2
    if not rows:
        print(f"{PROG}: {src}: no rows", file=sys.stderr)
        return 2
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        print(f"{PROG}: {src}: rows do not share one schema ({e})", file=sys.stderr)
        return 2
    tmp = dst + ".tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, dst)
    print(f"wrote {len(rows)} rows to {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
