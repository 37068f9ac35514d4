// Activities a killed worker was running come back at once when its replacement starts on the same host, instead of
// after their heartbeat timeout (60 s for a trainer): each attempt is recorded in <state dir>/running-activities/
// while it runs, and a worker starting there fails the attempts whose worker is gone (RespondActivityTaskFailed by
// task token, a retryable failure), so the server schedules their retries under the usual retry policy — the
// trainer resumes from its last checkpoint within seconds. An attempt the server already timed out or retried has a
// stale token: the call fails with NotFound and changes nothing. Another host's replacement (a new state dir)
// still waits for the heartbeat timeout.
import { Context } from '@temporalio/activity';
import type { ActivityInterceptors, NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../activities/artifacts/store';
import { STATE_DIR_ENV } from '../activities/host-env';
import { hostRecords, ownerStamp, sameProcess } from '../activities/subprocess/process-registry';

/** gRPC UNAVAILABLE and DEADLINE_EXCEEDED. */
const UNREACHABLE = new Set([14, 4]);

interface RunningRecord {
  taskToken: string;
  activityType: string;
  workflowId?: string;
  attempt: number;
  owner: number;
  ownerStart?: string;
  host: string;
}

/** This worker's state dir (--state-dir), or the config's default one under the directory it runs in. */
const hostStateDir = () => process.env[STATE_DIR_ENV] || path.resolve('state');
const runningDir = () => path.join(hostStateDir(), 'running-activities');

/** Records each activity attempt while it runs (outermost interceptor: a result held for an unreachable server is
 *  still running). */
export const runningActivitiesInterceptor = (): ActivityInterceptors => ({
  inbound: {
    execute: async (input, next) => {
      const info = Context.current().info;
      const file = path.join(runningDir(), `${process.pid}-${randomBytes(6).toString('hex')}.json`);
      const rec: RunningRecord = {
        taskToken: Buffer.from(info.taskToken).toString('base64'),
        activityType: info.activityType,
        workflowId: info.workflowExecution?.workflowId,
        attempt: info.attempt,
        ...ownerStamp(),
      };
      mkdirSync(runningDir(), { recursive: true });
      writeFileAtomic(file, JSON.stringify(rec));
      try {
        return await next(input);
      } finally {
        rmSync(file, { force: true });
      }
    },
  },
});

/** Fails the attempts a dead worker of this host left running; returns what it failed. */
export async function failLeftBehind(connection: NativeConnection, namespace: string): Promise<RunningRecord[]> {
  const failed: RunningRecord[] = [];
  for (const { file, rec } of hostRecords<RunningRecord>(runningDir())) {
    if (sameProcess(rec.owner, rec.ownerStart)) continue;
    try {
      await connection.workflowService.respondActivityTaskFailed({
        namespace,
        taskToken: Buffer.from(rec.taskToken, 'base64'),
        identity: `collab-loop worker ${process.pid}@${os.hostname()}`,
        failure: {
          message: `the worker running it (pid ${rec.owner} on ${rec.host}) is gone; retried by its replacement`,
          source: 'collab-loop',
          applicationFailureInfo: { type: 'WorkerLost', nonRetryable: false },
        },
      });
      failed.push(rec);
    } catch (err) {
      // Unreachable server: the next worker start tries again. Anything else (NotFound: the attempt ended or was
      // already retried; a token of another server) leaves nothing to do.
      if (UNREACHABLE.has((err as { code?: number }).code ?? -1)) continue;
    }
    rmSync(file, { force: true });
  }
  return failed;
}
