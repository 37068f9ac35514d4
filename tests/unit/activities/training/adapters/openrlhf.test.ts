// OpenRLHF adapter, unit tests of our own logic: which flag of which generation (renamed in v0.10.2) carries which
// option, tqdm/DeepSpeed progress parsing on fixture logs, and the DeepSpeed tag a retry resumes from. The installed
// package checks the same argv and data (tests/engines/openrlhf-args.test.ts: its parser and datasets; the legacy
// generation refused by 0.11.2) and trains with it on CPU (tests/engines/openrlhf-cpu.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  detectOpenRlhfFlags,
  OPENRLHF_ENV,
  openrlhfAdapter,
  openrlhfOptionsSchema,
  type OpenRlhfOptions,
} from '../../../../../activities/training/adapters/openrlhf';
import { common, job, parseFixture, tmpDir } from '../../../../helpers/trainer-adapters';

const options = (extra: Partial<OpenRlhfOptions> = {}): OpenRlhfOptions => ({ ...common, ...openrlhfOptionsSchema.parse({}), ...extra });
const resume = { path: '/w/work/checkpoints/global_step50', step: 50 };

describe('openrlhfAdapter.plan', () => {
  it('SFT, dotted flags (≥ 0.10.2): messages rows, last message = target, no --data.multiturn', () => {
    const [step] = openrlhfAdapter.plan(job('sft'), options());
    expect(step).toEqual({
      name: 'train',
      argv: [
        'deepspeed',
        '--num_gpus',
        '1',
        '--module',
        'openrlhf.cli.train_sft',
        '--model.model_name_or_path',
        '/ckpt/iter-1',
        '--data.dataset',
        '/w/data/train.jsonl',
        '--data.apply_chat_template',
        '--data.input_key',
        'messages',
        '--data.max_len',
        '2048',
        '--train.micro_batch_size',
        '4',
        '--train.batch_size',
        '8',
        '--train.max_epochs',
        '1',
        '--train.seed',
        '7',
        '--ds.zero_stage',
        '2',
        '--ckpt.output_dir',
        '/ckpt/iter-2',
        '--ckpt.path',
        '/w/work/checkpoints',
        '--ckpt.save_steps',
        '50',
      ],
      env: OPENRLHF_ENV,
    });
    expect(step.argv.join(' ')).not.toMatch(/multiturn|output_key|input_template/);
  });

  it('DPO, dotted, resumed on 8 GPUs: reference = base, chat-template message lists, load flag, global batch', () => {
    const [step] = openrlhfAdapter.plan(
      job('dpo'),
      options({ gpus: 8, learningRate: 5e-7, beta: 0.2, extraArgs: ['--model.gradient_checkpointing_enable'] }),
      resume,
    );
    expect(step.argv).toEqual([
      'deepspeed',
      '--num_gpus',
      '8',
      '--module',
      'openrlhf.cli.train_dpo',
      '--model.model_name_or_path',
      '/ckpt/iter-1',
      '--ref.model_name_or_path',
      '/ckpt/iter-1',
      '--data.dataset',
      '/w/data/train.jsonl',
      '--data.apply_chat_template',
      '--data.prompt_key',
      'prompt',
      '--data.chosen_key',
      'chosen',
      '--data.rejected_key',
      'rejected',
      '--data.max_len',
      '2048',
      '--train.micro_batch_size',
      '4',
      '--train.batch_size',
      '64',
      '--train.max_epochs',
      '1',
      '--adam.lr',
      '5e-7',
      '--model.beta',
      '0.2',
      '--train.seed',
      '7',
      '--ds.zero_stage',
      '2',
      '--ckpt.output_dir',
      '/ckpt/iter-2',
      '--ckpt.path',
      '/w/work/checkpoints',
      '--ckpt.save_steps',
      '50',
      '--ckpt.load_enable',
      '--model.gradient_checkpointing_enable',
    ]);
  });

  it('legacy flags (≤ 0.10.1): the same meanings under the old names', () => {
    const [sft] = openrlhfAdapter.plan(job('sft'), options({ flags: 'legacy' }), resume);
    expect(sft.argv).toEqual([
      'deepspeed',
      '--num_gpus',
      '1',
      '--module',
      'openrlhf.cli.train_sft',
      '--pretrain',
      '/ckpt/iter-1',
      '--dataset',
      '/w/data/train.jsonl',
      '--apply_chat_template',
      '--input_key',
      'messages',
      '--max_len',
      '2048',
      '--micro_train_batch_size',
      '4',
      '--train_batch_size',
      '8',
      '--max_epochs',
      '1',
      '--seed',
      '7',
      '--zero_stage',
      '2',
      '--save_path',
      '/ckpt/iter-2',
      '--ckpt_path',
      '/w/work/checkpoints',
      '--save_steps',
      '50',
      '--load_checkpoint',
    ]);
    const [dpo] = openrlhfAdapter.plan(job('dpo'), options({ flags: 'legacy', learningRate: 1e-6, attnImplementation: 'sdpa' }));
    expect(dpo.argv).toEqual([
      'deepspeed',
      '--num_gpus',
      '1',
      '--module',
      'openrlhf.cli.train_dpo',
      '--pretrain',
      '/ckpt/iter-1',
      '--ref_pretrain',
      '/ckpt/iter-1',
      '--dataset',
      '/w/data/train.jsonl',
      '--apply_chat_template',
      '--prompt_key',
      'prompt',
      '--chosen_key',
      'chosen',
      '--rejected_key',
      'rejected',
      '--max_len',
      '2048',
      '--micro_train_batch_size',
      '4',
      '--train_batch_size',
      '8',
      '--max_epochs',
      '1',
      '--learning_rate',
      '0.000001',
      '--beta',
      '0.1',
      '--seed',
      '7',
      '--zero_stage',
      '2',
      '--attn_implementation',
      'sdpa',
      '--save_path',
      '/ckpt/iter-2',
      '--ckpt_path',
      '/w/work/checkpoints',
      '--save_steps',
      '50',
    ]);
    expect(dpo.argv.some((a) => a.startsWith('--') && a.includes('.'))).toBe(false);
  });

  it('a launcher replaces deepspeed --num_gpus; maxSteps = one epoch of maxSteps × global batch rows; saveSteps 0 = no states', () => {
    const [step] = openrlhfAdapter.plan(
      job('sft'),
      options({
        launcher: ['deepspeed', '--hostfile', '/etc/hosts.ds', '--num_nodes', '2'],
        gpus: 16,
        maxSteps: 30,
        epochs: 3,
        saveSteps: 0,
        attnImplementation: 'sdpa',
      }),
    );
    expect(step.argv.slice(0, 7)).toEqual([
      'deepspeed',
      '--hostfile',
      '/etc/hosts.ds',
      '--num_nodes',
      '2',
      '--module',
      'openrlhf.cli.train_sft',
    ]);
    const flag = (name: string) => step.argv[step.argv.indexOf(name) + 1];
    expect(flag('--train.batch_size')).toBe('128');
    expect(flag('--train.max_epochs')).toBe('1');
    expect(flag('--data.max_samples')).toBe(String(30 * 128));
    expect(flag('--ckpt.save_steps')).toBe('-1');
    expect(flag('--ds.attn_implementation')).toBe('sdpa');
    const [byEpochs] = openrlhfAdapter.plan(job('sft'), options({ epochs: 2.5 }));
    expect(byEpochs.argv[byEpochs.argv.indexOf('--train.max_epochs') + 1]).toBe('3'); // an int flag
    expect(byEpochs.argv).not.toContain('--data.max_samples');
  });

  it('options schema: strict, flags default dotted', () => {
    expect(openrlhfOptionsSchema.parse({})).toEqual({ flags: 'dotted', gpus: 1, zeroStage: 2 });
    expect(openrlhfOptionsSchema.safeParse({ flags: 'v0.10' }).success).toBe(false);
    expect(openrlhfOptionsSchema.safeParse({ nprocPerNode: 2 }).success).toBe(false);
  });
});

