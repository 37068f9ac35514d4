// The OpenRLHF adapter's argv and data, checked by the installed openrlhf 0.11.2 (./.venv-openrlhf, `node bin/setup.js
// --engines`) without training: fixtures/openrlhf_parse.py runs openrlhf.cli.train_sft / train_dpo as __main__ with
// the adapter's arguments — the CLI's own ArgumentParser and checks — and stops at train(), then builds the CLI's
// dataset (SFTDataset / RewardDataset) from the rows the loop's data builders write, with the tiny model's tokenizer.
// So a flag OpenRLHF renames, a value it reads differently or a row key it does not find fails here. (The real
// training runs are in ./openrlhf-cpu.test.ts.) Run by `npm run test:engines`.
import { execa } from 'execa';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatPreferences, formatSft } from '../../activities/data/formats';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import {
  detectOpenRlhfFlags,
  openrlhfAdapter,
  openrlhfOptionsSchema,
  type OpenRlhfOptions,
} from '../../activities/training/adapters/openrlhf';
import type { TrainJob, TrainMethod } from '../../activities/training/adapters/types';
import { tempStateDir } from '../helpers/config';
import { tinyModel } from '../helpers/tiny-model';

const PYTHON = path.join(PROJECT_ROOT, '.venv-openrlhf', 'bin', 'python');
const FIXTURES = path.join(PROJECT_ROOT, 'tests', 'engines', 'fixtures');
const ENV = { DS_ACCELERATOR: 'cpu', PYTHONPATH: path.join(FIXTURES, 'openrlhf-cpu'), HF_HUB_OFFLINE: '1', HF_DATASETS_OFFLINE: '1' };

const conversation = (i: number) => [
  { role: 'user' as const, content: `What is ${i} + 7?` },
  { role: 'assistant' as const, content: `Maybe ${i + 6}.` },
  { role: 'user' as const, content: 'Check again.' },
];
const view = (i: number) => ({ taskId: `t${i}`, sampleIndex: 0, turn: 1, messages: conversation(i) });
const sft = formatSft(
  [0, 1, 2].map((i) => ({ ...view(i), completion: `It is ${i + 7}.` })),
  'openrlhf',
);
const dpo = formatPreferences(
  [0, 1, 2].map((i) => ({ ...view(i), chosen: `It is ${i + 7}.`, rejected: `It is ${i + 6}.` })),
  'openrlhf',
);

interface Parsed {
  args: Record<string, Record<string, unknown>>;
  rows: Array<Record<string, string>>;
}

