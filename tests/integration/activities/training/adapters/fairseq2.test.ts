// fairseq2 0.4 adapter: argv and config overrides it hands to `fairseq2 lm …` (no GPU here), the asset card and the
// Hugging Face export it runs for real (the export on a fairseq2-layout checkpoint of the tiny Llama), progress
// parsing on fixture logs, and which checkpoint a retry resumes from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  fairseq2Adapter,
  fairseq2OptionsSchema,
  yamlFloat,
  type Fairseq2Options,
} from '../../../../../activities/training/adapters/fairseq2';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { tinyModel, VENV_PYTHON } from '../../../../helpers/tiny-model';
import { common, job, parseFixture, tmpDir } from '../../../../helpers/trainer-adapters';

const options = (extra: Partial<Fairseq2Options> = {}): Fairseq2Options => ({ ...common, ...fairseq2OptionsSchema.parse({}), ...extra });
const card = (base = '/ckpt/iter-1') => ({
  name: 'collab_loop_base',
  base: 'llama3_instruct',
  model_arch: 'llama3_1_8b',
  checkpoint: base,
  tokenizer: `${base}/original/tokenizer.model`,
});
const ENV = { HF_HUB_OFFLINE: '1', PYTHONUNBUFFERED: '1', COLUMNS: '400' };
const SFT_CONFIG = [
  'common.assets.extra_path=/w/work/assets',
  'common.seed=7',
  'model.name=collab_loop_base',
  'dataset.path=/w/data',
  'dataset.source_encode_mode=as_is',
  'dataset.max_seq_len=2048',
  'dataset.batch_size=4',
  'dataset.max_num_tokens=8192',
  'trainer.gradient_accumulation=2',
  'regime.num_steps=null',
  'regime.num_data_epochs=1',
  'regime.checkpoint_every_n_steps=50',
  'regime.publish_metrics_every_n_steps=1',
];

