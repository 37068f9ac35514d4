// fairseq2, OpenRLHF and verl need GPUs, so these tests pin what the adapters hand to them — argv per version,
// progress parsing, which checkpoint a retry resumes from — and run our own Python helper steps for real.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trainerSchema } from '../../../configs/schema';
import { fairseq2Adapter, FAIRSEQ2_RUN_FILE } from '../../../activities/training/adapters/fairseq2';
import { detectOpenRlhfFlags, openrlhfAdapter } from '../../../activities/training/adapters/openrlhf';
import { verlAdapter } from '../../../activities/training/adapters/verl';
import type { TrainJob } from '../../../activities/training/adapters/types';
import { VENV_PYTHON } from '../../helpers/tiny-model';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'collab-adapter-'));
const job = (method: 'sft' | 'dpo', base = '/ckpt/iter-0'): TrainJob => ({
  method, base, dataDir: '/s/data', dataFile: '/s/data/train.jsonl', workDir: '/s/work', hfOutput: '/s/out', python: '/venv/python', project: '/p', seed: 5,
});
function options<K extends 'fairseq2' | 'openrlhf' | 'verl'>(kind: K, extra: Record<string, unknown> = {}) {
  return trainerSchema.parse({ kind, method: 'sft', maxSteps: 100, saveSteps: 20, learningRate: 1e-6, batchSize: 8, maxLength: 4096, ...extra }) as never;
}

describe('OpenRLHF adapter', () => {
  it('≥ 0.10.2: dotted flags, chat-template keys, resumable DeepSpeed states', () => {
    const [step] = openrlhfAdapter.plan(job('dpo'), options('openrlhf', { method: 'dpo' }));
    expect(step.argv).toEqual([
      'deepspeed', '--module', 'openrlhf.cli.train_dpo', '--model.model_name_or_path', '/ckpt/iter-0', '--ckpt.output_dir', '/s/out',
      '--data.dataset', '/s/data/train.jsonl', '--data.max_len', '4096', '--data.apply_chat_template',
      '--data.prompt_key', 'prompt', '--data.chosen_key', 'chosen', '--data.rejected_key', 'rejected', '--ref.model_name_or_path', '/ckpt/iter-0', '--model.beta', '0.1',
      '--ds.zero_stage', '2', '--ds.param_dtype', 'bf16', '--train.micro_batch_size', '1', '--train.batch_size', '8', '--train.max_epochs', '1',
      '--adam.lr', '0.000001', '--ckpt.path', '/s/work/ckpt', '--ckpt.save_steps', '20', '--ckpt.load_enable',
    ]);
  });

  it('≤ 0.10.1: legacy flags, SFT on the last message only (no --multiturn), custom launcher', () => {
    const [step] = openrlhfAdapter.plan(job('sft'), options('openrlhf', { flags: 'legacy', launcher: ['deepspeed', '--num_gpus', '8'], extraArgs: ['--gradient_checkpointing'] }));
    expect(step.argv).toEqual([
      'deepspeed', '--num_gpus', '8', '--module', 'openrlhf.cli.train_sft', '--pretrain', '/ckpt/iter-0', '--save_path', '/s/out',
      '--dataset', '/s/data/train.jsonl', '--max_len', '4096', '--apply_chat_template', '--input_key', 'messages',
      '--zero_stage', '2', '--bf16', '--micro_train_batch_size', '1', '--train_batch_size', '8', '--max_epochs', '1',
      '--learning_rate', '0.000001', '--ckpt_path', '/s/work/ckpt', '--save_steps', '20', '--load_checkpoint', '--gradient_checkpointing',
    ]);
    expect(step.argv).not.toContain('--multiturn');
  });

  it('tells the flag generation from --help, parses tqdm bars, resumes only from the tag DeepSpeed finished', () => {
    expect(detectOpenRlhfFlags('  --data.dataset DATA.DATASET  dataset paths')).toBe('dotted');
    expect(detectOpenRlhfFlags('  --dataset DATASET  dataset paths')).toBe('legacy');
    expect(openrlhfAdapter.parseLine('Train step of epoch 0:  40%|####      | 4/10 [00:10<00:15, gpt_loss=1.23, lr=5e-06]')).toEqual({ step: 4, loss: 1.23 });
    expect(openrlhfAdapter.parseLine('Train step of epoch 0:  10%|#| 1/10 [00:01, loss=0.69]\rTrain step of epoch 0:  20%|##| 2/10 [00:02, loss=0.65, acc=0.5]')).toEqual({ step: 2, loss: 0.65 });
    expect(openrlhfAdapter.parseLine('[rank0]: loading model')).toEqual({});
    const w = tmp();
    mkdirSync(path.join(w, 'ckpt', 'global_step20'), { recursive: true });
    mkdirSync(path.join(w, 'ckpt', 'global_step40'), { recursive: true }); // being written: `latest` still says 20
    expect(openrlhfAdapter.findResumePoint(w)).toBeUndefined();
    writeFileSync(path.join(w, 'ckpt', 'latest'), 'global_step20\n');
    expect(openrlhfAdapter.findResumePoint(w)).toEqual({ path: path.join(w, 'ckpt', 'global_step20'), step: 20 });
  });
});

