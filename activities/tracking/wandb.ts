// Weights & Biases through its own Python SDK (./wandb_log.py in the project's .venv): W&B has no
// stable public logging API outside its SDK. `mode: offline` (the default) writes run files that `wandb sync <dir>`
// uploads later — for clusters without internet; `online` needs the key in the worker's environment. The rows
// already logged are remembered in <dir>/collab-loop/<run>.json, so a retried activity never logs a step twice.
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../artifacts/store';
import { fileURLToPath } from 'node:url';
import type { WandbTracking } from './wandb-options';
import type { TrackingPayload } from './payload';
import type { Written } from './bounded-write';
import { trackerConfigError, trackerUnavailable } from './tracker-errors';
import { venvExecutable } from '../subprocess/venv';

const FIELD = 'tracking.wandb';
const SCRIPT = fileURLToPath(new URL('./wandb_log.py', import.meta.url));

export async function logToWandb(
  o: WandbTracking,
  p: TrackingPayload,
  stateDir: string,
  reportFile: () => Promise<string>,
  signal: AbortSignal,
): Promise<Written & { logged: number }> {
  const dir = o.dir ?? path.join(stateDir, 'wandb');
  // Each offline call leaves its own offline-run-<time>-<id> directory under <dir>/wandb; `wandb sync` takes them all.
  const offline = path.join(dir, 'wandb');
  const where = (runDir?: string, url?: string): Written =>
    o.mode === 'online'
      ? { where: url ?? `W&B project ${o.entity ? `${o.entity}/` : ''}${o.project}, run ${p.runName}` }
      : { where: runDir ?? offline, hint: `upload with: wandb sync ${path.join(offline, 'offline-run-*')}` };
  const env: Record<string, string> = { WANDB_SILENT: 'true', WANDB_DISABLE_GIT: 'true' };
  if (o.mode === 'online') {
    const key = process.env[o.apiKeyEnv];
    if (!key)
      throw trackerConfigError(`${FIELD}.apiKeyEnv`, `environment variable ${o.apiKeyEnv} is not set on this worker (mode: online)`);
    env.WANDB_API_KEY = key;
  }
  const marker = path.join(dir, 'collab-loop', `${p.runName}.json`);
  const loggedThrough = existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as { loggedThrough: number }).loggedThrough : -1;
  const rows = p.iterations.filter((i) => i.step > loggedThrough);
  if (!rows.length) return { ...where(), logged: 0 };
  mkdirSync(dir, { recursive: true });
  const job = {
    project: o.project,
    entity: o.entity,
    mode: o.mode,
    dir,
    id: p.runName,
    name: p.runName,
    group: p.recipe,
    params: p.params,
    rows: await Promise.all(rows.map(async (r) => ({ ...r, lossCurve: await r.lossCurve() }))),
    report: await reportFile(),
    final: p.final,
  };
  const python = o.python ?? venvExecutable('python');
  const r = await execa(python, [SCRIPT], {
    input: JSON.stringify(job),
    reject: false,
    all: true,
    env,
    cancelSignal: signal, // the tracker's deadline (bounded-write.ts) kills the SDK's process
  });
  if (r.exitCode !== 0) {
    const out = (r.all ?? '').trim();
    if ((r as { code?: string }).code === 'ENOENT' || /No module named 'wandb'/.test(out))
      throw trackerConfigError(
        `${FIELD}.python`,
        `${python} cannot run the W&B SDK (${out.split('\n').at(-1) ?? 'not found'}); install wandb there (bin/setup.js does for the .venv)`,
      );
    throw trackerUnavailable(`W&B logging failed (exit ${r.exitCode}): ${out.split('\n').slice(-5).join(' | ')}`);
  }
  writeFileAtomic(marker, JSON.stringify({ loggedThrough: rows.at(-1)!.step }));
  const last = (r.stdout as string).trim().split('\n').at(-1) ?? '{}';
  const { runDir, url } = JSON.parse(last) as { runDir?: string; url?: string };
  return { ...where(runDir, url), logged: rows.length };
}
