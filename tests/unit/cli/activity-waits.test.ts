// `status` names what a stage's activity waits on, from the server's pending-activity record: a silent started
// attempt (heartbeat timeout), a retry after a failure, an attempt no worker picks up — and says nothing for an
// activity that is heartbeating or just scheduled.
import { describe, expect, it } from 'vitest';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { activityWaits } from '../../../cli/activity-waits';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const ago = (s: number) => msNumberToTs(NOW - s * 1000);
const train = (o: Record<string, unknown>) =>
  ({
    activityType: { name: 'trainCheckpoint' },
    attempt: 1,
    maximumAttempts: 3,
    activityOptions: { heartbeatTimeout: msNumberToTs(60_000), taskQueue: { name: 'collab-loop-gpu' } },
    ...o,
  }) as never;
const STARTED = 2;
const SCHEDULED = 1;

describe('activityWaits', () => {
  it('a started attempt silent past a few heartbeats waits for its heartbeat timeout', () => {
    expect(activityWaits([train({ state: STARTED, lastHeartbeatTime: ago(42), lastStartedTime: ago(300) })], NOW)).toEqual([
      {
        activity: 'trainCheckpoint',
        attempt: 1,
        waiting:
          'waiting for the heartbeat timeout (last heartbeat 42 s ago, timeout 60 s): its worker stopped, or finished while the ' +
          'server was down and could not report; it is retried when the timeout passes',
      },
    ]);
    // Never heartbeated: silence counts from the start of the attempt.
    expect(activityWaits([train({ state: STARTED, lastStartedTime: ago(20) })], NOW)[0].waiting).toContain('last heartbeat 20 s ago');
  });

  it('says nothing of a heartbeating attempt or a freshly scheduled one', () => {
    expect(activityWaits([train({ state: STARTED, lastHeartbeatTime: ago(4) })], NOW)).toEqual([]);
    expect(activityWaits([train({ state: SCHEDULED, scheduledTime: ago(2) })], NOW)).toEqual([]);
  });

  it('a retry names its attempt, the failure before it and when it starts', () => {
    const failed = { message: 'trainer train step exited with 1 (attempt 1). Last lines of x.log:\nboom' };
    expect(
      activityWaits(
        [train({ state: SCHEDULED, attempt: 2, lastFailure: failed, nextAttemptScheduleTime: msNumberToTs(NOW + 1500) })],
        NOW,
      )[0].waiting,
    ).toBe('retrying (attempt 2 of 3) after: trainer train step exited with 1 (attempt 1). Last lines of x.log: — next attempt in 2 s');
    expect(
      activityWaits([train({ state: SCHEDULED, attempt: 2, lastFailure: failed, nextAttemptScheduleTime: ago(5) })], NOW)[0].waiting,
    ).toMatch(/ — waiting for a worker on queue collab-loop-gpu$/);
    expect(
      activityWaits(
        [train({ state: STARTED, attempt: 2, lastHeartbeatTime: ago(1), lastFailure: { message: 'activity Heartbeat timeout' } })],
        NOW,
      )[0].waiting,
    ).toBe('attempt 2 of 3 running, after: activity Heartbeat timeout');
  });

  it('a first attempt nobody picks up waits for a worker on its queue', () => {
    expect(activityWaits([train({ state: SCHEDULED, scheduledTime: ago(95) })], NOW)[0].waiting).toBe(
      'waiting for a worker on queue collab-loop-gpu (scheduled 95 s ago)',
    );
    // A role pinned to a gpu class waits for a worker of that class.
    const pinned = train({ state: SCHEDULED, scheduledTime: ago(40) });
    Object.assign(pinned, { activityOptions: { taskQueue: { name: 'collab-loop-gpu-h100' } } });
    expect(activityWaits([pinned], NOW)[0].waiting).toBe(
      'waiting for a worker on queue collab-loop-gpu-h100 — a gpu worker started with --gpu-class h100 (scheduled 40 s ago)',
    );
  });
});
