// TOA on a real Temporal dev server, every model SIMULATED (policies of seeded quality, a judge that reads it):
//   - two iterations with the stand-in trainer: the student's chain beside the frozen policies and reward, every
//     method searched at the same N on the evaluation prompts, each method's best text kept and judged with the
//     student's against reference outputs (AlpacaEval / Arena-Hard style) every iteration, the SFT (best) and DPO
//     (best vs rank) rows drawn from each pool, and the report's reward-against-FLOPs figures;
//   - SIGKILL of the worker mid-search: the search picks up where it stopped (the same tree as an uninterrupted run)
//     and no endpoint answered a completed request twice except those in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { reportHtml } from '../../activities/report/report-html';
import { recipeRuntime } from '../../activities/recipes/runtime';
import { startOpenAICompatibleServer, type RunningServer } from '../../activities/serving/openai-compatible-server';
import { METHODS } from '../../activities/recipes/toa/baselines';
import type { ToaBuildRecord, ToaEvalRecord } from '../../activities/recipes/toa/records';
import { createToaSimulatedPolicy } from '../../activities/recipes/toa/simulated-policy';
import { loadToaTasks } from '../../activities/recipes/toa/tasks';
import { trainingLoop } from '../../workflows/loop';
import { loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES, type IterationSummary } from '../../contracts/run';
import { startDevServer } from '../helpers/temporal';
import { runLoop } from '../helpers/run-loop';
import { CONFIGS, tempStateDir, testConfig } from '../helpers/config';
import { cliProcess } from '../helpers/cli';
import { artifactPath, readJsonl } from '../helpers/artifacts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const TASKS = path.join(CONFIGS, 'tasks/toa/instructions.jsonl');

/** The records of one split's shards, through the stage manifest that lists them. */
function records<T>(it: IterationSummary, stage: 'evaluate' | 'build-data', prefix: string): T[] {
  const m = JSON.parse(readFileSync(artifactPath(it.manifests[stage]), 'utf8')) as { inputs: Record<string, unknown> };
  return Object.entries(m.inputs)
    .filter(([k]) => k.startsWith(prefix))
    .flatMap(([, ref]) => readJsonl<T>(ref as never));
}

