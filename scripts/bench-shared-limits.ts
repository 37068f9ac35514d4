// Two processes sharing one endpoint's maxConcurrency through Redis (llm.sharedLimits): each keeps 256 calls waiting
// through the project's client, the endpoint (this process) answers after a fixed latency and counts the requests in
// service at once. The ideal for the two together is maxConcurrency ÷ latency, counted in steady state (from the end
// of the first round of answers to the last answer, so the processes' start-up burst is left out); the target is
// ≥ 0.9 of it with the peak never above the limit. Beside it, the same two processes each with half the limit
// in-process (no Redis): what this machine's CPU allows the client at that rate. Figures are returned for
// `npm run bench` to print, never asserted.
import { echoPolicy, startOpenAICompatibleServer } from '../activities/serving/openai-compatible-server';
import { startClient, together } from './limits-clients';
import { startLocalRedis } from '../cli/stack/redis';

const LIMIT = 32;
const LATENCY_MS = 250;
const CALLS_PER_PROCESS = 800;
const IN_FLIGHT_PER_PROCESS = 256;

export interface LimitsRun {
  peak: number;
  callsPerSecond: number;
}

export interface SharedLimitsBench {
  limit: number;
  latencyMs: number;
  calls: number;
  waiters: number;
  ideal: number;
  shared: LimitsRun;
  /** Each process limited to LIMIT / 2 by itself. */
  split: LimitsRun;
}

async function twoProcesses(shared?: { redis: string }): Promise<LimitsRun & { calls: number }> {
  const server = await startOpenAICompatibleServer({ modelName: 'bench', policy: echoPolicy, latencyMs: LATENCY_MS });
  try {
    const job = {
      baseUrl: `${server.url}/v1`,
      model: 'bench',
      maxConcurrency: shared ? LIMIT : LIMIT / 2,
      sharedLimits: shared,
      calls: CALLS_PER_PROCESS,
      inFlight: IN_FLIGHT_PER_PROCESS,
      waitForGo: true,
    };
    const runs = await together([startClient({ ...job, label: 'a' }), startClient({ ...job, label: 'b' })]);
    // Steady state, after the first round: from the LIMIT-th answer to the last, LIMIT calls per latency is ideal.
    const at = runs.flatMap((r) => r.answeredAt).sort((x, y) => x - y);
    const seconds = (at[at.length - 1] - at[LIMIT - 1]) / 1000;
    return { calls: at.length, peak: server.stats().maxInFlight, callsPerSecond: (at.length - LIMIT) / seconds };
  } finally {
    await server.close();
  }
}

export async function benchSharedLimits(): Promise<SharedLimitsBench> {
  const redis = await startLocalRedis();
  try {
    const shared = await twoProcesses({ redis: redis.url });
    const split = await twoProcesses();
    return {
      limit: LIMIT,
      latencyMs: LATENCY_MS,
      calls: shared.calls,
      waiters: 2 * IN_FLIGHT_PER_PROCESS,
      ideal: LIMIT / (LATENCY_MS / 1000),
      shared,
      split,
    };
  } finally {
    await redis.stop();
  }
}