describe('detectOpenRlhfFlags', () => {
  it('--help of ≥ 0.10.2 lists --data.dataset; older ones --dataset', () => {
    expect(
      detectOpenRlhfFlags(
        'usage: train_sft.py [-h] [--ckpt.output_dir CKPT.OUTPUT_DIR] [--data.dataset DATA.DATASET]\n  --data.dataset DATA.DATASET  Path to the training dataset',
      ),
    ).toBe('dotted');
    expect(
      detectOpenRlhfFlags(
        'usage: train_sft.py [-h] [--save_path SAVE_PATH] [--dataset DATASET] [--dataset_probs DATASET_PROBS] [--eval_dataset EVAL_DATASET]',
      ),
    ).toBe('legacy');
  });
});

describe('openrlhfAdapter.parseLine', () => {
  it('SFT log: gpt_loss from the tqdm postfix (nan dropped, eval bars ignored); DeepSpeed saves give the step and tag', () => {
    expect(parseFixture(openrlhfAdapter, 'openrlhf-sft.log')).toEqual([
      { loss: 1.92 },
      { loss: 1.87 },
      { loss: 1.5 },
      { step: 20 },
      { step: 20, checkpoint: 'global_step20' },
    ]);
  });

  it('DPO log: the preference loss, never nll_loss', () => {
    expect(parseFixture(openrlhfAdapter, 'openrlhf-dpo.log')).toEqual([{ loss: 0.693 }, { loss: 0.61 }, { loss: 0.55 }]);
  });
});