describe('the OpenRLHF adapter, checked by the installed openrlhf', () => {
  let dir: string;
  let base: string;
  beforeAll(async () => {
    dir = tempStateDir('openrlhf-args-');
    base = await tinyModel();
  }, 120_000);

  const options = (o: Partial<OpenRlhfOptions> = {}): OpenRlhfOptions => ({
    epochs: 1,
    batchSize: 1,
    gradientAccumulation: 2,
    maxLength: 512,
    saveSteps: 10,
    beta: 0.1,
    extraArgs: [],
    ...openrlhfOptionsSchema.parse({}),
    ...o,
  });
  const jobFor = (method: TrainMethod, rows: string[]): TrainJob => {
    const data = path.join(dir, method);
    mkdirSync(data, { recursive: true });
    writeFileSync(path.join(data, 'train.jsonl'), `${rows.join('\n')}\n`);
    return {
      method,
      base,
      dataDir: data,
      dataFile: path.join(data, 'train.jsonl'),
      workDir: path.join(data, 'work'),
      hfOutput: path.join(data, 'out'),
      python: PYTHON,
      seed: 7,
    };
  };
  /** The plan's argv from `--module` on, through the package's parser and dataset; exit code and output. */
  async function check(job: TrainJob, o: OpenRlhfOptions, resume?: { path: string; step: number }) {
    const [step] = openrlhfAdapter.plan(job, o, resume);
    const r = await execa(PYTHON, [path.join(FIXTURES, 'openrlhf_parse.py'), ...step.argv.slice(step.argv.indexOf('--module'))], {
      env: { ...step.env, ...ENV },
      reject: false,
    });
    const last = String(r.stdout).trim().split('\n').pop() ?? '';
    return { exitCode: r.exitCode, stderr: String(r.stderr), parsed: r.exitCode === 0 ? (JSON.parse(last) as Parsed) : undefined };
  }

  it('SFT: every flag the loop sets is one train_sft parses to the meant value; the loss covers the last turn only', async () => {
    const { exitCode, stderr, parsed } = await check(jobFor('sft', sft), options({ maxSteps: 1, learningRate: 2e-5 }));
    expect(exitCode, stderr).toBe(0);
    const { args, rows } = parsed!;
    expect(args.model.model_name_or_path).toBe(base);
    expect(args.data).toMatchObject({ apply_chat_template: true, input_key: 'messages', multiturn: false, max_len: 512, max_samples: 2 });
    expect(args.train).toMatchObject({ micro_batch_size: 1, batch_size: 2, max_epochs: 1, seed: 7 });
    expect(args.adam).toMatchObject({ lr: 2e-5 });
    expect(args.ds).toMatchObject({ zero_stage: 2 });
    expect(args.ckpt).toMatchObject({ save_steps: 10, load_enable: false });
    // max_samples = maxSteps × global batch rows; each through the tokenizer's chat template, earlier turns as prompt.
    expect(rows).toHaveLength(2);
    expect(rows[0].text).toContain('What is 0 + 7?');
    expect(rows[0].text).toContain('Maybe 6.');
    expect(rows[0].trained).toBe('It is 7.<|eot_id|>');
  }, 300_000);

  it('DPO resumed: reference, preference keys, beta and the load flag; chosen and rejected follow the same prompt', async () => {
    const job = jobFor('dpo', dpo);
    const { exitCode, stderr, parsed } = await check(job, options({ beta: 0.2, attnImplementation: 'sdpa', zeroStage: 0 }), {
      path: path.join(job.workDir, 'checkpoints', 'global_step1'),
      step: 1,
    });
    expect(exitCode, stderr).toBe(0);
    const { args, rows } = parsed!;
    expect(args.ref.model_name_or_path).toBe(base);
    expect(args.model).toMatchObject({ beta: 0.2 });
    expect(args.data).toMatchObject({ prompt_key: 'prompt', chosen_key: 'chosen', rejected_key: 'rejected', apply_chat_template: true });
    expect(args.ds).toMatchObject({ zero_stage: 0, attn_implementation: 'sdpa' });
    expect(args.ckpt).toMatchObject({ load_enable: true, path: path.join(job.workDir, 'checkpoints'), output_dir: job.hfOutput });
    expect(rows).toHaveLength(3);
    expect(rows[1].prompt).toContain('What is 1 + 7?');
    expect(rows[1].prompt).toContain('Check again.');
    expect(rows[1].chosen).toMatch(/^It is 8\.<\|eot_id\|>/);
    expect(rows[1].rejected).toMatch(/^It is 7\.<\|eot_id\|>/);
  }, 300_000);

  it('tells the installed flag generation from --help, and the other generation is refused by the parser', async () => {
    const help = await execa(PYTHON, ['-m', 'openrlhf.cli.train_sft', '--help'], { env: ENV });
    expect(detectOpenRlhfFlags(String(help.stdout))).toBe('dotted');
    const { exitCode, stderr } = await check(jobFor('sft', sft), options({ flags: 'legacy' }));
    expect(exitCode).toBe(2);
    expect(stderr).toMatch(/unrecognized arguments: --pretrain /);
  }, 300_000);

  it('rows in another trainer’s shape are refused by the dataset, naming the missing key', async () => {
    const trlRows = formatSft(
      [0, 1].map((i) => ({ ...view(i), completion: `It is ${i + 7}.` })),
      'trl',
    );
    const { exitCode, stderr } = await check(jobFor('sft', trlRows), options());
    expect(exitCode).not.toBe(0);
    expect(stderr).toMatch(/KeyError: 'messages'/);
  }, 300_000);
});
