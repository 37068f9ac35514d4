// Shared by the GPU-trainer adapter tests: a sample job, options as the config schema fills them, fixture logs.
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommonTrainOptions, TrainerAdapter, TrainerProgress, TrainJob, TrainMethod } from '../../activities/training/adapters/types';

export const job = (method: TrainMethod): TrainJob => ({
  method,
  base: '/ckpt/iter-1',
  dataDir: '/w/data',
  dataFile: '/w/data/train.jsonl',
  workDir: '/w/work',
  hfOutput: '/ckpt/iter-2',
  python: '/venv/bin/python',
  seed: 7,
});

/** The common fields as configs/schema.ts fills them (learning rate and max steps left unset). */
export const common: CommonTrainOptions = {
  epochs: 1,
  batchSize: 4,
  gradientAccumulation: 2,
  maxLength: 2048,
  saveSteps: 50,
  beta: 0.1,
  extraArgs: [],
};

export const tmpDir = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `collab-${prefix}-`));

/** Every line of a fixture log (as the train activity splits output: \n, \r\n or \r) through parseLine; silent lines dropped. */
export function parseFixture(adapter: Pick<TrainerAdapter<never>, 'parseLine'>, name: string): TrainerProgress[] {
  const text = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/trainer-logs', name), 'utf8');
  return text
    .split(/\r\n|\r|\n/)
    .map((l) => adapter.parseLine(l))
    .filter((p) => Object.keys(p).length > 0);
}
