// What an operator scrapes from `collab-loop worker --metrics-port` while a run on S3 storage (a real SeaweedFS)
// goes through a needs-attention and two iterations: the stage waiting for the user as a gauge that is 1, then 0
// after `retry`; the budget spent against its limit; stage durations by stage and recipe; bytes moved to and from
// the store; the trained checkpoint uploaded, and served on the host that trained it without a download; and the endpoint
// label of a checkpoint served from S3 (whose model id is its 64-hex content hash) as its role and iteration.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../activities/serving/free-port';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { trainingLoop } from '../../../workflows/loop';
import { cli, startCliWorker } from '../../helpers/cli';
import { tempStateDir, testConfig } from '../../helpers/config';
import { matching, type Sample, scrape, total } from '../../helpers/prometheus';
import { s3Storage, useS3Server } from '../../helpers/s3-server';
import { startDevServer } from '../../helpers/temporal';
import { waitForAttention, waitUntil } from '../../helpers/wait';

const s3 = useS3Server();
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const RAISED = 100_000_000;

describe('worker --metrics-port on a run that needs attention, on S3 storage', () => {
  it('exports attention, budget, stage durations, storage and checkpoint transfers, and readable endpoint labels', async () => {
    const port = await freePort();
    const worker = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, ['--metrics-port', String(port)]);
    try {
      const runName = 'metrics-s3';
      const stateDir = tempStateDir('metrics-s3-');
      const config = testConfig(stateDir, (c) => {
        c.iterations = 2;
        c.recipe.limit = 4;
        c.storage = s3Storage(s3(), 'metrics-s3');
        c.budget = { tokens: 1 }; // the first call would pass it: generate needs attention
      });
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      const run = { run: runName };

      // Waiting for the user: the gauge is 1 for the run's stage, beside the budget that stopped it.
      const waiting = await waitForAttention(env.client, runName, 0, 120_000);
      expect(waiting.attention).toMatchObject({ stage: 'generate', failureType: 'BudgetReached' });
      const during = await waitUntil(
        async () => {
          const s = await scrape(port);
          return total(s, 'collab_loop_needs_attention', { ...run, stage: 'generate' }) === 1 && s;
        },
        30_000,
        'the needs-attention gauge',
      );
      expect(total(during, 'collab_loop_budget_limit', { ...run, unit: 'tokens' })).toBe(1);
      expect(matching(during, 'collab_loop_budget_spent', { ...run, unit: 'tokens' })).toHaveLength(1);

      const retry = await cli(['retry', runName, '--set', `budget.tokens=${RAISED}`], { TEMPORAL_ADDRESS: env.address });
      expect(retry.all).toContain('retrying from stage generate');
      const result = await handle.result();
      expect(result.iterations).toHaveLength(2);
      const samples: Sample[] = await scrape(port);

      // Retried: 0 again. The budget gauges say what the run's iterations report they spent.
      expect(matching(samples, 'collab_loop_needs_attention', { ...run, stage: 'generate' }).map((s) => s.value)).toEqual([0]);
      const spent = result.iterations.reduce((sum, i) => sum + (i.spend?.total.tokens ?? 0), 0);
      expect(spent).toBeGreaterThan(0);
      expect(total(samples, 'collab_loop_budget_spent', { ...run, unit: 'tokens' })).toBe(spent);
      expect(total(samples, 'collab_loop_budget_limit', { ...run, unit: 'tokens' })).toBe(RAISED);

      // Each stage finished once per iteration (generate's attempt stopped by the budget is not a finished stage).
      for (const stage of ['deploy', 'generate', 'evaluate', 'build-data', 'undeploy', 'train']) {
        const labels = { stage, recipe: 'coral' };
        expect(total(samples, 'collab_loop_stage_seconds_count', labels), stage).toBe(2);
        expect(total(samples, 'collab_loop_stage_seconds_sum', labels), stage).toBeGreaterThan(0);
        // Buckets that reach a day (workers/logging.ts), not the core's default ones that stop at 10.
        expect(total(samples, 'collab_loop_stage_seconds_bucket', { ...labels, le: '86400' }), stage).toBe(2);
      }

      // Bytes went both ways through the store, with no failed request.
      expect(total(samples, 'collab_loop_storage_uploaded_bytes', run)).toBeGreaterThan(0);
      expect(total(samples, 'collab_loop_storage_downloaded_bytes', run)).toBeGreaterThan(0);
      expect(total(samples, 'collab_loop_storage_errors', run)).toBe(0);

      // Each iteration's train stage published its checkpoint and, as this host trained it, linked it into the host's
      // checkpoint cache (activities/storage/checkpoint-cache.ts): iteration 1's deploy served iteration 0's from
      // there and fetched nothing (a fetch onto another host is counted in tests/integration/activities/storage/storage-metrics.test.ts).
      expect(total(samples, 'collab_loop_checkpoint_uploads', { ...run, kind: 'final' })).toBe(2);
      expect(total(samples, 'collab_loop_checkpoint_uploaded_bytes', { ...run, kind: 'final' })).toBeGreaterThan(0);
      const cached = readdirSync(path.join(stateDir, 'checkpoint-cache')).filter((d) => /^[0-9a-f]{64}$/.test(d));
      expect(cached).toHaveLength(2);
      expect(total(samples, 'collab_loop_checkpoint_fetches', { ...run, kind: 'final' })).toBe(0);

      // The served checkpoints' calls by role and iteration: iteration 1's server (the fetched checkpoint, whose
      // model id is sim-<64 hex>) is agent@iter-1 (and extractor@iter-1: CoRal's answer extractor is served from
      // the same checkpoint); no endpoint label carries a hash.
      const callLabels = matching(samples, 'collab_loop_llm_calls', run).map((s) => s.labels.endpoint);
      expect(new Set(callLabels)).toEqual(new Set(['agent@iter-0', 'agent@iter-1', 'extractor@iter-0', 'extractor@iter-1']));
      for (const it of [0, 1]) expect(total(samples, 'collab_loop_llm_calls', { ...run, endpoint: `agent@iter-${it}` })).toBeGreaterThan(0);
      const labelled = samples.filter((s) => s.name.startsWith('collab_loop_llm_') && s.labels.endpoint !== undefined);
      expect(labelled.filter((s) => /[0-9a-f]{64}/.test(s.labels.endpoint))).toEqual([]);
    } finally {
      await worker.stop();
    }
  }, 400_000);
});
