#!/usr/bin/env python3
"""Prepare a fairseq2 0.4 run: check the rows it will read and write the asset card of the base model.

fairseq2 0.4 reads every *.jsonl of `dataset.path` and fails deep in its data pipeline on a row without a field
("ValueError: The input data does not have an element at path 'tgt'", no file or line); this checks the rows first
(instruction_finetune: {src, tgt}; preference_finetune: {src, tgt_chosen, tgt_rejected}; all strings) so bad input is
one line naming the file, line and field. The card (JSON, which is YAML) is checked to point at real files.

Usage: fairseq2_prepare.py --card OUT.yaml --card-json JSON --data-dir DIR --method sft|dpo
A problem -> one line on stderr, exit 2. Uses only the standard library (it runs in fairseq2's venv or any other)."""
import argparse
import glob
import json
import os
import sys

from jsonl_rows import json_objects

PROG = "fairseq2_prepare.py"
FIELDS = {"sft": ("src", "tgt"), "dpo": ("src", "tgt_chosen", "tgt_rejected")}


class PrepareError(Exception):
    pass


def check_rows(data_dir, method):
    files = sorted(glob.glob(os.path.join(data_dir, "*.jsonl")))
    if not files:
        raise PrepareError(f"no *.jsonl in {data_dir}")
    need = FIELDS[method]
    for name in files:
        rows = 0
        try:
            for n, row in json_objects(name, PrepareError):
                for field in need:
                    if field not in row:
                        raise PrepareError(f'line {n}: missing field "{field}" ({method} rows need {", ".join(need)})')
                    if not isinstance(row[field], str):
                        raise PrepareError(f'line {n}: field "{field}" must be a string')
                rows += 1
        except PrepareError as e:
            raise PrepareError(f"{name} {e}") from None
        if not rows:
            raise PrepareError(f"{name} has no rows")


def write_card(out, card):
    if not glob.glob(os.path.join(card["checkpoint"], "*.safetensors")):
        raise PrepareError(f"no *.safetensors in {card['checkpoint']} (the base must be a Hugging Face Llama directory)")
    if not os.path.isfile(card["tokenizer"]):
        raise PrepareError(f"no tokenizer file {card['tokenizer']} (the Llama-3 tiktoken tokenizer.model; set trainer.tokenizer)")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(card, f, indent=2)
    os.replace(out + ".tmp", out)


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--card", required=True)
    ap.add_argument("--card-json", required=True)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--method", required=True, choices=sorted(FIELDS))
    a = ap.parse_args()
    card = json.loads(a.card_json)
    try:
        check_rows(a.data_dir, a.method)
        write_card(a.card, card)
    except (PrepareError, OSError, UnicodeDecodeError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    print(f"fairseq2 card {card['name']}: {a.card}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
