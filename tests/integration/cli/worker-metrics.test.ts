// `collab-loop worker --metrics-port` serves Prometheus metrics an operator scrapes: the SDK's worker metrics and
// the project's collab_loop_* counters, labelled by run, role and endpoint — read here from a real worker process
// after a real (simulator-deployed, stand-in-trained) loop and an eval-only rerun that the request cache answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { freePort } from '../../../activities/serving/free-port';
import { cliProcess } from '../../helpers/cli';
import { tempStateDir, testConfig } from '../../helpers/config';
import { startDevServer } from '../../helpers/temporal';
import { waitUntil } from '../../helpers/wait';
import { scrape, total } from '../../helpers/prometheus';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('worker --metrics-port', () => {
  it('exports the SDK worker metrics and the run-labelled collab_loop counters', async () => {
    const port = await freePort();
    const worker = cliProcess(['worker', '--metrics-port', String(port)], { TEMPORAL_ADDRESS: env.address });
    let out = '';
    worker.all!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      await waitUntil(async () => out.includes('collab-loop worker polling'), 60_000, 'the worker startup line');
      expect(out).toContain(`metrics on 127.0.0.1:${port}/metrics`);
      const stateDir = tempStateDir();
      const config = testConfig(stateDir, (c) => {
        c.iterations = 1;
        c.recipe.limit = 4;
      });
      const run = (runName: string, evalOnly: boolean) =>
        env.client.workflow.execute(trainingLoop, {
          taskQueue: TASK_QUEUES.workflows,
          workflowId: loopWorkflowId(runName),
          args: [{ runName, config, evalOnly }],
        });
      const trained = await run('metrics-train', false);
      expect(trained.iterations[0].nextCheckpoint).toBeTruthy();
      // Same base checkpoint, same seed: every evaluation call of the rerun is in the request cache.
      await run('metrics-rerun', true);

      const samples = await scrape(port);
      // The SDK's own worker metrics, per task queue.
      expect(samples.some((s) => s.name.startsWith('temporal_') && s.labels.task_queue === TASK_QUEUES.llm)).toBe(true);
      expect(samples.some((s) => s.name === 'temporal_worker_task_slots_available')).toBe(true);

      const first = { run: 'metrics-train', role: 'agent' };
      const calls = total(samples, 'collab_loop_llm_calls', first);
      expect(calls).toBeGreaterThan(0);
      expect(total(samples, 'collab_loop_llm_requests', first)).toBeGreaterThan(0);
      expect(total(samples, 'collab_loop_llm_completion_tokens', first)).toBeGreaterThan(0);
      expect(total(samples, 'collab_loop_llm_prompt_tokens', first)).toBeGreaterThan(0);
      // The endpoint label is the served model's id, not its (per-deploy) URL.
      const endpoints = new Set(samples.filter((s) => s.name === 'collab_loop_llm_calls').map((s) => s.labels.endpoint));
      expect([...endpoints].every((e) => e && !e.includes('127.0.0.1'))).toBe(true);

      const rerun = { run: 'metrics-rerun', role: 'agent' };
      const rerunCalls = total(samples, 'collab_loop_llm_calls', rerun);
      expect(rerunCalls).toBeGreaterThan(0);
      expect(total(samples, 'collab_loop_llm_cache_hits', rerun)).toBe(rerunCalls);
      expect(total(samples, 'collab_loop_llm_requests', rerun)).toBe(0);

      // The stand-in trainer reports 8 steps; the role is the one it trains.
      expect(total(samples, 'collab_loop_trainer_steps', { run: 'metrics-train', role: 'agent' })).toBe(8);
      expect(total(samples, 'collab_loop_trainer_steps', { run: 'metrics-rerun' })).toBe(0);
    } finally {
      worker.kill('SIGINT');
      await worker;
    }
  });

  it('a port already in use is one clear error', async () => {
    const port = await freePort();
    const holder = (await import('node:net')).createServer();
    await new Promise<void>((r) => holder.listen(port, '0.0.0.0', r));
    try {
      const r = await cliProcess(['worker', '--metrics-port', String(port)], { TEMPORAL_ADDRESS: env.address });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toMatch(new RegExp(`--metrics-port ${port} on 127.0.0.1: .*Address already in use`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      holder.close();
    }
  });
});
