// Real TRL on the CPU (no stand-in): the adapter's planned step trains the tiny random Llama with SFT and DPO,
// resumes after a SIGKILL from the last complete checkpoint, and rejects a bad row with one clear line.
// Assumes the .venv has requirements.txt installed (`npm test` runs bin/setup.js first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trlAdapter } from '../../../../../activities/training/adapters/trl';
import type {
  CommonTrainOptions,
  ResumePoint,
  TrainerProgress,
  TrainJob,
  TrainMethod,
  TrainStep,
} from '../../../../../activities/training/adapters/types';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { tinyModel, VENV_PYTHON } from '../../../../helpers/tiny-model';

let root: string;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-trl-'));
  base = await tinyModel();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const user = (content: string) => [{ role: 'user', content }];
const assistant = (content: string) => [{ role: 'assistant', content }];
const sftRows = Array.from({ length: 16 }, (_, i) => ({
  prompt: user(`What is ${i} + ${i + 1}?`),
  completion: assistant(`${i} + ${i + 1} = ${2 * i + 1}. The answer is ${2 * i + 1}.`),
}));
const dpoRows = Array.from({ length: 8 }, (_, i) => ({
  prompt: [{ role: 'system', content: 'Answer briefly.' }, ...user(`What is ${i} * 3?`)],
  chosen: assistant(`The answer is ${3 * i}.`),
  rejected: assistant(`I think it is ${3 * i + 1}.`),
}));

function trainJob(name: string, method: TrainMethod, rows: unknown[]): TrainJob {
  const dataDir = path.join(root, name, 'data');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'train.jsonl'), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return {
    method,
    base,
    dataDir,
    dataFile: path.join(dataDir, 'train.jsonl'),
    workDir: path.join(root, name, 'work'),
    hfOutput: path.join(root, name, 'final'),
    python: VENV_PYTHON,
    seed: 1,
  };
}

const options = (o: Partial<CommonTrainOptions>): CommonTrainOptions => ({
  epochs: 1,
  batchSize: 2,
  gradientAccumulation: 1,
  maxLength: 256,
  saveSteps: 2,
  beta: 0.1,
  learningRate: 1e-3,
  extraArgs: [],
  ...o,
});

interface Run {
  exitCode?: number;
  signal?: string;
  stdout: string[];
  stderr: string;
  parsed: TrainerProgress[];
}

/** Runs a planned step in its own process group; `killWhen` SIGKILLs the whole group on a matching stdout line. */
async function run(step: TrainStep, killWhen?: (p: TrainerProgress, line: string) => boolean): Promise<Run> {
  const child = execa(step.argv[0], step.argv.slice(1), {
    env: step.env,
    detached: true,
    reject: false,
    stdin: 'ignore',
    cwd: PROJECT_ROOT,
  });
  const stdout: string[] = [];
  const parsed: TrainerProgress[] = [];
  for await (const line of child) {
    stdout.push(line);
    const p = trlAdapter.parseLine(line);
    if (Object.keys(p).length) parsed.push(p);
    if (killWhen?.(p, line)) process.kill(-child.pid!, 'SIGKILL');
  }
  const r = await child;
  return { exitCode: r.exitCode, signal: r.signal, stdout, stderr: String(r.stderr), parsed };
}

const event = (lines: string[], name: string) =>
  lines.filter((l) => l.startsWith(`collab-loop-${name} `)).map((l) => JSON.parse(l.slice(`collab-loop-${name} `.length)));

