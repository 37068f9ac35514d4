"""Reads W&B offline run files (run-<id>.wandb) for the tracker tests: prints one JSON object per run directory.

The file is W&B's transaction log: a 7-byte header (":W&B", magic 0xBEE1, version 0), then LevelDB's log format
(32 KiB blocks of chunks: crc32 u32, length u16, type u8 FULL=1 FIRST=2 MIDDLE=3 LAST=4) whose payloads are
wandb_internal_pb2.Record messages. The SDK no longer ships a Python reader (the Go core reads them), so this is
the test's own, using the SDK's protobuf definitions.
Usage: wandb_records.py <wandb dir>
"""
import glob
import json
import os
import struct
import sys

from wandb.proto import wandb_internal_pb2 as pb

BLOCK = 32768


def records(path):
    data = open(path, "rb").read()
    assert data[:4] == b":W&B", f"{path}: not a W&B transaction log"
    pos, pending = 7, b""
    while pos + 7 <= len(data):
        left = BLOCK - pos % BLOCK
        if left < 7:
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos : pos + 7])
        if length == 0 and kind == 0:
            pos += left  # zero padding to the end of the block
            continue
        chunk = data[pos + 7 : pos + 7 + length]
        pos += 7 + length
        pending = chunk if kind in (1, 2) else pending + chunk
        if kind in (1, 4):
            r = pb.Record()
            r.ParseFromString(pending)
            yield r
            pending = b""


def main(root):
    for run_file in sorted(glob.glob(os.path.join(root, "*run-*", "run-*.wandb"))):
        out = {"dir": os.path.dirname(run_file), "history": [], "config": {}, "summary": {}, "run": None, "files": []}
        for r in records(run_file):
            kind = r.WhichOneof("record_type")
            if kind == "history":
                out["history"].append({i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in r.history.item})
            elif kind == "config":
                for i in r.config.update:
                    out["config"][i.key] = json.loads(i.value_json)
            elif kind == "summary":
                for i in r.summary.update:
                    out["summary"][i.key or "/".join(i.nested_key)] = json.loads(i.value_json)
            elif kind == "run":
                for i in r.run.config.update:
                    out["config"][i.key] = json.loads(i.value_json)
                out["run"] = {"id": r.run.run_id, "name": r.run.display_name, "project": r.run.project, "group": r.run.run_group, "tags": list(r.run.tags)}
        files = os.path.join(out["dir"], "files")
        out["files"] = sorted(os.path.relpath(os.path.join(d, f), files) for d, _, fs in os.walk(files) for f in fs)
        print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
