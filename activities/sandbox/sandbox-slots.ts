// A concurrency slot is a uid: the run on slot s executes as uid/gid 60000 + s. One uid per slot, because
// RLIMIT_NPROC (setrlimit(2)) counts processes per uid and is ignored for uid 0.
import { SandboxConfigError } from './sandbox-config-error';

/** uid (and gid) of slot s is SANDBOX_UID_BASE + s. */
export const SANDBOX_UID_BASE = 60000;
export const MAX_SANDBOX_SLOT = 4999;

export function sandboxUid(slot: number): number {
  if (!Number.isInteger(slot) || slot < 0 || slot > MAX_SANDBOX_SLOT)
    throw new SandboxConfigError(`sandbox slot must be an integer in [0, ${MAX_SANDBOX_SLOT}], got ${slot}`);
  return SANDBOX_UID_BASE + slot;
}

// One run at a time per slot in this process: concurrent runs on one uid would share its RLIMIT_NPROC budget.
const slotQueues = new Map<number, Promise<unknown>>();

/** Runs `job` after every job queued before it on `slot` has settled. */
export function onSlot<T>(slot: number, job: () => Promise<T>): Promise<T> {
  const prev = slotQueues.get(slot) ?? Promise.resolve();
  const next = prev.then(job, job);
  const tail = next.catch(() => undefined);
  slotQueues.set(slot, tail);
  void tail.then(() => {
    if (slotQueues.get(slot) === tail) slotQueues.delete(slot);
  });
  return next;
}
