"""The rows of a JSONL file for the project's converters (../training/adapters/jsonl_to_parquet.py,
../recipes/collabllm/collabllm_to_verl.py, which put this folder on sys.path): one JSON object
per line, a problem raised as `error(message)` naming the file and line."""
import json
import os


def json_objects(src, error, blank_lines_ok=False):
    """Yields (line number, row dict)."""
    if not os.path.isfile(src):
        raise error(f"{src}: no such file")
    with open(src, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                if blank_lines_ok:
                    continue
                raise error(f"{src} line {n}: empty line")
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise error(f"{src} line {n}: not valid JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise error(f"{src} line {n}: must be a JSON object")
            yield n, row
