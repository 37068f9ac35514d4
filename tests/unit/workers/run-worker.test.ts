// What each task queue's Worker registers: its queue's activities only, so a workflow that schedules an activity on
// the wrong queue fails at once (no handler) instead of running it on the wrong pool of machines.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createActivities } from '../../../activities';
import { QUEUE_ACTIVITIES, type ActivitiesByQueue } from '../../../contracts/activities';
import { TASK_QUEUES } from '../../../contracts/run';
import { ALL_QUEUES, pollers } from '../../../workers/run-worker';

const registered = (gpuClasses?: string[]) =>
  new Map(pollers(ALL_QUEUES, gpuClasses, createActivities()).map((p) => [p.taskQueue, p.activities && Object.keys(p.activities)]));

describe('activities registered per task queue', () => {
  it("registers on each queue exactly its interface's activities, and none on the workflows queue", () => {
    const byQueue = registered();
    expect([...byQueue.keys()].sort()).toEqual(Object.values(TASK_QUEUES).sort());
    expect(byQueue.get(TASK_QUEUES.workflows)).toBeUndefined();
    for (const [q, names] of Object.entries(QUEUE_ACTIVITIES))
      expect(byQueue.get(TASK_QUEUES[q as keyof typeof QUEUE_ACTIVITIES])?.sort()).toEqual([...names].sort());
    expectTypeOf(createActivities()).toEqualTypeOf<ActivitiesByQueue>();
  });

  it("registers the gpu activities on each gpu class's queue, besides the generic gpu queue", () => {
    const byQueue = registered(['h100', 'a10']);
    for (const q of ['collab-loop-gpu', 'collab-loop-gpu-h100', 'collab-loop-gpu-a10'])
      expect(byQueue.get(q)?.sort()).toEqual([...QUEUE_ACTIVITIES.gpu].sort());
  });

  it('an activity on two queues is one function, wrapped once', () => {
    const wrapped: string[] = [];
    const acts = createActivities({
      wrap: (name, fn) => {
        wrapped.push(name);
        return fn;
      },
    });
    expect(acts.cpu.buildTrainingData).toBe(acts.llm.buildTrainingData);
    expect(wrapped.filter((n) => n === 'buildTrainingData')).toHaveLength(1);
  });

  // The recorded runs (tests/histories, the replay tests' input) scheduled these activities on these queues: a run
  // in flight when the workers are upgraded must find each of them on the queue it was scheduled on.
  it('registers every activity a recorded run scheduled on the queue it scheduled it on', () => {
    const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../histories');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    const scheduled = new Set<string>();
    for (const f of files) {
      const { history } = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
      for (const e of history.events) {
        const a = e.activityTaskScheduledEventAttributes;
        if (a) scheduled.add(`${a.taskQueue.name} ${a.activityType.name}`);
      }
    }
    const classes = [...scheduled].flatMap((s) => /^collab-loop-gpu-(\S+) /.exec(s)?.[1] ?? []);
    const byQueue = registered(classes);
    const missing = [...scheduled].filter((s) => {
      const [queue, activity] = s.split(' ');
      return !byQueue.get(queue)?.includes(activity);
    });
    expect(scheduled.has('collab-loop-cpu planShards')).toBe(true); // iterations recorded before recipe-needs-v1
    expect(missing).toEqual([]);
  });
});