describe('fairseq2 0.4 adapter', () => {
  it('preference_finetune with dotted overrides, then HF config + weights export', () => {
    const steps = fairseq2Adapter.plan(job('dpo'), options('fairseq2', { method: 'dpo', model: 'llama3_2_1b_instruct', assetDir: '/cards' }));
    expect(steps.map((s) => s.name)).toEqual(['train', 'export-config', 'export']);
    expect(steps[0].argv).toEqual([
      'fairseq2', 'lm', 'preference_finetune', '/s/work', '--no-sweep-dir', '--config',
      'dataset.path=/s/data', 'dataset.max_seq_len=4096', 'dataset.max_num_tokens=32768', 'dataset.source_encode_mode=as_is',
      'model.name=llama3_2_1b_instruct', 'regime.num_steps=100', 'regime.checkpoint_every_n_steps=20', 'optimizer.config.lr=0.000001',
      'common.seed=5', 'criterion.config.beta=0.1',
    ]);
    expect(steps[0].env).toEqual({ FAIRSEQ2_USER_ASSET_DIR: '/cards' });
    expect(steps[1].argv).toEqual(['fairseq2', 'llama', 'write_hf_config', 'llama3_2_1b_instruct', '/s/out']);
    expect(steps[2].argv).toEqual(['/venv/python', '/p/scripts/python/fairseq2_export.py', '--checkpoint-dir', '/s/work/checkpoints', '--base', '/ckpt/iter-0', '--out', '/s/out']);
  });

  it('later iterations continue from the previous run\'s weights; step_N.tmp is never resumed', () => {
    const base = tmp();
    writeFileSync(path.join(base, FAIRSEQ2_RUN_FILE), JSON.stringify({ checkpointDir: '/old/work/checkpoints' }));
    const [train] = fairseq2Adapter.plan(job('sft', base), options('fairseq2'));
    expect(train.argv).toEqual(expect.arrayContaining(['instruction_finetune', 'common.assets.checkpoint_dir=/old/work/checkpoints', 'model.name=last_checkpoint']));
    const w = tmp();
    for (const d of ['step_20', 'step_40', 'step_60.tmp']) mkdirSync(path.join(w, 'checkpoints', d), { recursive: true });
    expect(fairseq2Adapter.findResumePoint(w)).toEqual({ path: path.join(w, 'checkpoints', 'step_40'), step: 40 });
    expect(fairseq2Adapter.parseLine('[INFO] Train Metrics (step 40) - Loss: 1.234 | Elapsed: 12s')).toEqual({ step: 40, loss: 1.234 });
    expect(fairseq2Adapter.parseLine('Resuming from step 40.')).toEqual({ step: 40 });
  });

  it('the export step links the latest complete step\'s weights and the base tokenizer', async () => {
    const w = tmp(), base = tmp(), out = path.join(tmp(), 'hf');
    for (const d of ['step_2', 'step_4', 'step_6.tmp']) mkdirSync(path.join(w, 'checkpoints', d), { recursive: true });
    writeFileSync(path.join(w, 'checkpoints', 'step_4', 'model.pt'), 'weights-4');
    writeFileSync(path.join(w, 'checkpoints', 'step_6.tmp', 'model.pt'), 'partial');
    writeFileSync(path.join(base, 'tokenizer.json'), '{}');
    const r = await execa(VENV_PYTHON, ['scripts/python/fairseq2_export.py', '--checkpoint-dir', path.join(w, 'checkpoints'), '--base', base, '--out', out], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(path.join(out, 'model.pt'), 'utf8')).toBe('weights-4');
    expect(existsSync(path.join(out, 'tokenizer.json'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(out, FAIRSEQ2_RUN_FILE), 'utf8'))).toMatchObject({ step: 4 });
  });
});

