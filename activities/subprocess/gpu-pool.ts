// The GPU indices of this host (`collab-loop worker --gpus 0,1,2,3`) handed to trainers and model servers as
// CUDA_VISIBLE_DEVICES. What is free is read from the process registry (process-registry.ts `gpus`): an index is
// held exactly as long as the group it was given to is alive and recorded, so it comes back when the process ends,
// is killed by a cancel or undeploy, or dies with a killed worker — and worker processes sharing the host's state
// dir never hand out the same index. Between choosing and recording, this process reserves the indices itself.
import { ApplicationFailure } from '@temporalio/activity';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { GPUS_ENV } from '../host-env';
import { readPidFile } from './process-group';
import { gpusInUse, sameProcess } from './process-registry';

/** Parses `--gpus`: distinct non-negative whole numbers, comma-separated; undefined when not given. */
export function parseGpuList(text: string | undefined): number[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const out = text.split(',').map((x) => x.trim());
  const bad = out.filter((x) => !/^\d+$/.test(x));
  if (bad.length) throw new Error(`"${bad[0]}" is not a GPU index (e.g. --gpus 0,1,2,3)`);
  const nums = out.map(Number);
  if (new Set(nums).size !== nums.length) throw new Error(`${text} names a GPU twice`);
  return nums;
}

const reserved = new Set<number>();

/** Where model servers leave their pid files, a directory per run (serving/checkpoint-servers.ts `serversDir`);
 *  here, the lower layer, because the pool reads them too. */
export const serversRoot = (stateDir: string) => path.join(stateDir, 'servers');

/** GPUs of model servers a worker left running with --keep-servers: dropped from the registry (no later worker
 *  reaps them), they are still named by their pid files, `<state dir>/servers/<run>/iter-<k>.<role>.json`
 *  (serving/checkpoint-servers.ts), until undeploy stops them. */
function keptServerGpus(stateDir: string): number[] {
  const dir = serversRoot(stateDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(path.join(dir, d.name)).map((f) => path.join(dir, d.name, f)))
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      const rec = readPidFile(f);
      return rec && Array.isArray(rec.gpus) && sameProcess(rec.pid, rec.start) ? (rec.gpus as number[]) : [];
    });
}

export interface GpuLease {
  gpus: number[];
  /** CUDA_VISIBLE_DEVICES for the process (empty when the host hands out no GPUs). */
  env: Record<string, string>;
  /** Called once the group is recorded with `gpus` (the registry holds them from then on), or when it never started. */
  release(): void;
}

const none: GpuLease = { gpus: [], env: {}, release: () => {} };

/** Takes `count` free indices of the host's pool, waiting (cancellably) while fewer are free. Without `--gpus` the
 *  host hands out none and the process keeps the environment it inherits. */
export async function acquireGpus(stateDir: string, count: number, signal?: AbortSignal, pollMs = 1000): Promise<GpuLease> {
  const pool = parseGpuList(process.env[GPUS_ENV]);
  if (!pool || count === 0) return none;
  if (count > pool.length)
    throw ApplicationFailure.nonRetryable(`needs ${count} GPUs but this host has ${pool.length} (--gpus ${pool.join(',')})`, 'ConfigError');
  for (;;) {
    const held = new Set([...gpusInUse(stateDir), ...keptServerGpus(stateDir)]);
    const free = pool.filter((g) => !held.has(g) && !reserved.has(g));
    if (free.length >= count) {
      const gpus = free.slice(0, count);
      for (const g of gpus) reserved.add(g);
      let released = false;
      return {
        gpus,
        env: { CUDA_VISIBLE_DEVICES: gpus.join(',') },
        release: () => {
          if (released) return;
          released = true;
          for (const g of gpus) reserved.delete(g);
        },
      };
    }
    if (signal?.aborted) throw signal.reason;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
