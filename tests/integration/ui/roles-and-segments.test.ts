// The real Temporal UI (Chromium) on a debate run — six trained roles, two iterations, hence two loop executions
// joined by continue-as-new: the iteration's page names every role's served checkpoint and what each trained role's
// training made (steps, final loss, checkpoint); the loop's page, on its second execution, still says when the run
// started and how long it took (the UI's own summary, start and duration are the last execution's).
import { describe, expect, it } from 'vitest';
import { startLoop } from '../../../cli/runs';
import { iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import type { LoopResult } from '../../../workflows/loop';
import { runWorkers } from '../../../workers/run-worker';
import { tempStateDir, testConfig } from '../../helpers/config';
import { DEBATE_ROLES, debateTestRecipe } from '../../helpers/debate';
import { openTab, openUiRun, useUiServer } from '../../helpers/ui-page';

const ui = useUiServer();

const loss = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(4));

describe('the Temporal UI on a society of trained roles, across continue-as-new', () => {
  it("an iteration's page shows every role's served checkpoint and each training's steps and loss; the loop's, the run's start", async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.recipe = debateTestRecipe();
      c.trainer.method = 'sft';
      c.trainer.dataFormat = 'trl';
    });
    const runName = 'ui-roles';
    const { client, workers, page, close } = await openUiRun(ui.server, ui.browser);
    const run = async () => {
      const { handle } = await startLoop(client, { file: 'configs/debate.dry-run.yaml', config, runName });
      const first = await handle.describe(); // the run's first execution
      const result = (await client.workflow.getHandle(loopWorkflowId(runName)).result()) as LoopResult;
      const [it0, it1] = result.iterations;

      // Iteration 1 serves each role from what its own data trained in iteration 0: six checkpoints, not one.
      const served = DEBATE_ROLES.map((role) => it1.models![role].checkpoint!);
      expect(new Set(served).size).toBeGreaterThan(1);
      const id = iterationWorkflowId(runName, 1);
      const text = await openTab(page, ui.server.uiPort, id, 'User Metadata', /trained:/);
      expect(text).toContain(`${runName} · iteration 1 · 6 roles on ${new Set(served).size} checkpoints`); // summary
      for (const role of DEBATE_ROLES) {
        const m = it1.models![role];
        expect(m.checkpoint).toBe(it0.models![role].nextCheckpoint ?? it0.models![role].checkpoint);
        expect(text).toContain(`${role} (trained): ${m.checkpoint}`);
        if (!m.nextCheckpoint) {
          expect(text).toContain(`train ${role} · sft · kept its checkpoint`);
          continue;
        }
        const t = m.train!;
        expect(t.steps).toBeGreaterThan(0);
        expect(text).toContain(`train ${role} · sft · ${t.steps} steps · final loss ${loss(t.finalLoss!)} → ${m.nextCheckpoint}`);
      }
      expect(DEBATE_ROLES.filter((r) => it1.models![r].nextCheckpoint).length).toBeGreaterThan(0);

      // The loop's page on its last execution: the run's start is the first execution's, the time since it too.
      const latest = await client.workflow.getHandle(loopWorkflowId(runName)).describe();
      expect(latest.runId).not.toBe(first.runId); // continue-as-new happened
      const loop = await openTab(page, ui.server.uiPort, loopWorkflowId(runName), 'User Metadata', /iterations 0–1 done/);
      expect(loop).toContain(`ui-roles (debate) · iterations 0–1 done`);
      const started = loop.match(/started (\S+) · took ([\d.]+) (ms|s|min|h)/);
      expect(started?.[1]).toBe(first.startTime.toISOString());
      expect(Date.parse(started![1])).toBeLessThan(latest.startTime.getTime());
    };
    try {
      await runWorkers(workers, run());
    } finally {
      await close();
    }
  });
});
