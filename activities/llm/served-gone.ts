// A model server the loop deployed (EndpointRef.served) is a subprocess of a gpu worker's deploy, and nothing but a
// deploy ever starts it again: once nothing listens on its port (connection refused) it is gone — reaped by the next
// gpu worker on its host (../subprocess/process-registry.ts reapOrphans) or stopped with its worker — and waiting
// out llm.outageToleranceSeconds (client.ts) would only hold the iteration's redeploy (workflows/redeploy.ts) back by
// that long. A short grace covers a server that briefly accepts nothing (a full listen backlog). Reset connections,
// timeouts and 5xx answers may come from a living, busy server: they stay outages to wait out.
import { SERVED_ENDPOINT_GONE } from '../../contracts/errors';
import type { EndpointRef } from '../../contracts/endpoint';
import { type ClassifiedError, toTemporalFailure } from './errors';

/** How long a served endpoint may refuse connections before it counts as gone. */
export const SERVED_GONE_GRACE_MS = 5_000;

/** One call's watch over refused connections: given each failure, the non-retryable `ServedEndpointGone` to throw
 *  once the endpoint is loop-served and has refused for the whole grace, else undefined (handled as before). */
export function servedGoneWatch(endpoint: EndpointRef, role: string | undefined, graceMs = SERVED_GONE_GRACE_MS) {
  let since: number | undefined;
  return (c: ClassifiedError) => {
    if (!endpoint.served || !c.refused) {
      since = undefined;
      return undefined;
    }
    since ??= Date.now();
    const waited = Date.now() - since;
    if (waited < graceMs) return undefined;
    const who = `model ${endpoint.model}${role ? `, role ${role}` : ''}`;
    return toTemporalFailure({
      retryable: false,
      type: SERVED_ENDPOINT_GONE,
      message: `${endpoint.baseUrl} (${who}): the model server the loop deployed is gone (connection refused for ${Math.round(waited / 1000)} s)`,
    });
  };
}
