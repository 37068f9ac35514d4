// The replacement-worker promise, on two worker hosts sharing only a Temporal dev server and a SeaweedFS bucket:
// SIGKILL the host polling workflows,llm,cpu,sandbox while one of its cpu activities runs (the loop's tracker
// write, held open by a stand-in MLflow server that does not answer its first request), start a replacement 30 s
// later, and every activity it runs from then on — the retry of the one the dead worker held, and each stage of the
// next iteration — starts within 10 s of the replacement polling (counted from then: its own start-up, the
// workflow bundle above all, takes 4–10 s on a loaded 2-core machine). The server retries a killed worker's
// activity only once its heartbeat timeout passes (workflows/activity-proxies.ts HEARTBEAT_TIMEOUT), so that
// timeout must be shorter than a restart; at 60 s the tracker write started about 25 s after the replacement.
import type { ServerResponse } from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainingLoop } from '../../../workflows/loop';
import { iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { testConfig } from '../../helpers/config';
import { startServer, type TestServer } from '../../helpers/recording-server';
import { S3_START_TIMEOUT_MS, startS3Server, type S3Server } from '../../helpers/s3-server';
import { startDevServer } from '../../helpers/temporal';
import { twoHosts } from '../../helpers/two-hosts';

const RESTART_AFTER_MS = 30_000;
const PICKUP_BOUND_MS = 10_000;

let env: TestWorkflowEnvironment;
let s3: S3Server;
let mlflow: TestServer;
/** Called as the stand-in MLflow server receives its first request: the kill lands while trackIteration runs. */
let atFirstTrackerRequest: (() => void) | undefined;

/** MLflow's REST answers, just enough for activities/tracking/mlflow.ts; the first request is never answered. */
function answerMlflow(url: string, res: ServerResponse): void {
  if (atFirstTrackerRequest) {
    const kill = atFirstTrackerRequest;
    atFirstTrackerRequest = undefined;
    kill();
    return;
  }
  const body = url.includes('experiments/get-by-name')
    ? { experiment: { experiment_id: '1' } }
    : url.includes('runs/search')
      ? { runs: [] }
      : url.includes('runs/create')
        ? { run: { info: { run_id: 'r1', artifact_uri: 'mlflow-artifacts:/1/r1/artifacts' }, data: { tags: [] } } }
        : {};
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

beforeAll(async () => {
  [env, s3, mlflow] = await Promise.all([startDevServer(), startS3Server(), startServer((r, res) => answerMlflow(r.url, res))]);
}, S3_START_TIMEOUT_MS);
afterAll(async () => {
  await env?.teardown();
  await s3?.stop();
  await mlflow?.close();
});

const ms = (t: temporal.api.history.v1.IHistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

interface Pickup {
  workflow: string;
  activity: string;
  attempt: number;
  scheduledAt: number;
  startedAt: number;
}

/** Each activity of a workflow's runs (the loop continues as new), with when it was scheduled and when its last
 *  attempt started. */
async function pickups(workflowId: string): Promise<Pickup[]> {
  const out: Pickup[] = [];
  for await (const run of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    out.push(...(await runPickups(workflowId, run.runId)));
  return out;
}

async function runPickups(workflowId: string, runId: string): Promise<Pickup[]> {
  const { events } = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const scheduled = new Map<string, { activity: string; at: number }>();
  const out: Pickup[] = [];
  for (const e of events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), { activity: s.activityType?.name ?? '', at: ms(e.eventTime) });
    const st = e.activityTaskStartedEventAttributes;
    if (st) {
      const of = scheduled.get(String(st.scheduledEventId))!;
      out.push({ workflow: workflowId, activity: of.activity, attempt: st.attempt ?? 1, scheduledAt: of.at, startedAt: ms(e.eventTime) });
    }
  }
  return out;
}

describe('the workflows,llm,cpu host is killed with SIGKILL while a cpu activity runs', () => {
  it('its replacement, started 30 s later, starts every stage within 10 s of polling', async () => {
    const { starter, start } = twoHosts('replacement', { TEMPORAL_ADDRESS: env.address, ...s3.env });
    const runName = 'replacement';
    const config = testConfig(starter, (c) => {
      c.iterations = 2;
      c.recipe.limit = 4;
      c.storage = { kind: 's3', bucket: s3.bucket, prefix: 'loops', endpoint: s3.endpoint };
      c.tracking = { mlflow: { trackingUri: mlflow.url, uploadReport: false } };
    });
    const first = await start('a');
    const gpu = await start('b');
    let killedAt = 0;
    atFirstTrackerRequest = () => {
      killedAt = Date.now();
      first.worker.kill('SIGKILL');
    };
    let replacement: Awaited<ReturnType<typeof start>> | undefined;
    try {
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      expect((await first.worker).signal).toBe('SIGKILL');
      await new Promise((r) => setTimeout(r, killedAt + RESTART_AFTER_MS - Date.now()));
      replacement = await start('a');
      const pollingAt = Date.now();

      const result = await handle.result();
      expect(result.iterations).toHaveLength(2);
      const all = (
        await Promise.all([loopWorkflowId(runName), iterationWorkflowId(runName, 0), iterationWorkflowId(runName, 1)].map(pickups))
      ).flat();
      // The tracker write the dead worker held is the one activity retried; it and everything after start promptly.
      const afterKill = all.filter((p) => p.startedAt > killedAt);
      expect(afterKill.filter((p) => p.attempt > 1).map((p) => p.activity)).toEqual(['trackIteration']);
      const late = afterKill
        .map((p) => ({ ...p, waitedMs: p.startedAt - Math.max(p.scheduledAt, pollingAt) }))
        .filter((p) => p.waitedMs > PICKUP_BOUND_MS);
      expect(late).toEqual([]);
      expect(afterKill.some((p) => p.workflow === iterationWorkflowId(runName, 1) && p.activity === 'trainCheckpoint')).toBe(true);
    } finally {
      await Promise.all([first.stop(), gpu.stop(), replacement?.stop()]);
    }
  }, 300_000);
});
