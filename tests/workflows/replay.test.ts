// Determinism guard: histories recorded from real runs (tests/histories, re-recorded with
// RECORD_HISTORIES=<tag> npx vitest run tests/e2e/loop.test.ts, which adds *-<tag>.json) must replay against the current workflow code.
// A change that would break running loops fails here instead of in someone's day-3 run.
import { describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { workflowBundle } from '../helpers/temporal';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replay of recorded histories', () => {
  it('has recorded histories of both workflow types', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'iteration-coral.json',
        'loop-coral.json',
        'iteration-colbench-recipe-needs.json',
        'loop-colbench-recipe-needs.json',
        'iteration-debate-recipe-needs.json',
        'loop-debate-recipe-needs.json',
        // Model roles: six trained debate roles (parallel train activities), CoRal's agent + frozen extractor.
        'iteration-debate-model-roles.json',
        'iteration-coral-model-roles.json',
        'iteration-colbench-model-roles.json',
        // SWEET-RL's learned critic: trained, then served, inside build-data (trained-scorers-v1).
        'iteration-colbench-learned-critic.json',
        // Stages that needed attention and were retried: from an earlier stage with a changed config (CoRal), and
        // the one failed role of debate's parallel training.
        'iteration-coral-retry-from-generate.json',
        'iteration-debate-retry-role.json',
        // retry --set carried to later iterations (retry-config-v1); pause stopping the servers (pause-releases-servers-v1).
        'iteration-coral-retry-config-v1.json',
        'iteration-coral-pause-release-v1.json',
        // `start --restart`: the loop's input carries `restart`, the stages are told the restart's run folder.
        'iteration-coral-restart-v1.json',
        'loop-coral-restart-v1.json',
        // A lost model server deployed again mid-generation (redeploy-lost-servers-v1; tests/e2e/durability/lost-servers.test.ts).
        'iteration-coral-redeploy-lost-servers-v1.json',
        // The loop told of each finished shard for its live progress (live-progress-v1).
        'iteration-coral-live-progress-v1.json',
        'loop-coral-live-progress-v1.json',
        // The loop's second segment starting a debate iteration whose summary names each role's checkpoint
        // (iteration-roles-summary-v1), carrying the run's start (LoopState.startedAt).
        'loop-debate-roles-summary-v1.json',
        // The agent pinned to a gpu class: its train and deploy scheduled on collab-loop-gpu-h100 (gpu-placement-v1;
        // tests/e2e/placement.test.ts).
        'iteration-coral-gpu-placement-v1.json',
      ]),
    );
  });

  for (const f of files)
    it(`replays ${f} without nondeterminism`, async () => {
      const { workflowId, history } = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
      await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId)).resolves.toBeUndefined();
    });
});
