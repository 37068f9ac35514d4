// verl adapter, unit tests of our own logic: prepare (parquet) → torchrun fsdp_sft_trainer with Hydra overrides →
// merge to Hugging Face, progress parsing on fixture logs, the tracker-named checkpoint a retry resumes from, and
// verl_export.py run for real against a stand-in `verl.model_merger` module (verl's training needs CUDA). The installed
// verl 0.6.1 composes, validates and loads the same plans' overrides, plug-ins and data in
// tests/engines/verl-config.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hydraValue, VERL_ENV, verlAdapter, verlOptionsSchema, type VerlOptions } from '../../../../../activities/training/adapters/verl';
import { SAVE_LAST_ONLY, verlGrpoOptionsSchema } from '../../../../../activities/training/adapters/verl-grpo';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { recipeDefinition } from '../../../../../activities/recipes/registry';
import { VENV_PYTHON } from '../../../../helpers/tiny-model';
import { common, job, parseFixture, tmpDir } from '../../../../helpers/trainer-adapters';

const ADAPTERS = path.join(PROJECT_ROOT, 'activities/training/adapters');
const CONVERTER = path.join(PROJECT_ROOT, 'activities/recipes/collabllm/collabllm_to_verl.py');
const collabllm = recipeDefinition('collabllm');
const collabllmMath = collabllm.schema.parse({ name: 'collabllm', task: 'math', evalTasks: 'unused.jsonl' });
const options = (extra: Partial<VerlOptions> = {}): VerlOptions => ({ ...common, ...verlOptionsSchema.parse({}), ...extra });
const OVERRIDES = [
  'data.train_files=/w/data/train.parquet',
  'data.val_files=/w/data/val.parquet',
  'data.multiturn.enable=true',
  'data.multiturn.messages_key=messages',
  'data.max_length=2048',
  'data.truncation=left',
  'data.micro_batch_size_per_gpu=4',
  'data.train_batch_size=8',
  'model.partial_pretrain=/ckpt/iter-1',
  'trainer.default_local_dir=/w/work',
  'trainer.logger=console',
  'trainer.total_epochs=1',
  'trainer.save_freq=50',
  'trainer.resume_mode=auto',
  'trainer.seed=7',
];

describe('verlAdapter.plan', () => {
  it('SFT: jsonl → parquet (+ val sample), torchrun fsdp_sft_trainer, merge the last checkpoint', () => {
    const steps = verlAdapter.plan(job('sft'), options());
    expect(steps).toEqual([
      {
        name: 'prepare',
        argv: [
          '/venv/bin/python',
          path.join(ADAPTERS, 'jsonl_to_parquet.py'),
          '/w/data/train.jsonl',
          '/w/data/train.parquet',
          '--messages-key',
          'messages',
          '--val-output',
          '/w/data/val.parquet',
          '--val-rows',
          '64',
        ],
        env: VERL_ENV,
      },
      {
        name: 'train',
        argv: ['torchrun', '--standalone', '--nnodes=1', '--nproc_per_node=1', '-m', 'verl.trainer.fsdp_sft_trainer', ...OVERRIDES],
        env: VERL_ENV,
      },
      {
        name: 'export',
        argv: ['/venv/bin/python', path.join(ADAPTERS, 'verl_export.py'), '--work-dir', '/w/work', '--out', '/ckpt/iter-2'],
        env: VERL_ENV,
      },
    ]);
    expect(steps[1].argv.slice(6).every((a) => /^[a-z_.]+=/.test(a))).toBe(true); // Hydra overrides: no dashes
  });

  it('8 GPUs, max steps, lr, no periodic saves, extra overrides; resume changes nothing (resume_mode=auto)', () => {
    const o = options({
      gpus: 8,
      maxSteps: 200,
      learningRate: 1e-5,
      saveSteps: 0,
      epochs: 2.2,
      truncation: 'error',
      extraArgs: ['use_remove_padding=true'],
    });
    const [, train] = verlAdapter.plan(job('sft'), o);
    expect(train.argv.slice(0, 6)).toEqual([
      'torchrun',
      '--standalone',
      '--nnodes=1',
      '--nproc_per_node=8',
      '-m',
      'verl.trainer.fsdp_sft_trainer',
    ]);
    expect(train.argv).toEqual(
      expect.arrayContaining([
        'data.train_batch_size=64',
        'data.micro_batch_size_per_gpu=4',
        'data.truncation=error',
        'trainer.total_epochs=3',
        'trainer.total_training_steps=200',
        'trainer.save_freq=-1',
        'optim.lr=0.00001',
      ]),
    );
    expect(train.argv.at(-1)).toBe('use_remove_padding=true');
    expect(verlAdapter.plan(job('sft'), o, { path: '/w/work/global_step_100', step: 100 })).toEqual(verlAdapter.plan(job('sft'), o));
    const [, custom] = verlAdapter.plan(
      job('sft'),
      options({ launcher: ['torchrun', '--nnodes=2', '--nproc_per_node=8', '--rdzv_endpoint=h:29500'] }),
    );
    expect(custom.argv.slice(0, 6)).toEqual([
      'torchrun',
      '--nnodes=2',
      '--nproc_per_node=8',
      '--rdzv_endpoint=h:29500',
      '-m',
      'verl.trainer.fsdp_sft_trainer',
    ]);
  });

  it('paths Hydra would misread are quoted', () => {
    expect(hydraValue('/state/train/run-1/iter-0/data/train.parquet')).toBe('/state/train/run-1/iter-0/data/train.parquet');
    expect(hydraValue('/data/my run,v2/train.parquet')).toBe("'/data/my run,v2/train.parquet'");
    expect(hydraValue("/it's")).toBe("'/it\\'s'");
    const [, train] = verlAdapter.plan({ ...job('sft'), base: '/models/llama 3.1=8b' }, options());
    expect(train.argv).toContain("model.partial_pretrain='/models/llama 3.1=8b'");
  });

  it('SFT, GRPO and PPO, no DPO; strict options', () => {
    expect(verlAdapter.methods).toEqual(['sft', 'grpo', 'ppo']);
    expect(verlAdapter.dataFormat).toBe('verl');
    expect(verlOptionsSchema.parse({})).toMatchObject({ gpus: 1, truncation: 'left', grpo: { rolloutN: 8, numRepeatRollouts: 3 } });
    expect(verlOptionsSchema.safeParse({ module: 'verl.trainer.sft_trainer' }).success).toBe(false);
  });
});

