// The storage-outage promise, on a real SeaweedFS killed and started again on the same data and port: an outage of
// 30 s costs the run about that much, never a stage that needs attention. (a) During generation: answers that
// arrive while the request cache cannot be written are kept on the worker's host and written when the store is
// back, and calls asked during the outage wait for it, so the endpoint answers no request twice. (b) During the
// train stage: the checkpoint's publish waits the outage out, and the trainer runs once.
import path from 'node:path';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFor } from '../../../activities/artifacts/store';
import { trainPaths } from '../../../activities/training/train-input';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { trainingLoop } from '../../../workflows/loop';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { evaluateOn, startCountingEndpoint } from '../../helpers/endpoint';
import { evaluatedRecordsIn, recordKeys } from '../../helpers/records';
import { runLoop } from '../../helpers/run-loop';
import { useS3Server } from '../../helpers/s3-server';
import { startDevServer } from '../../helpers/temporal';
import { waitUntil } from '../../helpers/wait';
import { withWorkers } from '../../helpers/workers';

const OUTAGE_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const s3 = useS3Server();
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const s3Storage = (prefix: string) => ({ kind: 's3', bucket: s3().bucket, prefix, endpoint: s3().endpoint });

/** Kills the store, keeps it down OUTAGE_MS, starts it again. */
async function outage(): Promise<void> {
  await s3().halt();
  await sleep(OUTAGE_MS);
  await s3().resume();
}

describe('the object store is down for 30 s', () => {
  it('during generation: the run completes and no request is paid twice', async () => {
    const HALT_AT_ANSWER = 40;
    let down: Promise<void> | undefined;
    // The store stops as the endpoint produces answer 40 of at least 64: mid-generation, with answers in flight.
    const server = await startCountingEndpoint({
      latencyMs: 150,
      capacity: 8,
      onAnswer: (n) => {
        if (n === HALT_AT_ANSWER) down = outage();
      },
    });
    try {
      const stateDir = tempStateDir('storage-outage-gen-');
      const config = testConfig(stateDir, (c) => {
        evaluateOn(server, c);
        // Attempts are few, as a user's are: riding out the outage must not depend on Temporal retrying the shard.
        c.generation = { shardSize: 8, concurrency: 8, heartbeatTimeoutSeconds: 5, maximumAttempts: 2 };
        c.storage = s3Storage('outage-gen');
      });
      const runName = 'storage-outage-gen';
      const result = await runLoop(env, runName, config, { evalOnly: true });
      expect(down).toBeDefined(); // the outage happened during the run…
      await down;
      const stats = server.stats();
      const kept = existsSync(path.join(stateDir, 'llm-cache-unsaved'));
      console.log(
        `storage outage during generation: ${stats.completed} answers, ${stats.duplicates} paid twice; answers kept on the host: ${kept}`,
      );
      expect(stats.completed).toBeGreaterThan(HALT_AT_ANSWER); // …and generation went on after it
      expect(stats.duplicates).toBe(0);
      const keys = recordKeys(await evaluatedRecordsIn(storeFor(config), result.iterations[0]));
      expect(keys).toHaveLength(32);
      expect(new Set(keys).size).toBe(32);
    } finally {
      await server.close();
    }
  }, 180_000);

  it('during the train stage: the checkpoint publish waits it out and the trainer runs once', async () => {
    const stateDir = tempStateDir('storage-outage-train-');
    const hold = path.join(stateDir, 'release-trainer');
    const starts = path.join(stateDir, 'trainer-starts'); // the stand-in counts its starts in its --fail-marker
    const runName = 'storage-outage-train';
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.recipe.limit = 4;
      c.generation = { shardSize: 4 };
      c.trainer = {
        kind: 'command',
        method: 'dpo',
        command: [...STAND_IN_TRAINER, '--hold-until', hold, '--fail-marker', starts],
        heartbeatTimeoutSeconds: 10,
      };
      c.storage = s3Storage('outage-train');
    });
    const run = withWorkers(env, () =>
      env.client.workflow.execute(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      }),
    );
    // The trainer has done its steps and waits for `hold`: stop the store, then let the trainer finish, so the
    // checkpoint is published into the outage.
    const { logFile } = trainPaths(stateDir, runName, 0);
    await waitUntil(async () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('holding until'), 90_000, 'the trainer');
    await s3().halt();
    writeFileSync(hold, '');
    await sleep(OUTAGE_MS);
    await s3().resume();
    const result = await run;
    expect(result.iterations).toHaveLength(1);
    expect(result.iterations[0].nextCheckpoint).toBe(`s3://${s3().bucket}/outage-train/checkpoints/${runName}/iter-1`);
    expect(readFileSync(starts, 'utf8')).toBe('1');
  }, 180_000);
});