describe('fairseq2Adapter.plan', () => {
  it("runs the console script of trainer.python's venv, after a launcher too", () => {
    const venv = tmpDir('fairseq2-venv');
    mkdirSync(path.join(venv, 'bin'));
    for (const f of ['python', 'fairseq2']) writeFileSync(path.join(venv, 'bin', f), '');
    const launcher = ['torchrun', '--standalone', '--no-python'];
    const [, train] = fairseq2Adapter.plan({ ...job('sft'), python: path.join(venv, 'bin', 'python') }, options({ launcher }));
    expect(train.argv.slice(0, 5)).toEqual([...launcher, path.join(venv, 'bin', 'fairseq2'), 'lm']);
  });

  it('SFT: asset card for the HF base → instruction_finetune on WORK → HF export', () => {
    const steps = fairseq2Adapter.plan(job('sft'), options());
    expect(steps.map((s) => s.name)).toEqual(['prepare', 'train', 'export']);
    const [prepare, train, exp] = steps;
    expect(prepare.argv).toEqual([
      '/venv/bin/python',
      path.join(PROJECT_ROOT, 'activities/training/adapters/fairseq2_prepare.py'),
      '--card',
      '/w/work/assets/collab_loop_base.yaml',
      '--card-json',
      JSON.stringify(card()),
      '--data-dir',
      '/w/data',
      '--method',
      'sft',
    ]);
    expect(prepare.badInputExitCode).toBe(2);
    expect(train.argv).toEqual([
      'fairseq2', // /venv/bin has no such script here: left to PATH
      'lm',
      'instruction_finetune',
      '/w/work',
      '--no-sweep-dir',
      '--config',
      ...SFT_CONFIG,
    ]);
    expect(exp.argv).toEqual([
      '/venv/bin/python',
      path.join(PROJECT_ROOT, 'activities/training/adapters/fairseq2_export.py'),
      '--checkpoint-dir',
      '/w/work/checkpoints',
      '--base',
      '/ckpt/iter-1',
      '--out',
      '/ckpt/iter-2',
    ]);
    for (const s of steps) expect(s.env).toEqual(ENV);
  });

  it('DPO: preference_finetune with the base card as reference model; max steps, lr, preset, launcher, model config, extra args', () => {
    const [prepare, train] = fairseq2Adapter.plan(
      job('dpo'),
      options({
        maxSteps: 100,
        learningRate: 1e-7,
        beta: 0.25,
        saveSteps: 0,
        epochs: 2.5,
        preset: 'llama3_1_instruct_constant_lr',
        arch: 'llama3_1_70b',
        tokenizer: '/tok/tokenizer.model',
        launcher: ['torchrun', '--standalone', '--nproc-per-node', '8', '--no-python'],
        extraArgs: ['--config', 'gang.tensor_parallel_size=1'],
        modelConfig: { model_dim: 128, vocab_info: { size: 1042 } },
      }),
    );
    expect(prepare.argv.slice(-2)).toEqual(['--method', 'dpo']);
    expect(JSON.parse(prepare.argv[5])).toEqual({
      ...card(),
      model_arch: 'llama3_1_70b',
      tokenizer: '/tok/tokenizer.model',
      model_config: { _set_: { model_dim: 128, vocab_info: { size: 1042 } } }, // set, not merged key by key, over the arch
    });
    expect(train.argv).toEqual([
      'torchrun',
      '--standalone',
      '--nproc-per-node',
      '8',
      '--no-python',
      'fairseq2', // /venv/bin has no such script here: left to PATH
      'lm',
      'preference_finetune',
      '/w/work',
      '--no-sweep-dir',
      '--preset',
      'llama3_1_instruct_constant_lr',
      '--config',
      'common.assets.extra_path=/w/work/assets',
      'common.seed=7',
      'model.name=collab_loop_base',
      'dataset.path=/w/data',
      'dataset.source_encode_mode=as_is',
      'dataset.max_seq_len=2048',
      'dataset.batch_size=4',
      'dataset.max_num_tokens=8192',
      'trainer.gradient_accumulation=2',
      'regime.num_steps=100',
      'regime.num_data_epochs=null',
      'regime.checkpoint_every_n_steps=null',
      'regime.publish_metrics_every_n_steps=1',
      'optimizer.config.lr=1.0e-7',
      'criterion.name=dpo',
      'criterion.config.reference_model.name=collab_loop_base',
      'criterion.config.beta=0.25',
      '--config',
      'gang.tensor_parallel_size=1',
    ]);
  });

  it('a bare interpreter name keeps the bare console script name (found on PATH)', () => {
    const [, train] = fairseq2Adapter.plan({ ...job('sft'), python: 'python3' }, options());
    expect(train.argv[0]).toBe('fairseq2');
  });

  it('resume: the same argv (fairseq2 restores the last checkpoint of WORK itself)', () => {
    const resume = { path: '/w/work/checkpoints/step_50', step: 50 };
    expect(fairseq2Adapter.plan(job('dpo'), options(), resume)).toEqual(fairseq2Adapter.plan(job('dpo'), options()));
  });

  it('epochs round up (num_data_epochs is an int); the options schema rejects a release other than 0.4', () => {
    const [, train] = fairseq2Adapter.plan(job('sft'), options({ epochs: 1.5 }));
    expect(train.argv).toContain('regime.num_data_epochs=2');
    expect(fairseq2OptionsSchema.safeParse({ release: '0.6' }).success).toBe(false);
    expect(fairseq2OptionsSchema.safeParse({ model: 'x' }).success).toBe(false); // strict
  });

  it('every --config value reads as the intended YAML type (PyYAML: 1e-07 would be a string)', async () => {
    expect([1e-7, 5e-6, 0.1, 2, 1.5e-5, 0.00001].map(yamlFloat)).toEqual(['1.0e-7', '0.000005', '0.1', '2.0', '0.000015', '0.00001']);
    const [, train] = fairseq2Adapter.plan(job('dpo'), options({ maxSteps: 100, learningRate: 1e-7, beta: 0.1 }));
    const values = Object.fromEntries(train.argv.filter((a) => /^[a-z_.]+=/.test(a)).map((a) => a.split(/=(.*)/s).slice(0, 2)));
    const r = await execa(VENV_PYTHON, [
      '-c',
      'import json, sys, yaml; print(json.dumps({k: type(yaml.safe_load(v)).__name__ for k, v in json.loads(sys.argv[1]).items()}))',
      JSON.stringify(values),
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      'optimizer.config.lr': 'float',
      'criterion.config.beta': 'float',
      'regime.num_steps': 'int',
      'regime.num_data_epochs': 'NoneType',
      'dataset.max_seq_len': 'int',
      'dataset.path': 'str',
      'common.seed': 'int',
    });
  });

  it('paths YAML would misread are double-quoted', async () => {
    const [, train] = fairseq2Adapter.plan({ ...job('sft'), dataDir: '/data/run #2: sft', workDir: '/w/work' }, options());
    expect(train.argv).toContain('dataset.path="/data/run #2: sft"');
    const r = await execa(VENV_PYTHON, [
      '-c',
      'import sys, yaml; print(yaml.safe_load(sys.argv[1].split("=", 1)[1]))',
      'dataset.path="/data/run #2: sft"',
    ]);
    expect(r.stdout.trim()).toBe('/data/run #2: sft');
  });

  it('versionCommand prints fairseq2/fairseq2n/torch versions, tolerating missing packages', async () => {
    const argv = fairseq2Adapter.versionCommand({ ...job('sft'), python: VENV_PYTHON });
    const r = await execa(argv[0], argv.slice(1));
    expect(r.stdout).toMatch(/^fairseq2 not installed, fairseq2n not installed, torch \d/);
  });
});