describe('verlAdapter.plan, method grpo (online RL with the recipe reward service)', () => {
  const grpoJob = {
    ...job('grpo'),
    onlineRl: { rewardUrl: 'http://127.0.0.1:18080', ...collabllm.onlineRl!.rollout(collabllmMath) },
  };
  const GRPO_OVERRIDES = [
    'algorithm.adv_estimator=grpo',
    'algorithm.use_kl_in_reward=false',
    'data.train_files=/w/data/rl_train.parquet',
    'data.val_files=/w/data/rl_validation.parquet',
    'data.max_prompt_length=8196',
    'data.max_response_length=2048',
    'data.train_batch_size=16',
    'data.filter_overlong_prompts=true',
    'data.truncation=error',
    'data.seed=7',
    'actor_rollout_ref.model.path=/ckpt/iter-1',
    'actor_rollout_ref.model.use_remove_padding=true',
    'actor_rollout_ref.model.enable_gradient_checkpointing=true',
    'actor_rollout_ref.actor.optim.lr=0.000001',
    'actor_rollout_ref.actor.ppo_mini_batch_size=8',
    'actor_rollout_ref.actor.use_dynamic_bsz=true',
    'actor_rollout_ref.actor.ppo_max_token_len_per_gpu=24000',
    'actor_rollout_ref.actor.use_kl_loss=true',
    'actor_rollout_ref.actor.kl_loss_coef=0.001',
    'actor_rollout_ref.actor.kl_loss_type=low_var_kl',
    'actor_rollout_ref.actor.entropy_coeff=0',
    'actor_rollout_ref.actor.fsdp_config.param_offload=true',
    'actor_rollout_ref.actor.fsdp_config.optimizer_offload=true',
    'actor_rollout_ref.ref.fsdp_config.param_offload=true',
    'actor_rollout_ref.rollout.name=vllm',
    'actor_rollout_ref.rollout.mode=async',
    'actor_rollout_ref.rollout.n=8',
    'actor_rollout_ref.rollout.temperature=1',
    'actor_rollout_ref.rollout.gpu_memory_utilization=0.7',
    'actor_rollout_ref.rollout.tensor_model_parallel_size=1',
    'actor_rollout_ref.rollout.multi_turn.enable=true',
    'actor_rollout_ref.rollout.multi_turn.format=hermes',
    'actor_rollout_ref.rollout.multi_turn.max_user_turns=2',
    'actor_rollout_ref.rollout.multi_turn.max_assistant_turns=3',
    'actor_rollout_ref.rollout.multi_turn.num_repeat_rollouts=3',
    'actor_rollout_ref.rollout.multi_turn.interaction_config_path=/w/data/interaction.yaml',
    'actor_rollout_ref.rollout.agent.agent_loop_config_path=/w/data/agent_loop.yaml',
    'reward_model.reward_manager=collab_loop',
    `custom_reward_function.path=${path.join(ADAPTERS, 'verl_collab_loop.py')}`,
    'custom_reward_function.name=score_futures',
    'trainer.nnodes=1',
    'trainer.n_gpus_per_node=1',
    'trainer.logger=console',
    'trainer.default_local_dir=/w/work',
    'trainer.val_before_train=false',
    'trainer.test_freq=-1',
    'trainer.critic_warmup=0',
    'trainer.total_epochs=1',
    'trainer.save_freq=50',
    'trainer.resume_mode=auto',
  ];

  it("prepare (the recipe's converter) → main_ppo with the interaction, agent loop and reward manager → merge the actor", () => {
    const steps = verlAdapter.plan(grpoJob, options());
    expect(steps.map((s) => s.name)).toEqual(['prepare', 'train', 'export']);
    expect(steps[0]).toEqual({
      name: 'prepare',
      argv: [
        '/venv/bin/python',
        CONVERTER,
        '--task-kind',
        'math',
        '--agent-name',
        'collabllm_agent',
        '--interaction-name',
        'collabllm',
        '--seed',
        '7',
        '--out-dir',
        '/w/data',
        '/w/data/train.jsonl',
      ],
      env: VERL_ENV,
      badInputExitCode: 2,
    });
    expect(steps[1].argv).toEqual(['/venv/bin/python', '-m', 'verl.trainer.main_ppo', ...GRPO_OVERRIDES]);
    expect(steps[1].env).toEqual({
      ...VERL_ENV,
      VLLM_USE_V1: '1',
      PYTHONPATH: ADAPTERS,
      COLLAB_LOOP_REWARD_URL: 'http://127.0.0.1:18080',
    });
    // The interaction and agent-loop configs: JSON (which is YAML), naming our interaction class and the recipe's loop.
    expect(JSON.parse(steps[1].files!['/w/data/interaction.yaml'])).toEqual({
      interaction: [
        { name: 'collabllm', class_name: 'verl_collab_loop.CollabLoopInteraction', config: { reward_url: 'http://127.0.0.1:18080' } },
      ],
    });
    expect(JSON.parse(steps[1].files!['/w/data/agent_loop.yaml'])).toEqual([
      { name: 'collabllm_agent', _target_: 'recipe.collabllm.collabllm_agent_loop.CollabLLMAgentLoop' },
    ]);
    expect(steps[2].argv).toEqual([
      '/venv/bin/python',
      path.join(ADAPTERS, 'verl_export.py'),
      '--work-dir',
      '/w/work',
      '--subdir',
      'actor',
      '--out',
      '/ckpt/iter-2',
    ]);
  });

  it('options: GPUs, steps, lr, saves, the GRPO group and futures, the verl checkout, a launcher', () => {
    const o = options({
      gpus: 8,
      maxSteps: 20,
      learningRate: 2e-6,
      saveSteps: 0,
      extraArgs: ['trainer.max_actor_ckpt_to_keep=1'],
      launcher: ['/opt/verl/bin/python'],
      grpo: { ...verlGrpoOptionsSchema.parse({}), rolloutN: 4, numRepeatRollouts: 2, maxUserTurns: 3, recipePath: '/opt/verl' },
    });
    const [, train] = verlAdapter.plan(grpoJob, o);
    expect(train.argv.slice(0, 3)).toEqual(['/opt/verl/bin/python', '-m', 'verl.trainer.main_ppo']);
    expect(train.argv).toEqual(
      expect.arrayContaining([
        'trainer.n_gpus_per_node=8',
        'trainer.total_training_steps=20',
        'actor_rollout_ref.actor.optim.lr=0.000002',
        `trainer.save_freq=${SAVE_LAST_ONLY}`, // main_ppo saves nothing at all with save_freq <= 0
        'actor_rollout_ref.rollout.n=4',
        'actor_rollout_ref.rollout.multi_turn.num_repeat_rollouts=2',
        'actor_rollout_ref.rollout.multi_turn.max_user_turns=3',
      ]),
    );
    expect(train.argv.at(-1)).toBe('trainer.max_actor_ckpt_to_keep=1');
    expect(train.env!.PYTHONPATH).toBe([ADAPTERS, '/opt/verl'].join(path.delimiter));
    expect(() => verlAdapter.plan(job('grpo'), options())).toThrow(/no reward service/);
  });

  it('PPO: the same run with the GAE estimator, a critic from the checkpoint, one response per prompt and lr 5e-6', () => {
    const ppoJob = { ...grpoJob, method: 'ppo' as const };
    const steps = verlAdapter.plan(ppoJob, options());
    const grpo = verlAdapter.plan(grpoJob, options());
    expect(steps.map((s) => s.name)).toEqual(['prepare', 'train', 'export']);
    expect(steps[0]).toEqual(grpo[0]);
    expect(steps[2]).toEqual(grpo[2]); // the actor is exported; the critic stays in the work dir
    const changed = new Map([
      ['algorithm.adv_estimator=grpo', 'algorithm.adv_estimator=gae'],
      ['actor_rollout_ref.actor.optim.lr=0.000001', 'actor_rollout_ref.actor.optim.lr=0.000005'],
      ['actor_rollout_ref.rollout.n=8', 'actor_rollout_ref.rollout.n=1'],
    ]);
    const critic = [
      'critic.model.path=/ckpt/iter-1',
      'critic.model.use_remove_padding=true',
      'critic.model.enable_gradient_checkpointing=true',
      'critic.optim.lr=0.00001',
      'critic.ppo_max_token_len_per_gpu=24000',
      'critic.model.fsdp_config.param_offload=true',
      'critic.model.fsdp_config.optimizer_offload=true',
    ];
    const expected = GRPO_OVERRIDES.map((o) => changed.get(o) ?? o);
    const at = expected.indexOf('custom_reward_function.name=score_futures') + 1;
    expect(steps[1].argv).toEqual([
      '/venv/bin/python',
      '-m',
      'verl.trainer.main_ppo',
      ...expected.slice(0, at),
      ...critic,
      ...expected.slice(at),
    ]);
    expect(steps[1].env).toEqual(grpo[1].env);
    expect(steps[1].files).toEqual(grpo[1].files);

    const [, tuned] = verlAdapter.plan(
      ppoJob,
      options({ learningRate: 3e-6, ppo: { rolloutN: 2, criticPath: '/models/value', criticLearningRate: 2e-5, criticWarmup: 5 } }),
    );
    expect(tuned.argv).toEqual(
      expect.arrayContaining([
        'actor_rollout_ref.actor.optim.lr=0.000003',
        'actor_rollout_ref.rollout.n=2',
        'critic.model.path=/models/value',
        'critic.optim.lr=0.00002',
        'trainer.critic_warmup=5',
      ]),
    );
  });
});

