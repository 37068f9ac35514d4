// A model server the loop deployed can be lost mid-stage: its gpu worker died, or restarted without --keep-servers,
// and the next gpu worker on that host reaped it (activities/subprocess/process-registry.ts reapOrphans). Calls to
// it then fail as ServedEndpointGone within seconds (activities/llm/served-gone.ts). Rather than showing that as
// "needs attention", the iteration deploys again — as after a pause (iteration.ts releaseServers) — and reruns the
// stage: finished shards are kept and cached answers are not paid again. No undeploy first: the deploy activity
// replaces a dead server and reuses a living one (activities/serving/checkpoint-servers.ts startServer), and the
// undeploy at the end stops whatever runs then. A server that keeps dying goes to "needs attention" after
// MAX_REDEPLOYS, where the user's retry deploys again too.
import { ApplicationFailure, log, patched } from '@temporalio/workflow';
import { PATCHES } from './patches';
import { SERVED_ENDPOINT_GONE } from '../contracts/errors';
import type { IterationState } from './iteration-state';
import { describeFailure } from './stage-failure';

/** Redeploys of one iteration before a lost server needs attention (counted again after the user's retry). */
export const MAX_REDEPLOYS = 3;

/** After a stage that calls the served models failed: 'redeploy' when it is to run again at once (its servers are
 *  marked for a new deploy), else the failure to show the user. */
export function afterLostServers(s: IterationState, err: unknown): 'redeploy' | { failure: unknown } {
  const { type, message } = describeFailure(err);
  if (type !== SERVED_ENDPOINT_GONE || !s.deployed || !patched(PATCHES.redeployLostServers.id)) return { failure: err };
  s.released = true;
  s.redeploys = (s.redeploys ?? 0) + 1;
  if (s.redeploys <= MAX_REDEPLOYS) {
    log.warn('a served model server is gone: deploying again', { redeploy: s.redeploys, error: message });
    return 'redeploy';
  }
  s.redeploys = 0; // the user's retry gets as many again, and deploys first (released)
  return {
    failure: ApplicationFailure.create({
      type: SERVED_ENDPOINT_GONE,
      nonRetryable: true,
      message: `${message}; deployed again ${MAX_REDEPLOYS} times in this iteration and lost each time (see the server logs in the gpu host's state dir, logs/); a retry deploys again`,
    }),
  };
}