describe('fairseq2Adapter.parseLine', () => {
  it('0.4 SFT log: NLL loss per step (nan dropped); checkpoint saves and the end report their step', () => {
    expect(parseFixture(fairseq2Adapter, 'fairseq2-0.4-sft.log')).toEqual([
      { step: 1, loss: 1.84216 },
      { step: 2, loss: 1.71 },
      { step: 3 },
      { step: 10 },
      { step: 12 },
    ]);
  });

  it('0.4 DPO log after a resume: the DPO loss (first, the objective), not the NLL term', () => {
    expect(parseFixture(fairseq2Adapter, 'fairseq2-0.4-dpo-resumed.log')).toEqual([
      { step: 4 },
      { step: 5, loss: 0.693147 },
      { step: 6, loss: 0.6512 },
      { step: 6 },
    ]);
  });

  it("later generations' wording too (Loss:, Resuming from, Checkpoint at step N saved)", () => {
    expect(parseFixture(fairseq2Adapter, 'fairseq2-head-sft.log')).toEqual([
      { step: 40 },
      { step: 40 },
      { step: 41, loss: 0.9312 },
      { step: 41, checkpoint: 'checkpoints/step_41' },
    ]);
    expect(fairseq2Adapter.parseLine('Valid Metrics (step 40) - NLL Loss: 2.0')).toEqual({});
  });
});

describe('fairseq2Adapter.findResumePoint', () => {
  const root = tmpDir('fs2-resume');
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const step = (work: string, name: string, files: string[]) => {
    mkdirSync(path.join(work, 'checkpoints', name), { recursive: true });
    for (const f of files) writeFileSync(path.join(work, 'checkpoints', name, f), 'x');
  };

  it('the highest committed step_N holding the model; never step_N.tmp', () => {
    const work = path.join(root, 'a');
    step(work, 'step_2', ['model.pt', 'rank_0.pt']);
    step(work, 'step_10', ['model.pt', 'rank_0.pt', 'config.json']); // numeric, not lexical order
    step(work, 'step_12', ['rank_0.pt']); // no model file
    step(work, 'step_14.tmp', ['model.pt', 'rank_0.pt']); // being written
    writeFileSync(path.join(work, 'checkpoints', 'model.yaml'), 'name: checkpoint');
    writeFileSync(path.join(work, 'checkpoints', 'step_16'), 'a file');
    expect(fairseq2Adapter.findResumePoint(work)).toEqual({ path: path.join(work, 'checkpoints', 'step_10'), step: 10 });
    step(work, 'step_20', ['model.0.pt', 'model.1.pt', 'rank_0.0.pt']); // tensor-parallel shards
    expect(fairseq2Adapter.findResumePoint(work)?.step).toBe(20);
  });

  it('nothing to resume: no work dir, or only partial checkpoints', () => {
    expect(fairseq2Adapter.findResumePoint(path.join(root, 'missing'))).toBeUndefined();
    const work = path.join(root, 'b');
    step(work, 'step_4.tmp', ['model.pt']);
    expect(fairseq2Adapter.findResumePoint(work)).toBeUndefined();
  });
});

