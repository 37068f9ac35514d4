// Records as the plan hands them to a streaming fold or data build: task-major (every sample of a task together),
// so per-task work (caps, shuffles, best-of-k) holds one task's records at a time.
import { ApplicationFailure } from '@temporalio/activity';
import type { DataBuilder } from './types';

/** Hands each task's records to `onTask` once the next task's first record (or the end) arrives. A task whose
 *  records come back after another's is refused: its per-task work would run twice. */
export function taskGroups<R extends { taskId: string }>(
  what: string,
  onTask: (records: R[]) => void,
): Pick<DataBuilder<R>, 'add'> & { end(): void } {
  let task: R[] = [];
  const done = new Set<string>();
  const end = () => {
    if (!task.length) return;
    const id = task[0].taskId;
    // Not retried: the same records come back in the same order.
    if (done.has(id))
      throw ApplicationFailure.nonRetryable(
        `${what}: the records of task ${id} are not together (a shard out of order?)`,
        'RecordsOutOfOrder',
      );
    done.add(id);
    const records = task;
    task = [];
    onTask(records);
  };
  return {
    add(r) {
      if (task.length && task[0].taskId !== r.taskId) end();
      task.push(r);
    },
    end,
  };
}

/** A data build made per task: `onTask` writes a task's rows; `counts` are read once every record is in. */
export function perTaskBuilder<R extends { taskId: string }>(
  what: string,
  onTask: (records: R[]) => void,
  counts: () => Record<string, number>,
): DataBuilder<R> {
  const tasks = taskGroups(what, onTask);
  return {
    add: tasks.add,
    finish() {
      tasks.end();
      return counts();
    },
  };
}
