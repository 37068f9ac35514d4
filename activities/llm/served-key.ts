// The API key of the model servers a run deploys. It never enters a workflow history: the endpoint reference carries
// only `apiKeyRef` (the run's name), and every host derives the key from it with the cluster's shared secret
// (COLLAB_LOOP_SERVE_SECRET) as HMAC-SHA256(secret, "served-model-key:" + ref) — the deploying host to start the
// server with it, the llm hosts to send it. A host without the secret serves without a key (loopback only: a worker
// with --serve-host refuses to start without it, cli/commands/worker.ts).
import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { SERVE_SECRET_ENV } from '../host-env';

/** The environment variable a loop-started server finds its key in (the simulator's --api-key-env; `command` servers). */
export const SERVED_KEY_ENV = 'COLLAB_LOOP_SERVED_KEY';

/** The reference the endpoints of `runName`'s servers carry, when this host serves with keys. */
export const servedKeyRef = (runName: string): string | undefined => (process.env[SERVE_SECRET_ENV] ? runName : undefined);

/** The key for a reference, derived with this host's secret. */
export function servedKey(ref: string, where: string): string {
  const secret = process.env[SERVE_SECRET_ENV];
  if (!secret)
    throw ApplicationFailure.nonRetryable(
      `${where}: the endpoint requires the run's key, but ${SERVE_SECRET_ENV} is not set on this worker (set the same value on every host)`,
      'LlmAuthentication',
    );
  return `cl-${createHmac('sha256', secret).update(`served-model-key:${ref}`).digest('hex')}`;
}
