// The routes outside the OpenAI API: GET /health, the readiness check of a launched server (../../server-launch.ts),
// and the counters of ../server-stats.ts for tests and benchmarks.
import { jsonRoute, type RouteHandler } from '../json-http';
import type { ServerStats } from '../server-stats';

export function statusRoutes(stats: () => ServerStats, resetStats: () => void): Record<string, RouteHandler> {
  return {
    'GET /health': jsonRoute(() => ({ status: 'ok' })),
    'GET /stats': jsonRoute(stats),
    'POST /stats/reset': jsonRoute(() => {
      resetStats();
      return { status: 'ok' };
    }),
  };
}
