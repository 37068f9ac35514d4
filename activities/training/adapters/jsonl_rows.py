"""The rows of a training JSONL file, for the adapters' own checks before a trainer reads it (trl_train.py,
fairseq2_prepare.py; imported from beside them, standard library only: it runs in any trainer's venv)."""
import json


def json_objects(path, error):
    """(line number, row) for each non-blank line; raises `error` naming the line of one that is not a JSON object."""
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.strip())
            except json.JSONDecodeError as e:
                raise error(f"line {n}: not valid JSON ({e.msg} at column {e.colno})") from None
            if not isinstance(row, dict):
                raise error(f"line {n}: a row must be a JSON object")
            yield n, row
