// W&B offline run files read back from W&B's own transaction log (wandb_records.py), for the tracker tests.
import { execa } from 'execa';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

export interface WandbRunFiles {
  dir: string;
  history: Array<Record<string, unknown>>;
  config: Record<string, unknown>;
  summary: Record<string, unknown>;
  run: { id: string; name: string; project: string; group: string } | null;
  files: string[];
}

/** Every offline run directory under a W&B `dir`, read from its run-<id>.wandb transaction log. */
export async function wandbRuns(dir: string): Promise<WandbRunFiles[]> {
  const r = await execa(path.join(PROJECT_ROOT, '.venv', 'bin', 'python'), [
    path.join(PROJECT_ROOT, 'tests/helpers/wandb_records.py'),
    path.join(dir, 'wandb'),
  ]);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WandbRunFiles);
}