describe('openrlhfAdapter.findResumePoint', () => {
  const root = tmpDir('orlhf-resume');
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const tag = (work: string, name: string, files: string[]) => {
    mkdirSync(path.join(work, 'checkpoints', name), { recursive: true });
    for (const f of files) writeFileSync(path.join(work, 'checkpoints', name, f), 'x');
  };
  const latest = (work: string, text: string) => writeFileSync(path.join(work, 'checkpoints', 'latest'), text);

  it('the tag named by `latest` (DeepSpeed writes it last); a newer dir it does not name was cut short', () => {
    const work = path.join(root, 'a');
    tag(work, 'global_step20', ['mp_rank_00_model_states.pt', 'zero_pp_rank_0_mp_rank_00_optim_states.pt']);
    tag(work, 'global_step20_hf', ['model.safetensors']);
    tag(work, 'global_step40', ['mp_rank_00_model_states.pt']); // being written
    expect(openrlhfAdapter.findResumePoint(work)).toBeUndefined(); // no `latest` yet
    latest(work, 'global_step20\n');
    expect(openrlhfAdapter.findResumePoint(work)).toEqual({ path: path.join(work, 'checkpoints', 'global_step20'), step: 20 });
  });

  it('ZeRO-3 names; `latest` naming a missing, empty or odd tag is nothing to resume', () => {
    const work = path.join(root, 'b');
    tag(work, 'global_step8', ['zero_pp_rank_0_mp_rank_00_model_states.pt', 'zero_pp_rank_0_mp_rank_00_optim_states.pt']);
    latest(work, 'global_step8');
    expect(openrlhfAdapter.findResumePoint(work)?.step).toBe(8);
    latest(work, 'global_step9');
    expect(openrlhfAdapter.findResumePoint(work)).toBeUndefined();
    tag(work, 'global_step10', []);
    latest(work, 'global_step10');
    expect(openrlhfAdapter.findResumePoint(work)).toBeUndefined();
    latest(work, 'best_0.91');
    expect(openrlhfAdapter.findResumePoint(work)).toBeUndefined();
    expect(openrlhfAdapter.findResumePoint(path.join(root, 'missing'))).toBeUndefined();
  });
});