describe('fairseq2 prepare and export steps (real Python)', () => {
  let root: string;
  let base: string;
  beforeAll(async () => {
    root = tmpDir('fs2-steps');
    base = path.join(root, 'base');
    cpSync(await tinyModel(), base, { recursive: true });
    mkdirSync(path.join(base, 'original'));
    writeFileSync(path.join(base, 'original', 'tokenizer.model'), 'tiktoken ranks');
    writeFileSync(path.join(base, 'collab-loop-checkpoint.json'), '{"iteration": 0}'); // lineage of the base: must not be copied
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const stepJob = (name: string) => ({
    ...job('sft'),
    base,
    python: VENV_PYTHON,
    workDir: path.join(root, name, 'work'),
    hfOutput: path.join(root, name, 'hf'),
  });

  const rows = (name: string, lines: string[]) => {
    const dir = path.join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'train.jsonl'), `${lines.join('\n')}\n`);
    return dir;
  };
  const run = async (argv: string[]) => execa(argv[0], argv.slice(1), { reject: false });

  it('prepare writes the asset card (JSON, which is YAML) and refuses a base without weights or tokenizer', async () => {
    const j = { ...stepJob('card'), dataDir: rows('card-data', ['{"src": "a", "tgt": "b", "id": "1"}']) };
    const [prepare] = fairseq2Adapter.plan(j, options());
    const r = await run(prepare.argv);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(j.workDir, 'assets', 'collab_loop_base.yaml'), 'utf8'))).toEqual(card(base));

    const [noTok] = fairseq2Adapter.plan(j, options({ tokenizer: path.join(root, 'nope.model') }));
    const bad = await run(noTok.argv);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([
      `fairseq2_prepare.py: no tokenizer file ${path.join(root, 'nope.model')} (the Llama-3 tiktoken tokenizer.model; set trainer.tokenizer)`,
    ]);
    const [noWeights] = fairseq2Adapter.plan({ ...j, base: root }, options({ tokenizer: path.join(base, 'original', 'tokenizer.model') }));
    const bad2 = await run(noWeights.argv);
    expect(bad2.exitCode).toBe(2);
    expect(bad2.stderr).toContain(`no *.safetensors in ${root}`);
  });

  // fairseq2 itself reports a row without `tgt` as "ValueError: The input data does not have an element at path
  // 'tgt'" inside a stack trace, naming no file or line.
  it('prepare refuses rows fairseq2 cannot read, naming the file, line and field, before writing the card', async () => {
    const cases: [string, 'sft' | 'dpo', string[], string][] = [
      [
        'sft-tgt',
        'sft',
        ['{"src": "a", "tgt": "b"}', '{"src": "a", "target": "b"}'],
        'line 2: missing field "tgt" (sft rows need src, tgt)',
      ],
      [
        'dpo-sft-row',
        'dpo',
        ['{"src": "a", "tgt": "b"}'],
        'line 1: missing field "tgt_chosen" (dpo rows need src, tgt_chosen, tgt_rejected)',
      ],
      ['not-string', 'sft', ['{"src": [{"role": "user", "content": "a"}], "tgt": "b"}'], 'line 1: field "src" must be a string'],
      ['not-json', 'dpo', ['', '{"src": "a",'], 'line 2: not valid JSON (Expecting property name enclosed in double quotes at column 13)'],
    ];
    for (const [name, method, lines, message] of cases) {
      const j = { ...stepJob(name), method, dataDir: rows(`${name}-data`, lines) };
      const [prepare] = fairseq2Adapter.plan(j, options());
      const r = await run(prepare.argv);
      expect(r.exitCode, name).toBe(2);
      expect(r.stderr.trim(), name).toBe(`fairseq2_prepare.py: ${path.join(j.dataDir, 'train.jsonl')} ${message}`);
      expect(existsSync(path.join(j.workDir, 'assets')), name).toBe(false);
    }
  });

  // fairseq2 0.4's llama loader turns an HF checkpoint into its own layout like this (renamed keys; q/k rows of each
  // head regrouped from two halves into interleaved rotary pairs: view(H, 2, D/2, M).transpose(1, 2)). The test
  // builds such a checkpoint from the tiny model and expects the export to give the original model back exactly.
  const TO_FAIRSEQ2 = `
import json, os, sys, torch
from transformers import AutoModelForCausalLM
base, step_dir = sys.argv[1], sys.argv[2]
model = AutoModelForCausalLM.from_pretrained(base)
c = model.config
H, KV, M = c.num_attention_heads, c.num_key_value_heads, c.hidden_size
D = M // H
def permute(w, n):
    return w.view(n, 2, D // 2, M).transpose(1, 2).reshape(-1, M)
names = [("model.layers.", "decoder.layers."), (".self_attn.o_proj.", ".self_attn.output_proj."),
         (".post_attention_layernorm.", ".ffn_layer_norm."), (".input_layernorm.", ".self_attn_layer_norm."),
         (".mlp.gate_proj.", ".ffn.gate_proj."), (".mlp.down_proj.", ".ffn.output_proj."), (".mlp.up_proj.", ".ffn.inner_proj."),
         ("model.norm.", "decoder.layer_norm."), ("model.embed_tokens.", "decoder_frontend.embed."), ("lm_head.", "final_proj.")]
fs2 = {}
for k, v in model.state_dict().items():
    v = v.clone()
    if k.endswith("self_attn.q_proj.weight"): v = permute(v, H)
    if k.endswith("self_attn.k_proj.weight"): v = permute(v, KV)
    for a, b in names: k = k.replace(a, b)
    fs2[k] = v
fs2["decoder.layers.0.self_attn.pos_encoder.freqs"] = torch.ones(D // 2)  # a buffer, not a weight
os.makedirs(step_dir, exist_ok=True)
torch.save({"model": fs2, "model_key": "model", "fs2": True}, os.path.join(step_dir, "model.pt"))
`;
  const SAME_MODEL = `
import sys, torch
from transformers import AutoModelForCausalLM
a, b = (AutoModelForCausalLM.from_pretrained(p) for p in sys.argv[1:3])
sa, sb = a.state_dict(), b.state_dict()
assert sa.keys() == sb.keys(), sa.keys() ^ sb.keys()
bad = [k for k in sa if not torch.equal(sa[k], sb[k])]
assert not bad, bad
ids = torch.tensor([[1, 5, 9, 13, 2]])
assert torch.equal(a(ids).logits, b(ids).logits)
print("same", len(sa))
`;

  it('export: the last complete step back to a loadable Hugging Face model, identical to the weights it holds', async () => {
    const j = stepJob('export');
    const checkpoints = path.join(j.workDir, 'checkpoints');
    await execa(VENV_PYTHON, ['-c', TO_FAIRSEQ2, base, path.join(checkpoints, 'step_4')]);
    mkdirSync(path.join(checkpoints, 'step_6.tmp'), { recursive: true });
    writeFileSync(path.join(checkpoints, 'step_6.tmp', 'model.pt'), 'cut short'); // must never be read
    const exp = fairseq2Adapter.plan(j, options())[2];
    const r = await execa(exp.argv[0], exp.argv.slice(1), { reject: false, cwd: PROJECT_ROOT });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout.replace('collab-loop-checkpoint ', ''))).toEqual({ path: path.join(checkpoints, 'step_4'), step: 4 });
    const same = await execa(VENV_PYTHON, ['-c', SAME_MODEL, base, j.hfOutput], { reject: false });
    expect(same.exitCode, same.stderr).toBe(0);
    expect(existsSync(path.join(j.hfOutput, 'tokenizer.json'))).toBe(true);
    expect(readFileSync(path.join(j.hfOutput, 'original', 'tokenizer.model'), 'utf8')).toBe('tiktoken ranks'); // for the next fairseq2 iteration
    expect(existsSync(path.join(j.hfOutput, 'collab-loop-checkpoint.json'))).toBe(false);
    expect(existsSync(`${j.hfOutput}.tmp`)).toBe(false);
  });

  it('export refuses clearly: no complete step, an unknown tensor', async () => {
    const j = stepJob('export-bad');
    const exp = fairseq2Adapter.plan(j, options())[2];
    mkdirSync(path.join(j.workDir, 'checkpoints', 'step_2.tmp'), { recursive: true });
    const none = await execa(exp.argv[0], exp.argv.slice(1), { reject: false });
    expect(none.exitCode).toBe(2);
    expect(none.stderr.trim()).toBe(
      `fairseq2_export.py: no complete checkpoints/step_N in ${path.join(j.workDir, 'checkpoints')} (did training save any?)`,
    );

    await execa(VENV_PYTHON, [
      '-c',
      `import torch, os, sys; os.makedirs(sys.argv[1]); torch.save({"model": {"encoder.proj.weight": torch.zeros(2, 2)}}, sys.argv[1] + "/model.pt")`,
      path.join(j.workDir, 'checkpoints', 'step_3'),
    ]);
    const odd = await execa(exp.argv[0], exp.argv.slice(1), { reject: false });
    expect(odd.exitCode).toBe(2);
    expect(odd.stderr.trim()).toBe(
      'fairseq2_export.py: unexpected tensor encoder.proj.weight in the fairseq2 checkpoint (not a Llama model?)',
    );
    expect(existsSync(j.hfOutput)).toBe(false);
  });
});
