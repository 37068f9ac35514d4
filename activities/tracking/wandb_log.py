"""Logs collab-loop iterations to one Weights & Biases run (called by activities/tracking/wandb.ts).

Reads one JSON object on stdin:
  {"project", "entity"?, "mode": "offline"|"online", "dir", "id", "name", "group"?, "params": {k: str},
   "rows": [{"step", "metrics": {k: number}, "lineage": {k: str}, "lossCurve": [{"step", "loss"}]}],
   "report"?: path of the HTML report (attached to the last row), "final": bool}
Each call is its own W&B process on the same run id (resume="allow"): offline, every call leaves its own
offline-run directory that `wandb sync` uploads into the one run. Rows are logged once each: the caller passes
only iterations not logged before. Prints {"runDir": ..., "url": ... (online only)} on the last stdout line.
"""
import json
import sys

import wandb


def main() -> None:
    job = json.load(sys.stdin)
    run = wandb.init(
        project=job["project"],
        entity=job.get("entity"),
        id=job["id"],
        name=job["name"],
        group=job.get("group"),
        mode=job["mode"],
        dir=job["dir"],
        resume="allow",
        config=job["params"],
        tags=["collab-loop"],
        settings=wandb.Settings(console="off", save_code=False, x_disable_stats=True, x_disable_meta=True),
    )
    rows = job["rows"]
    for i, row in enumerate(rows):
        data = dict(row["metrics"])
        if row["lossCurve"]:
            data["train_loss_curve"] = wandb.Table(
                columns=["step", "loss"], data=[[r["step"], r["loss"]] for r in row["lossCurve"]]
            )
        if job.get("report") and i == len(rows) - 1:
            with open(job["report"], encoding="utf-8") as f:
                data["report"] = wandb.Html(f.read(), inject=False)
        run.log(data, step=row["step"])
        # Lineage as summary fields: which checkpoint each iteration served and trained, and on which data.
        for key, value in row["lineage"].items():
            run.summary[f"lineage/iter_{row['step']}/{key}"] = value
    run_dir = run.dir.rsplit("/files", 1)[0]
    url = run.url  # None offline
    run.finish(exit_code=0)
    print(json.dumps({"runDir": run_dir, "url": url}))


if __name__ == "__main__":
    main()