describe('verlAdapter.parseLine', () => {
  it('main_ppo lines: step and actor/pg_loss (np.float64 too, nan dropped); saves and resumes name their checkpoint', () => {
    expect(parseFixture(verlAdapter, 'verl-grpo.log')).toEqual([
      { step: 1, loss: -0.0031 },
      { step: 2, loss: 0.0125 },
      { step: 3 },
      { step: 3, checkpoint: '/w/work/global_step_3' },
      { step: 3, checkpoint: '/w/work/global_step_3' },
    ]);
  });

  it('console logger lines: step and train/loss (nan dropped, val lines ignored); saves name their checkpoint', () => {
    expect(parseFixture(verlAdapter, 'verl-sft.log')).toEqual([
      { step: 1, loss: 1.9734081029891968 },
      { step: 2, loss: 1.902 },
      { step: 3 },
      { step: 100, checkpoint: '/w/work/global_step_100' },
      { step: 300, loss: 0.8123 },
    ]);
    expect(parseFixture(verlAdapter, 'verl-sft-resumed.log')).toEqual([
      { step: 100, checkpoint: '/w/work/global_step_100' },
      { step: 101, loss: 0.91 },
    ]);
  });
});

describe('verl checkpoints: findResumePoint and verl_export.py agree on the tracker file', () => {
  const root = tmpDir('verl');
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const save = (work: string, step: number, files = ['model_world_size_1_rank_0.pt', 'data.pt']) => {
    mkdirSync(path.join(work, `global_step_${step}`, 'huggingface'), { recursive: true });
    for (const f of files) writeFileSync(path.join(work, `global_step_${step}`, f), 'x');
  };
  const tracker = (work: string, text: string) => writeFileSync(path.join(work, 'latest_checkpointed_iteration.txt'), text);

  it('resume point: the step the tracker names, once its dir holds data.pt', () => {
    const work = path.join(root, 'resume');
    save(work, 100);
    save(work, 200, ['model_world_size_1_rank_0.pt']); // killed before data.pt and the tracker update
    expect(verlAdapter.findResumePoint(work)).toBeUndefined();
    tracker(work, '100');
    expect(verlAdapter.findResumePoint(work)).toEqual({ path: path.join(work, 'global_step_100'), step: 100 });
    tracker(work, '200');
    expect(verlAdapter.findResumePoint(work)).toBeUndefined();
    tracker(work, '1e2');
    expect(verlAdapter.findResumePoint(work)).toBeUndefined();
    expect(verlAdapter.findResumePoint(path.join(root, 'missing'))).toBeUndefined();
  });

  // Stands in for verl's merger (verl needs CUDA): records its argv and writes a config into --target_dir.
  const fakeVerl = path.join(root, 'fake-verl');
  mkdirSync(path.join(fakeVerl, 'verl', 'model_merger'), { recursive: true });
  writeFileSync(path.join(fakeVerl, 'verl', '__init__.py'), '');
  writeFileSync(path.join(fakeVerl, 'verl', 'model_merger', '__init__.py'), '');
  writeFileSync(
    path.join(fakeVerl, 'verl', 'model_merger', '__main__.py'),
    [
      'import json, os, sys',
      'target = sys.argv[sys.argv.index("--target_dir") + 1]',
      'os.makedirs(target, exist_ok=True)',
      'json.dump(sys.argv[1:], open(os.path.join(target, "merge-argv.json"), "w"))',
      'sys.exit(int(os.environ.get("FAKE_MERGE_EXIT", "0")))',
    ].join('\n'),
  );
  const exportStep = (work: string, out: string) =>
    verlAdapter.plan({ ...job('sft'), python: VENV_PYTHON, workDir: work, hfOutput: out }, options())[2];
  const run = (argv: string[], env: Record<string, string> = {}) =>
    execa(argv[0], argv.slice(1), { reject: false, env: { PYTHONPATH: fakeVerl, ...env } });

  it("export merges the tracker's checkpoint into OUT.tmp with verl.model_merger, then renames it to OUT", async () => {
    const work = path.join(root, 'export');
    save(work, 300);
    save(work, 400, []); // newer but never completed
    tracker(work, '300\n');
    const out = path.join(root, 'export-hf');
    mkdirSync(`${out}.tmp`, { recursive: true }); // left by a killed merge
    const r = await run(exportStep(work, out).argv);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().replace('collab-loop-checkpoint ', ''))).toEqual({
      path: path.join(work, 'global_step_300'),
      step: 300,
    });
    expect(JSON.parse(readFileSync(path.join(out, 'merge-argv.json'), 'utf8'))).toEqual([
      'merge',
      '--backend',
      'fsdp',
      '--local_dir',
      path.join(work, 'global_step_300'),
      '--target_dir',
      `${out}.tmp`,
    ]);
    expect(existsSync(`${out}.tmp`)).toBe(false);
  });

  it('export fails clearly without a tracker or with a missing dir, and passes on a merge failure without leaving OUT', async () => {
    const work = path.join(root, 'export-bad');
    mkdirSync(work, { recursive: true });
    const out = path.join(root, 'export-bad-hf');
    const none = await run(exportStep(work, out).argv);
    expect(none.exitCode).toBe(2);
    expect(none.stderr.trim()).toBe(`verl_export.py: no latest_checkpointed_iteration.txt in ${work}: training saved no checkpoint`);
    tracker(work, '7');
    const missing = await run(exportStep(work, out).argv);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `verl_export.py: ${path.join(work, 'latest_checkpointed_iteration.txt')} names step 7, but ${path.join(work, 'global_step_7')} is missing`,
    );
    save(work, 7);
    const failed = await run(exportStep(work, out).argv, { FAKE_MERGE_EXIT: '3' });
    expect(failed.exitCode).toBe(3);
    expect(existsSync(out)).toBe(false);
  });
});
