// Online DPO through the TRL adapter, for real on the CPU: the plan's prepare step runs CollabLLM's converter on the
// loop's `rl` rows, its train step runs TRL's OnlineDPOTrainer on the tiny random Llama, and the reward of every
// completion comes from a reward service over HTTP with the protocol of the recipe's (/user-turn, /score): this one
// answers user turns and scores by a fixed rule, so the test sees exactly what the trainer asked it.
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collabVerlRollout } from '../../../../../activities/recipes/collabllm/verl-rollout';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { startJsonService, type RunningJsonService } from '../../../../../activities/serving/json-service';
import { trlAdapter, trlOnlineDpoOptionsSchema, type TrlOptions } from '../../../../../activities/training/adapters/trl';
import type { TrainJob, TrainStep } from '../../../../../activities/training/adapters/types';
import { tinyModel, VENV_PYTHON } from '../../../../helpers/tiny-model';

type Message = { role: string; content: string };
interface UserTurn {
  key: string;
  interaction: Record<string, unknown>;
  messages: Message[];
}
interface ScoreCall {
  key: string;
  interaction: Record<string, unknown>;
  prompt_length: number;
  futures: Message[][];
}

let root: string;
let base: string;
let service: RunningJsonService;
const userTurns: UserTurn[] = [];
const scores: ScoreCall[] = [];

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-online-dpo-'));
  base = await tinyModel();
  service = await startJsonService({
    routes: {
      '/user-turn': async (body) => {
        const b = body as UserTurn;
        userTurns.push(b);
        return { text: `Not quite, try again (${b.messages.length}).`, terminate: false };
      },
      '/score': async (body) => {
        const b = body as ScoreCall;
        scores.push(b);
        return { score: b.futures[0][b.prompt_length].content.length / 100, used: b.futures.length, missing: 0, per_metric: {} };
      },
    },
  });
});
afterAll(async () => {
  await service?.close();
  rmSync(root, { recursive: true, force: true });
});

// The CollabLLM data stage's `rl` rows (collabllm-multiturn shape): a prefix ending in a user turn and the task.
const rlRows = [0, 1, 2, 3, 4].map((c) => ({
  prompt: [{ role: 'user', content: `Help me with problem ${c}.` }],
  completion: `Sure, problem ${c}.`,
  conv_id: c,
  turn_id: 1,
  score: 0.5,
  single_turn_prompt: `What is ${c} + 1?`,
  single_turn_completion: `${c + 1}`,
  single_turn_metadata: { task_id: `t${c}` },
}));

function onlineJob(name: string): TrainJob {
  const dataDir = path.join(root, name, 'data');
  mkdirSync(dataDir, { recursive: true });
  const dataFile = path.join(dataDir, 'train.jsonl');
  writeFileSync(dataFile, `${rlRows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return {
    method: 'online_dpo',
    base,
    dataDir,
    dataFile,
    workDir: path.join(root, name, 'work'),
    hfOutput: path.join(root, name, 'final'),
    python: VENV_PYTHON,
    seed: 3,
    onlineRl: { rewardUrl: service.url, ...collabVerlRollout({ task: 'math' } as never) },
  };
}

const options = (o: Partial<TrlOptions> = {}): TrlOptions => ({
  epochs: 1,
  batchSize: 2,
  gradientAccumulation: 1,
  maxLength: 256,
  saveSteps: 0,
  beta: 0.1,
  extraArgs: [],
  onlineDpo: { ...trlOnlineDpoOptionsSchema.parse({}), futures: 2, maxNewTokens: 8 },
  ...o,
});

async function run(step: TrainStep) {
  const r = await execa(step.argv[0], step.argv.slice(1), { env: step.env, reject: false, cwd: PROJECT_ROOT, stdin: 'ignore' });
  return { exitCode: r.exitCode, stdout: String(r.stdout).split('\n'), stderr: String(r.stderr) };
}

const event = (lines: string[], name: string) =>
  lines.filter((l) => l.startsWith(`collab-loop-${name} `)).map((l) => JSON.parse(l.slice(`collab-loop-${name} `.length)));

describe('TRL online DPO (tiny model, CPU, a reward service over HTTP)', () => {
  it('trains on the converted prompts, scoring each completion by its futures through the service', async () => {
    const job = onlineJob('run');
    const steps = trlAdapter.plan(job, options({ maxSteps: 2, learningRate: 1e-3 }));
    expect(steps.map((s) => s.name)).toEqual(['prepare', 'train']);
    const prepared = await run(steps[0]);
    expect(prepared.exitCode, prepared.stderr).toBe(0);
    expect(existsSync(path.join(job.dataDir, 'rl_train.parquet'))).toBe(true);

    const r = await run(steps[1]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(event(r.stdout, 'progress').map((e) => e.step)).toEqual([1, 2]);
    expect(event(r.stdout, 'done')[0]).toMatchObject({ path: job.hfOutput, step: 2 });
    expect(existsSync(path.join(job.hfOutput, 'model.safetensors'))).toBe(true);

    // 2 steps × 2 prompts × 2 completions, each scored once with its 2 futures.
    expect(scores).toHaveLength(8);
    for (const s of scores) {
      // The row's task reaches the service as the converter wrote it (interaction_kwargs).
      expect(s.interaction).toMatchObject({ name: 'collabllm', single_turn_prompt: expect.stringMatching(/^What is \d \+ 1\?$/) });
      expect(s.prompt_length).toBe(1);
      expect(s.futures).toHaveLength(2);
      for (const f of s.futures) {
        // The completion, then user, assistant (the policy), user: verl's caps of 2 user and 3 assistant turns.
        expect(f.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
        expect(f.slice(0, 2)).toEqual(s.futures[0].slice(0, 2));
      }
    }
    // Each user turn was asked with the conversation so far, and each future's turns under keys of their own.
    expect(userTurns).toHaveLength(8 * 2 * 2);
    expect(new Set(userTurns.map((u) => u.key)).size).toBe(userTurns.length);
    expect(userTurns.map((u) => u.messages.length).sort()).toEqual([...Array(16).fill(2), ...Array(16).fill(4)]);
  }, 600_000);

  it('every option the plan passes is an OnlineDPOConfig field, parsed by TRL with the seed’s defaults', async () => {
    const job = onlineJob('config');
    const [, train] = trlAdapter.plan(job, options());
    const parse = await execa(
      VENV_PYTHON,
      [
        '-c',
        [
          'import json, sys, trl_train',
          'args, extra = trl_train.parse_args(sys.argv[1:])',
          'cls, _ = trl_train.trainer_classes(args.method)',
          'c = trl_train.parse_config(cls, trl_train.config_argv(args, use_cpu=True) + extra)',
          'print(json.dumps({k: getattr(c, k) for k in ("beta", "learning_rate", "top_k", "max_new_tokens", "temperature", "max_length")}))',
        ].join('\n'),
        ...train.argv.slice(2),
      ],
      { env: { ...train.env, PYTHONPATH: path.dirname(train.argv[1]) }, reject: false },
    );
    expect(parse.exitCode, String(parse.stderr)).toBe(0);
    expect(JSON.parse(String(parse.stdout).trim().split('\n').pop()!)).toEqual({
      beta: 0.1,
      learning_rate: 5e-6, // microsoft/CollabLLM's online DPO
      top_k: 50,
      max_new_tokens: 8,
      temperature: 1,
      max_length: 256,
    });
  }, 120_000);
});
