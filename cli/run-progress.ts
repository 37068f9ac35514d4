// What a run's running stage has done, for `status`, `watch`, `start --wait` and `demo`: the iteration's own
// progress (its finished work plus the running pieces' heartbeat details: cli/running-work.ts), and the
// iteration's ETA from the last finished iteration's stage times.
import { iterationEtaSeconds, type StageProgress } from '../contracts/progress';
import { STAGES } from '../contracts/stages';
import type { RunStatus } from './loop-workflow';

/** The running stage's progress. Iterations started before live progress have none: then what the running
 *  activities' heartbeat details say — conversations of the running generate shards on top of the finished ones,
 *  the trainers' steps — and only in the stage those activities belong to. */
export function runProgress(s: RunStatus, now = Date.now()): StageProgress | undefined {
  const it = s.iteration;
  if (!it || s.workflowStatus !== 'RUNNING') return undefined;
  if (it.progress) return it.progress;
  if (it.stage === 'generate' && (it.shards.total || s.inFlight.length)) {
    const live = s.inFlight.reduce((a, f) => a + f.done, 0);
    return { stage: 'generate', unit: 'conversations', done: it.conversations.done + live, at: now };
  }
  if (it.stage === 'train' && s.training?.length)
    return {
      stage: 'train',
      unit: 'steps',
      done: s.training.reduce((a, t) => a + t.step, 0),
      trainers: s.training.map((t) => ({
        ...(t.role !== undefined ? { role: t.role } : {}),
        step: t.step,
        ...(t.loss !== undefined ? { loss: t.loss } : {}),
        at: now,
      })),
      at: now,
    };
  return undefined;
}

/** Seconds until the running iteration is done: its stage's ETA plus the later stages' times in the last finished
 *  iteration (absent when either is unknown). */
export function runIterationEta(s: RunStatus, p: StageProgress | undefined): number | undefined {
  if (!p || s.iteration?.stage !== p.stage) return undefined;
  return iterationEtaSeconds(STAGES, p.stage, p.etaSeconds, s.loop.done.at(-1)?.stages);
}
