// Activity factory: every side effect of the project, wrapped so that user mistakes (a bad task file, a bad
// template) become one non-retryable failure with a clear message instead of a retry storm of stack traces; and every
// activity heartbeats while it runs (heartbeat.ts); and every activity reads its input's config in the current format.
import { ApplicationFailure } from '@temporalio/activity';
import { keepAlive } from './heartbeat';
import { USER_INPUT_ERRORS } from '../contracts/errors';
import { byQueue, type ActivitiesByQueue, type ActivitySignatures, type ConfigRef } from '../contracts/activities';
import { upgradeConfig } from '../configs/upgrade';
import { buildScorerData } from './stages/build-scorer-data';
import { buildTrainingData } from './stages/build-training-data';
import { deployCheckpoint } from './stages/deploy-checkpoint';
import { evaluateIteration } from './stages/evaluate-iteration';
import { configOf, keepConfig } from './stages/keep-config';
import { planIteration, planShards } from './stages/plan-iteration';
import { runShard } from './stages/run-shard';
import { scoreShard } from './stages/score-shard';
import { serveScorers } from './stages/serve-scorers';
import { trackIteration } from './stages/track-iteration';
import { trainCheckpoint } from './stages/train-checkpoint';
import { undeployCheckpoint } from './stages/undeploy-checkpoint';

/** Errors caused by inputs the user controls: retrying cannot fix them. */
const USER_ERRORS = new Set<string>(USER_INPUT_ERRORS);

function userErrorsAreFinal<A extends unknown[], R>(fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (err instanceof Error && USER_ERRORS.has(err.name)) throw ApplicationFailure.nonRetryable(err.message, err.name);
      throw err;
    }
  };
}

/** The input's `config` is the one its run started with, as the workflow history recorded it (or, by reference, as
 *  keepConfig stored it): perhaps written by earlier code, so it is upgraded here, once, for every activity
 *  (configs/upgrade.ts). */
function currentConfig<A extends unknown[], R>(fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
  return async (...args: A) => {
    const [input, ...rest] = args;
    if (!input || typeof input !== 'object') return fn(...args);
    if ('configRef' in input) {
      const { configRef, ...others } = input as { configRef: ConfigRef };
      return fn(...([{ ...others, config: upgradeConfig(await configOf(configRef)) }, ...rest] as A));
    }
    if (!('config' in input)) return fn(...args);
    return fn(...([{ ...input, config: upgradeConfig(input.config) }, ...rest] as A));
  };
}

export interface ActivityDeps {
  /** Wraps each activity (tests inject faults here). */
  wrap?: <A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>) => (...a: A) => Promise<R>;
}

/** Each queue class's activities (contracts/activities.ts QUEUE_ACTIVITIES), for its workers to register. An
 *  activity on two queues is the same wrapped function on both. */
export function createActivities(deps: ActivityDeps = {}): ActivitiesByQueue {
  const wrap = deps.wrap ?? ((_n, f) => f);
  const acts: ActivitySignatures = {
    deployCheckpoint,
    undeployCheckpoint,
    keepConfig,
    planShards,
    planIteration,
    runShard,
    scoreShard,
    evaluateIteration,
    buildScorerData,
    serveScorers,
    buildTrainingData,
    trainCheckpoint,
    trackIteration,
  };
  const wrapped = Object.fromEntries(
    Object.entries(acts).map(([name, fn]) => [
      name,
      wrap(name, keepAlive(userErrorsAreFinal(currentConfig(fn as (...a: unknown[]) => Promise<unknown>)))),
    ]),
  ) as unknown as ActivitySignatures;
  return byQueue(wrapped);
}
