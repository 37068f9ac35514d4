// The verl adapters' plans, checked by the installed verl 0.6.1 (./.venv-verl, requirements-verl.txt, `node bin/setup.js
// --engines`) without launching — verl needs CUDA for its FSDP workers and vLLM rollouts. fixtures/verl_check.py does
// what verl's entry points do before they start workers: GRPO and PPO — main_ppo's ppo_trainer.yaml composed with the
// adapter's overrides (Hydra refuses a key the config lacks), validate_config, our reward function and the reward
// manager it registers loaded by load_reward_manager, our interaction class by initialize_interactions_from_config,
// and the prompts the recipe's converter wrote read by create_rl_dataset (RLHFDataset); SFT — fsdp_sft_trainer's
// sft_trainer.yaml and its MultiTurnSFTDataset on the parquet the prepare step wrote. Each plan's prepare step runs
// for real, with the venv's Python, as the train stage runs it. Run by `npm run test:engines`.
import { execa } from 'execa';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatSft } from '../../activities/data/formats';
import { collabVerlRollout } from '../../activities/recipes/collabllm/verl-rollout';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import type { TrainJob, TrainMethod, TrainStep } from '../../activities/training/adapters/types';
import { verlAdapter, verlOptionsSchema, type VerlOptions } from '../../activities/training/adapters/verl';
import { tempStateDir } from '../helpers/config';
import { enginePython, requireEngines } from '../helpers/engines';
import { tinyModel } from '../helpers/tiny-model';

const PYTHON = enginePython('verl');
const CHECK = path.join(PROJECT_ROOT, 'tests', 'engines', 'fixtures', 'verl_check.py');
const REWARD_URL = 'http://127.0.0.1:9/'; // never called: nothing here rolls out

const options = (o: Partial<VerlOptions> = {}): VerlOptions => ({
  epochs: 1,
  batchSize: 1,
  gradientAccumulation: 1,
  maxLength: 512,
  saveSteps: 0,
  beta: 0.1,
  extraArgs: [],
  ...verlOptionsSchema.parse({}),
  ...o,
});

/** A step run as the train stage runs it (its files written first); exit code, stdout's last line, stderr. */
async function run(step: TrainStep, argv = step.argv) {
  for (const [file, text] of Object.entries(step.files ?? {})) writeFileSync(file, text);
  const r = await execa(argv[0], argv.slice(1), { env: step.env, reject: false });
  return { exitCode: r.exitCode, last: String(r.stdout).trim().split('\n').pop() ?? '', stderr: String(r.stderr) };
}

/** The train step's overrides through verl_check.py (the argv after `-m <module>`). */
const check = (mode: 'main_ppo' | 'sft', step: TrainStep) =>
  run(step, [PYTHON, CHECK, mode, ...step.argv.slice(step.argv.findIndex((a) => a.startsWith('verl.trainer.')) + 1)]);

