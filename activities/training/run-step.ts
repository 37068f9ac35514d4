// Runs one trainer subprocess (a prepare, train or export step) in its own process group: every output line goes
// to the stage log and through the adapter's parser; cancellation kills the whole group (torchrun, accelerate and
// DeepSpeed spawn children); a pid file lets the next attempt reap a trainer orphaned by a killed worker, and the
// host's process registry lets the next worker start (or a worker's shutdown) find it.
import { Context } from '@temporalio/activity';
import { execa } from 'execa';
import type { WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { killProcessGroup, reapPidFile, writePidFile } from '../subprocess/process-group';
import { acquireGpus } from '../subprocess/gpu-pool';
import { forgetGroup, recordGroup } from '../subprocess/process-registry';
import { PROJECT_ROOT } from '../subprocess/node-script';

export interface StepOutcome {
  exitCode?: number;
  signal?: string;
  /** The executable was not found (a config mistake, not a flaky run). */
  notFound: boolean;
}

export async function runTrainerStep(opts: {
  name: string;
  argv: string[];
  env?: Record<string, string>;
  log: WriteStream;
  pidFile: string;
  /** This host's state dir, where the process registry lives. */
  stateDir: string;
  onLine: (line: string) => void;
  /** GPU indices the step takes from the host's pool (gpu-pool.ts); default 1. */
  gpus?: number;
}): Promise<StepOutcome> {
  const ctx = Context.current();
  const [cmd, ...args] = opts.argv;
  const lease = await acquireGpus(opts.stateDir, opts.gpus ?? 1, ctx.cancellationSignal);
  const onGpus = lease.gpus.length ? ` on GPUs ${lease.env.CUDA_VISIBLE_DEVICES} (CUDA_VISIBLE_DEVICES)` : '';
  opts.log.write(`\n--- attempt ${ctx.info.attempt} · ${opts.name}${onGpus}: ${JSON.stringify(opts.argv)}\n`);
  const child = execa(cmd, args, {
    detached: true,
    all: true,
    buffer: false,
    reject: false,
    cleanup: true,
    stdin: 'ignore',
    env: { PYTHONUNBUFFERED: '1', ...opts.env, ...lease.env },
    cwd: PROJECT_ROOT,
  });
  if (child.pid) {
    writePidFile(opts.pidFile, { pid: child.pid, argv: opts.argv });
    recordGroup(opts.stateDir, { pid: child.pid, kind: 'trainer', argv: opts.argv, ...(lease.gpus.length ? { gpus: lease.gpus } : {}) });
  }
  lease.release(); // the registry holds the indices while the group lives
  const onAbort = () => {
    if (child.pid) void killProcessGroup(child.pid, 10_000);
  };
  ctx.cancellationSignal.addEventListener('abort', onAbort, { once: true });
  try {
    if (child.all)
      for await (const line of createInterface({ input: child.all })) {
        opts.log.write(`${line}\n`);
        opts.onLine(line);
      }
    const r = await child;
    if (ctx.cancellationSignal.aborted) {
      if (child.pid) await killProcessGroup(child.pid, 10_000);
      throw ctx.cancellationSignal.reason;
    }
    return { exitCode: r.exitCode, signal: r.signal, notFound: (r as { code?: string }).code === 'ENOENT' };
  } finally {
    ctx.cancellationSignal.removeEventListener('abort', onAbort);
    await reapPidFile(opts.pidFile); // a group member left behind (a daemonised child) dies with the step
    if (child.pid) forgetGroup(opts.stateDir, child.pid);
  }
}