describe('verl adapter', () => {
  it('prepare parquet → torchrun fsdp_sft_trainer with Hydra overrides → merge the latest complete step', () => {
    const steps = verlAdapter.plan(job('sft'), options('verl', { nprocPerNode: 8 }));
    expect(steps.map((s) => s.argv)).toEqual([
      ['/venv/python', '/p/scripts/python/jsonl_to_parquet.py', '/s/data/train.jsonl', '/s/data/train.parquet'],
      ['torchrun', '--standalone', '--nnodes=1', '--nproc_per_node=8', '-m', 'verl.trainer.fsdp_sft_trainer',
        'data.train_files=/s/data/train.parquet', 'data.val_files=/s/data/train.parquet', 'data.multiturn.enable=true', 'data.multiturn.messages_key=messages',
        'data.max_length=4096', 'data.micro_batch_size_per_gpu=1', 'data.train_batch_size=8', 'model.partial_pretrain=/ckpt/iter-0',
        'trainer.default_local_dir=/s/work', 'trainer.project_name=collab-loop', 'trainer.experiment_name=s', 'trainer.logger=console',
        'trainer.resume_mode=auto', 'trainer.total_training_steps=100', 'trainer.total_epochs=1', 'trainer.save_freq=20', 'optim.lr=0.000001'],
      ['/venv/python', '/p/scripts/python/verl_export.py', '--work-dir', '/s/work', '--out', '/s/out'],
    ]);
    expect(verlAdapter.methods).toEqual(['sft']);
    expect(verlAdapter.parseLine('step:12 - train/loss:0.873 - train/lr(1e-3):0.01 - train/time(s):1.2')).toEqual({ step: 12, loss: 0.873 });
  });

  it('resumes and exports only a complete global_step_N; the parquet step keeps message lists nested', async () => {
    const w = tmp();
    mkdirSync(path.join(w, 'global_step_10', 'huggingface'), { recursive: true });
    writeFileSync(path.join(w, 'global_step_10', 'huggingface', 'config.json'), '{}');
    mkdirSync(path.join(w, 'global_step_20'), { recursive: true }); // no huggingface/config.json yet: incomplete
    expect(verlAdapter.findResumePoint(w)).toEqual({ path: path.join(w, 'global_step_10'), step: 10 });
    const dry = await execa(VENV_PYTHON, ['scripts/python/verl_export.py', '--work-dir', w, '--out', '/x/hf', '--dry-run']);
    expect(dry.stdout).toContain(`--local_dir ${path.join(w, 'global_step_10')} --target_dir /x/hf.tmp`);

    const d = tmp();
    const rows = [{ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }] }];
    writeFileSync(path.join(d, 'train.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await execa(VENV_PYTHON, ['scripts/python/jsonl_to_parquet.py', path.join(d, 'train.jsonl'), path.join(d, 'train.parquet')]);
    const back = await execa(VENV_PYTHON, ['-c', `import pyarrow.parquet as pq, json; print(json.dumps(pq.read_table("${path.join(d, 'train.parquet')}").to_pylist()))`]);
    expect(JSON.parse(back.stdout)).toEqual(rows);
    writeFileSync(path.join(d, 'bad.jsonl'), '{"messages": []}\nnot json\n');
    const bad = await execa(VENV_PYTHON, ['scripts/python/jsonl_to_parquet.py', path.join(d, 'bad.jsonl'), path.join(d, 'bad.parquet')], { reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^jsonl_to_parquet\.py: .*bad\.jsonl line 2: not valid JSON/);
  });
});
