// The tiny randomly initialised model of the real CPU loop (scripts/python/make_tiny_model.py; no download).
// Made once per test file into a temp dir and copied per test, so tests never touch models/ in the checkout.
import { execa } from 'execa';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

export const VENV_PYTHON = path.join(PROJECT_ROOT, '.venv', 'bin', 'python');
let made: Promise<string> | undefined;

export function tinyModel(): Promise<string> {
  made ??= (async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'collab-loop-tiny-')), 'tiny-llama');
    await execa(VENV_PYTHON, [path.join(PROJECT_ROOT, 'scripts/python/make_tiny_model.py'), '--out', out, '--seed', '0'], {
      cwd: PROJECT_ROOT,
    });
    if (!existsSync(path.join(out, 'config.json'))) throw new Error(`make_tiny_model.py wrote no config.json in ${out}`);
    return out;
  })();
  return made;
}

/** A private copy of the tiny model as a run's base checkpoint. */
export async function tinyBaseCheckpoint(stateDir: string): Promise<string> {
  const dir = path.join(stateDir, 'tiny-base');
  cpSync(await tinyModel(), dir, { recursive: true });
  return dir;
}

/** Patches a test config into the real CPU loop: transformers serve + probe, TRL, simulated agents. */
export function realCpuLoop(base: string, trainer: Record<string, unknown> = {}) {
  return (c: Record<string, any>) => {
    c.baseCheckpoint = base;
    c.server = { kind: 'transformers', readyTimeoutSeconds: 180, probe: { prompts: 2, maxTokens: 8 } };
    c.agents = { skill: 0.45, agreeability: 0.7 };
    c.trainer = {
      kind: 'trl',
      method: 'dpo',
      maxSteps: 4,
      saveSteps: 2,
      batchSize: 2,
      maxLength: 384,
      learningRate: 0.001,
      heartbeatTimeoutSeconds: 60,
      ...trainer,
    };
  };
}