describe('TRL through trl_train.py (tiny model, CPU)', () => {
  it('SFT: 6 steps, checkpoints every 2, a loadable Hugging Face model at hfOutput', async () => {
    const job = trainJob('sft', 'sft', sftRows);
    const [step] = trlAdapter.plan(job, options({ maxSteps: 6 }));
    const r = await run(step);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.parsed.filter((p) => p.step !== undefined && p.loss !== undefined && !p.checkpoint).map((p) => p.step)).toEqual([
      1, 2, 3, 4, 5, 6, 6,
    ]); // six progress lines, then the done line
    expect(r.parsed.filter((p) => p.checkpoint).map((p) => p.checkpoint)).toEqual(
      [2, 4, 6].map((n) => path.join(job.workDir, `checkpoint-${n}`)),
    );
    expect(event(r.stdout, 'done')).toEqual([expect.objectContaining({ path: job.hfOutput, step: 6, loss: expect.any(Number) })]);
    for (const f of [
      'config.json',
      'model.safetensors',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'chat_template.jinja',
    ])
      expect(existsSync(path.join(job.hfOutput, f)), f).toBe(true);
    expect(existsSync(`${job.hfOutput}.tmp`)).toBe(false);
    expect(trlAdapter.findResumePoint(job.workDir)).toEqual({ path: path.join(job.workDir, 'checkpoint-6'), step: 6 });
    // The trained directory is a model the next iteration can load and chat with.
    const load = await execa(
      VENV_PYTHON,
      [
        '-c',
        [
          'import sys; from transformers import AutoModelForCausalLM, AutoTokenizer',
          't = AutoTokenizer.from_pretrained(sys.argv[1]); m = AutoModelForCausalLM.from_pretrained(sys.argv[1])',
          'x = t.apply_chat_template([{"role": "user", "content": "hi"}], add_generation_prompt=True, return_tensors="pt", return_dict=True)',
          'print(m.generate(**x, max_new_tokens=2).shape[-1] > x["input_ids"].shape[-1])',
        ].join('\n'),
        job.hfOutput,
      ],
      { env: step.env },
    );
    expect(String(load.stdout).trim().split('\n').pop()).toBe('True');
  });

  it('DPO: 3 steps on preference rows', async () => {
    const job = trainJob('dpo', 'dpo', dpoRows);
    const [step] = trlAdapter.plan(job, options({ maxSteps: 3, beta: 0.1 }));
    const r = await run(step);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(event(r.stdout, 'progress').map((e) => e.step)).toEqual([1, 2, 3]);
    expect(event(r.stdout, 'done')[0]).toMatchObject({ path: job.hfOutput, step: 3 });
    expect(existsSync(path.join(job.hfOutput, 'model.safetensors'))).toBe(true);
  });

  it('resumes after SIGKILL from the last complete checkpoint, not from step 0', async () => {
    const job = trainJob('resume', 'sft', sftRows);
    // Gradient accumulation makes each step slow enough that the kill lands well before step 8.
    const opts = options({ maxSteps: 8, saveSteps: 2, gradientAccumulation: 4 });
    const killed = await run(trlAdapter.plan(job, opts)[0], (p) => !!p.checkpoint);
    expect(killed.signal).toBe('SIGKILL');
    expect(event(killed.stdout, 'done')).toEqual([]);

    const resume = trlAdapter.findResumePoint(job.workDir) as ResumePoint;
    expect(resume.step).toBeGreaterThanOrEqual(2);
    const [step] = trlAdapter.plan(job, opts, resume);
    expect(step.argv).toContain('--resume-from');
    const r = await run(step);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(event(r.stdout, 'resumed')).toEqual([{ step: resume.step }]);
    const steps = event(r.stdout, 'progress').map((e) => e.step);
    expect(steps[0]).toBe(resume.step + 1);
    expect(steps.at(-1)).toBe(8);
    expect(event(r.stdout, 'done')[0]).toMatchObject({ step: 8 });
  });

  it('a bad row: exit 2 and one line naming the file, line and field, no traceback', async () => {
    const rows: unknown[] = [...dpoRows.slice(0, 2), { ...dpoRows[2], chosen: 'not a message list' }];
    const job = trainJob('bad', 'dpo', rows);
    const r = await run(trlAdapter.plan(job, options({ maxSteps: 1 }))[0]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(`trl_train.py: ${job.dataFile} line 3: field "chosen" must be a list of messages`);
    expect(r.stdout.join('\n')).not.toContain('Traceback');
    expect(existsSync(job.hfOutput)).toBe(false);
  });

  it('rows all longer than maxLength: exit 2 and one line saying to raise trainer.maxLength, no traceback', async () => {
    // A debate critic's whole conversation is long; TRL drops rows over max_length, leaving nothing to train on.
    const long = sftRows.slice(0, 3).map((r) => ({ ...r, prompt: user(`${'Answer of another agent: 12. '.repeat(40)}Which is right?`) }));
    const job = trainJob('too-long', 'sft', long);
    const r = await run(trlAdapter.plan(job, options({ maxSteps: 1, maxLength: 32 }))[0]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      `trl_train.py: ${job.dataFile}: none of its 3 rows fits in --max-length 32 tokens (raise trainer.maxLength)`,
    );
    expect(r.stderr).not.toContain('Traceback');
    expect(existsSync(job.hfOutput)).toBe(false);
  });
});
