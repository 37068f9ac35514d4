// A deploy that fails partway stops what it started: CoRal's frozen extractor plays a second checkpoint whose
// server cannot start (a `command` server — the project's simulator — that exits: the checkpoint has no policy
// file), while the primary checkpoint's server starts fine. Every attempt stops the primary's server before it
// fails, so while the run needs attention, and after `stop`, nothing of the run is running and no port it
// listened on is held.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { trainingLoop } from '../../../../workflows/loop';
import { loopWorkflowId, stopSignal } from '../../../../contracts/messages';
import { TASK_QUEUES } from '../../../../contracts/run';
import { simulatorCommand } from '../../../helpers/simulator-command';
import { getRunStatus } from '../../../../cli/loop-workflow';
import { startDevServer } from '../../../helpers/temporal';
import { withWorkers } from '../../../helpers/workers';
import { tempStateDir, testConfig } from '../../../helpers/config';
import { processesWith, stillListening, watchProcesses } from '../../../helpers/host-processes';
import { recordedGroups } from '../../../helpers/loop-groups';
import { waitUntil } from '../../../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('a deploy whose second server cannot start', () => {
  it('leaves no server and no port behind, while the run needs attention and after stop', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      delete c.trainer;
      delete c.recipe.trainTasks;
      c.server = { kind: 'command', command: simulatorCommand(), servedModel: 'sim', healthPath: '/health' };
      // The extractor's checkpoint: a copy of the base without the policy file its server needs.
      const broken = path.join(stateDir, 'broken-checkpoint');
      cpSync(c.baseCheckpoint, broken, { recursive: true });
      rmSync(path.join(broken, 'simulated-policy.json'));
      c.models = { extractor: { kind: 'frozen', checkpoint: broken } };
    });
    const runName = 'failed-deploy';
    const watch = watchProcesses(stateDir);
    try {
      await withWorkers(env, async () => {
        const handle = await env.client.workflow.start(trainingLoop, {
          taskQueue: TASK_QUEUES.workflows,
          workflowId: loopWorkflowId(runName),
          args: [{ runName, config }],
        });
        const status = await waitUntil(
          async () => {
            const s = await getRunStatus(env.client, runName);
            return s.iteration?.attention ? s : undefined;
          },
          120_000,
          'the deploy to need attention',
        );
        expect(status.iteration!.attention!.stage).toBe('deploy');
        expect(status.iteration!.attention!.error).toContain('exited before it was ready');
        // The primary checkpoint's server did start (its log is there) and listened on a port…
        expect(existsSync(path.join(stateDir, 'logs', runName, 'server-iter-0-model.log'))).toBe(true);
        const seen = watch.seen();
        expect(seen.pids.length).toBeGreaterThan(0);
        expect(seen.ports.length).toBeGreaterThan(0);
        // …and nothing of the run is left while it waits for the user.
        expect(processesWith(stateDir)).toEqual([]);
        expect(stillListening(seen.ports)).toEqual([]);
        expect(recordedGroups(stateDir)).toEqual([]); // stopped, so nothing for a later worker to reap either

        await handle.signal(stopSignal, 'test');
        await handle.result();
      });
      const seen = watch.seen();
      expect(processesWith(stateDir)).toEqual([]);
      expect(stillListening(seen.ports)).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});