describe('TOA loop', () => {
  it('two iterations: every method at the same N, SFT/DPO from each pool, reward-vs-FLOPs figures', async () => {
    const stateDir = tempStateDir();
    // Reference outputs for the 3 evaluation prompts ({id, output} rows): the simulated judge counts them as quality 0.5.
    const references = path.join(stateDir, 'references.jsonl');
    const evalTasks = loadToaTasks(TASKS, 'instruction').slice(0, 3);
    writeFileSync(
      references,
      evalTasks.map((t) => JSON.stringify({ id: t.id, output: `A reference answer to: ${t.instruction}` })).join('\n'),
    );
    const config = testConfig(stateDir, (c) => {
      c.recipe = {
        name: 'toa',
        task: 'instruction',
        evalTasks: TASKS,
        trainTasks: TASKS,
        limit: 3,
        policies: 3,
        samples: 3,
        compare: [...METHODS],
        search: { tau: 2 },
        moaLayers: 2,
        data: { dpoRank: 5 },
        flops: { policy_0: { params: 7e9 }, policy_1: { params: 8e9 }, policy_2: { params: 9e9, layers: 40, hiddenSize: 5120 } },
        evaluation: { references, bootstrap: 20 },
      };
      c.models = Object.fromEntries(
        [0, 1, 2].map((i) => [`policy_${i}`, { kind: 'frozen', checkpoint: path.join(CONFIGS, `checkpoints/toa-policy-${i + 1}`) }]),
      );
      c.trainer.method = 'dpo';
      c.trainer.dataFormat = 'trl';
    });
    const result = await runLoop(env, 'toa', config);
    const [it0, it1] = result.iterations;
    expect(it0.models!.student).toMatchObject({ kind: 'trained', nextCheckpoint: it1.checkpoint });
    for (const role of ['policy_0', 'policy_1', 'policy_2', 'reward', 'judge']) expect(it1.models![role]).toMatchObject({ kind: 'frozen' });
    // Every method spent exactly N = 9 calls per prompt, and reports its best reward and FLOPs.
    const evals = records<ToaEvalRecord>(it0, 'evaluate', 'eval_shard_');
    expect(evals).toHaveLength(3);
    for (const r of evals)
      for (const m of METHODS) {
        const s = r.methods[m]!;
        expect(s.budget, m).toBe(9);
        expect(
          Object.values(s.actions).reduce((a, b) => a + b, 0),
          m,
        ).toBe(9);
        expect(s.flops, m).toBeGreaterThan(0);
      }
    for (const m of METHODS) expect(it0.metrics[`${m}/best_reward`], m).toBeGreaterThan(1);
    // Each method's best text is kept, and judged with the student's against the reference, every iteration.
    for (const r of evals) {
      expect(Object.keys(r.judged!).sort()).toEqual(['student', ...METHODS].sort());
      for (const m of METHODS) expect(r.judged![m].chars).toBe(r.methods[m]!.best!.text!.length);
    }
    for (const it of [it0, it1])
      for (const who of ['student', ...METHODS])
        for (const k of ['alpaca_win_rate', 'alpaca_lc_win_rate', 'arena_win_rate', 'arena_ci_low', 'arena_ci_high'])
          expect(it.metrics[`${who}/${k}`], `${who}/${k}`).toBeGreaterThanOrEqual(0);
    // Single-agent methods use one policy; TOA's actions span models and both shapes somewhere.
    expect(Object.keys(evals[0].methods.random!.actions)).toEqual(['policy_0_generate']);
    expect(new Set(evals.flatMap((r) => Object.keys(r.methods.toa!.actions))).size).toBeGreaterThan(1);
    // Data: per prompt the best-scored response (SFT) and best vs the 5th best (DPO), from the TOA pools.
    const built = records<ToaBuildRecord>(it0, 'build-data', 'train_shard_');
    const dpo = readJsonl<{ chosen: Array<{ content: string }>; rejected: Array<{ content: string }> }>(it0.datasets!.dpo!);
    expect(built).toHaveLength(3);
    for (const r of built) {
      const scored = r.search.results.responses
        .filter((x) => x.reward !== undefined)
        .sort((a, b) => b.reward! - a.reward! || a.play - b.play);
      const pair = dpo.find((p) => p.chosen[0].content === scored[0].text);
      if (scored[0].reward! > scored[Math.min(5, scored.length) - 1].reward!) expect(pair?.rejected[0].content).toBe(scored[4].text);
    }
    // The report plots each method's reward against its FLOPs per prompt.
    const html = await reportHtml('toa', result.iterations, { config, recipe: () => recipeRuntime(config) });
    expect(html).toContain('data-figure="topk-vs-flops"');
    for (const m of METHODS) expect(html).toContain(`<title>${m}</title>`);
  });

  it('SIGKILL mid-search: it resumes at the play it stopped at, no completed request answered twice but those in flight', async () => {
    const tasks = loadToaTasks(TASKS, 'instruction');
    const names = ['p0', 'p1', 'p2', 'judge', 'student'];
    let answers = 0;
    let kill: (() => void) | undefined;
    const servers: RunningServer[] = await Promise.all(
      names.map((name, i) =>
        startOpenAICompatibleServer({
          modelName: name,
          latencyMs: 20,
          policy: (req) => {
            if (++answers === 120) kill?.();
            return createToaSimulatedPolicy({ tasks, quality: { [name]: [0.4, 0.55, 0.7, 0.5, 0.5][i] }, judgeUnreadable: 0 })(req);
          },
        }),
      ),
    );
    const endpoint = (i: number) => ({ baseUrl: `${servers[i].url}/v1`, model: names[i], maxConcurrency: 4 });
    const configFor = (stateDir: string) =>
      testConfig(stateDir, (c) => {
        c.iterations = 1;
        delete c.trainer;
        c.recipe = {
          name: 'toa',
          task: 'instruction',
          evalTasks: TASKS,
          limit: 4,
          policies: 3,
          samples: 8,
          compare: ['toa'],
          search: { tau: 2 },
          flops: { policy_0: { params: 7e9 }, policy_1: { params: 8e9 }, policy_2: { params: 9e9 } },
        };
        c.models = {
          policy_0: { kind: 'external', endpoint: endpoint(0) },
          policy_1: { kind: 'external', endpoint: endpoint(1) },
          policy_2: { kind: 'external', endpoint: endpoint(2) },
          reward: { kind: 'external', endpoint: endpoint(3) },
        };
        c.server = { kind: 'external', endpoint: endpoint(4) };
        c.generation = { shardSize: 2, concurrency: 4, heartbeatTimeoutSeconds: 3 };
      });
    try {
      const workerEnv = { TEMPORAL_ADDRESS: env.address };
      const first = cliProcess(['worker'], workerEnv);
      kill = () => first.kill('SIGKILL');
      const runName = 'toa-kill';
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config: configFor(tempStateDir()) }],
      });
      await first;
      expect(first.killed).toBe(true);
      const atKill = servers.reduce((n, s) => n + s.stats().completed, 0);
      const second = cliProcess(['worker'], workerEnv);
      let killed: ToaEvalRecord[];
      try {
        killed = records<ToaEvalRecord>((await handle.result()).iterations[0], 'evaluate', 'eval_shard_');
      } finally {
        second.kill('SIGTERM');
        await second;
      }
      expect(servers.reduce((n, s) => n + s.stats().completed, 0)).toBeGreaterThan(atKill); // it went on after the kill…
      // Paid once: a completed answer repeated only for requests in flight at the kill (≤ maxConcurrency each).
      for (const [i, s] of servers.entries()) expect(s.stats().duplicates, names[i]).toBeLessThanOrEqual(4);
      // The same trees as a run that was never interrupted (from the cache-free state of a new run dir).
      kill = undefined;
      const clean = records<ToaEvalRecord>(
        (await runLoop(env, 'toa-clean', configFor(tempStateDir()))).iterations[0],
        'evaluate',
        'eval_shard_',
      );
      const plays = (rs: ToaEvalRecord[]) =>
        Object.fromEntries(
          rs.map((r) => [r.taskId, { best: r.methods.toa!.best, actions: r.methods.toa!.actions, student: r.student.reward }]),
        );
      expect(plays(killed)).toEqual(plays(clean));
      expect(killed.every((r) => r.methods.toa!.budget === 24)).toBe(true);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});