describe('the verl adapters, checked by the installed verl', () => {
  let dir: string;
  let base: string;
  beforeAll(async () => {
    requireEngines('verl');
    dir = tempStateDir('verl-config-');
    // verl 0.6.1 needs transformers 4, which does not know the tokenizer class transformers 5 wrote; the same
    // tokenizer.json under the class name 4.x loads.
    base = path.join(dir, 'tiny-llama');
    cpSync(await tinyModel(), base, { recursive: true });
    const tokenizerConfig = path.join(base, 'tokenizer_config.json');
    writeFileSync(
      tokenizerConfig,
      JSON.stringify({ ...JSON.parse(readFileSync(tokenizerConfig, 'utf8')), tokenizer_class: 'PreTrainedTokenizerFast' }),
    );
  }, 120_000);

  const jobFor = (method: TrainMethod, rows: string[], extra: Partial<TrainJob> = {}): TrainJob => {
    const data = path.join(dir, method);
    mkdirSync(data, { recursive: true });
    writeFileSync(path.join(data, 'train.jsonl'), `${rows.join('\n')}\n`);
    const work = path.join(data, 'work');
    mkdirSync(work, { recursive: true });
    return {
      method,
      base,
      dataDir: data,
      dataFile: path.join(data, 'train.jsonl'),
      workDir: work,
      hfOutput: path.join(data, 'out'),
      python: PYTHON,
      seed: 7,
      ...extra,
    };
  };
  const onlineJob = (method: 'grpo' | 'ppo') =>
    jobFor(
      method,
      // The recipe's `rl` rows (collabllm-multiturn shape), as the CollabLLM data stage writes them.
      [0, 1, 2, 3].map((c) =>
        JSON.stringify({
          prompt: [{ role: 'user', content: `Help me with problem ${c}.` }],
          completion: `Sure, problem ${c}.`,
          conv_id: c,
          turn_id: 1,
          score: 0.5,
          single_turn_prompt: `goal ${c}`,
          single_turn_completion: `answer ${c}`,
          single_turn_metadata: { task_id: `t${c}` },
        }),
      ),
      { onlineRl: { rewardUrl: REWARD_URL, ...collabVerlRollout({ task: 'math' } as never) } },
    );

  /** An online plan of one step, its prepare step run for real and its train step's overrides through verl_check.py. */
  const composedOnline = async (method: 'grpo' | 'ppo') => {
    const [prepare, train] = verlAdapter.plan(
      onlineJob(method),
      options({ maxSteps: 1, grpo: { ...options().grpo, trainBatchSize: 2, ppoMiniBatchSize: 2 } }),
    );
    const converted = await run(prepare);
    expect(converted.exitCode, converted.stderr).toBe(0);
    const r = await check('main_ppo', train);
    expect(r.exitCode, r.stderr).toBe(0);
    return r;
  };

  it('GRPO: verl composes and validates the plan, loads our reward manager, interaction and the converted prompts', async () => {
    const r = await composedOnline('grpo');
    expect(JSON.parse(r.last)).toEqual({
      use_reference_policy: true, // the KL loss is on: verl starts a reference worker
      use_critic: false,
      adv_estimator: 'grpo',
      critic: null,
      reward_manager: 'CollabLoopRewardManager',
      interactions: { collabllm: 'CollabLoopInteraction' },
      agent_loops: [{ name: 'collabllm_agent', _target_: 'recipe.collabllm.collabllm_agent_loop.CollabLLMAgentLoop' }],
      rows: 3, // 4 conversations, one held out for validation
      row: {
        agent_name: 'collabllm_agent',
        interaction_kwargs: expect.objectContaining({ name: 'collabllm', single_turn_prompt: expect.stringMatching(/^goal \d$/) }),
        prompt: [expect.stringMatching(/^Help me with problem \d\.$/)],
      },
    });
  }, 300_000);

  it('PPO: verl composes and validates the plan with the GAE estimator and a critic started from the checkpoint', async () => {
    const r = await composedOnline('ppo');
    expect(JSON.parse(r.last)).toMatchObject({
      use_reference_policy: true,
      use_critic: true, // need_critic: GAE trains a value model beside the actor
      adv_estimator: 'gae',
      critic: { path: base, lr: 1e-5 },
      reward_manager: 'CollabLoopRewardManager',
      interactions: { collabllm: 'CollabLoopInteraction' },
      rows: 3,
    });
  }, 300_000);

  it('GRPO: a key verl’s config does not have is refused by Hydra, naming it', async () => {
    const [prepare, train] = verlAdapter.plan(
      onlineJob('grpo'),
      options({ extraArgs: ['actor_rollout_ref.rollout.multi_turn.max_turns=2'] }),
    );
    expect((await run(prepare)).exitCode).toBe(0);
    const r = await check('main_ppo', train);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("Could not override 'actor_rollout_ref.rollout.multi_turn.max_turns'");
  }, 300_000);

  it('SFT: the prepared parquet is read by verl’s multi-turn dataset under the plan’s keys', async () => {
    const rows = formatSft(
      [0, 1, 2].map((i) => ({
        taskId: `t${i}`,
        sampleIndex: 0,
        turn: 1,
        messages: [
          { role: 'user' as const, content: `What is ${i} + 7?` },
          { role: 'assistant' as const, content: `Maybe ${i + 6}.` },
          { role: 'user' as const, content: 'Check again.' },
        ],
        completion: `It is ${i + 7}.`,
      })),
      'verl',
    );
    const [prepare, train] = verlAdapter.plan(jobFor('sft', rows), options({ maxSteps: 2 }));
    const converted = await run(prepare);
    expect(converted.exitCode, converted.stderr).toBe(0);
    const r = await check('sft', train);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.last);
    expect(out).toMatchObject({ dataset: 'MultiTurnSFTDataset', rows: 3 });
    expect(out.trainer).toMatchObject({ total_training_steps: 2, logger: 'console', resume_mode: 'auto', seed: 7, save_freq: -1 });
    // verl's multi-turn loss covers every assistant turn of the row, the earlier one too (see adapters/verl.ts).
    expect(out.trained).toBe('Maybe 6.<|eot_id|>It is 7.<|eot_id|>');
  }, 300_000);
});
