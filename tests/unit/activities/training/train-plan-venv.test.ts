// trainer.python picks the trainer's environment, and with it the launcher: an adapter's bare launcher name
// (OpenRLHF's `deepspeed`, verl's `torchrun`) runs as the console script in that venv's bin/ when it is there, and is
// left to PATH when it is not; the step's other arguments are untouched. (tests/engines/openrlhf-cpu.test.ts runs it.)
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { trainerSchema } from '../../../../configs/schema';
import type { TrainerConfig } from '../../../../contracts/config';
import { planAdapter } from '../../../../activities/training/train-plan';
import { job, tmpDir } from '../../../helpers/trainer-adapters';

function venvWith(...scripts: string[]): string {
  const bin = path.join(tmpDir('venv'), 'bin');
  mkdirSync(bin, { recursive: true });
  for (const s of ['python', ...scripts]) {
    writeFileSync(path.join(bin, s), '#!/bin/sh\n');
    chmodSync(path.join(bin, s), 0o755);
  }
  return path.join(bin, 'python');
}

type AdapterTrainer = Exclude<TrainerConfig, { kind: 'command' }>;
const openrlhf = (python: string, launcher?: string[]) =>
  trainerSchema.parse({ kind: 'openrlhf', method: 'sft', python, launcher }) as AdapterTrainer;

describe("a trainer's launcher and trainer.python", () => {
  it("runs the venv's console script when the venv has it", () => {
    const python = venvWith('deepspeed');
    const [step] = planAdapter(openrlhf(python), { ...job('sft'), python }).steps;
    expect(step.argv.slice(0, 3)).toEqual([path.join(path.dirname(python), 'deepspeed'), '--num_gpus', '1']);
    expect(step.argv).toContain('openrlhf.cli.train_sft');
  });

  it('leaves the name to PATH when the venv lacks it, and a path as given', () => {
    const python = venvWith();
    expect(planAdapter(openrlhf(python), { ...job('sft'), python }).steps[0].argv[0]).toBe('deepspeed');
    const t = openrlhf(python, ['/opt/ds/bin/deepspeed', '--num_gpus', '2']);
    expect(planAdapter(t, { ...job('sft'), python }).steps[0].argv[0]).toBe('/opt/ds/bin/deepspeed');
  });
});
