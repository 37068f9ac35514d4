// A local OpenAI-compatible endpoint answering from the CoRal simulated policy, with latency, capacity, faults
// and request counting — the "endpoint that counts requests" of the durability tests.
import path from 'node:path';
import {
  startOpenAICompatibleServer,
  type FaultOptions,
  type RunningServer,
  type ServerStats,
} from '../../activities/serving/openai-compatible-server';
import { startPassThroughProxy } from './loopback-server';
import { createCoralSimulatedPolicy, loadCoralTasks } from '../../activities/recipes/coral';
import { CONFIGS } from './config';

/** @param opts.onAnswer called as the endpoint produces its n-th answer (from 1): how a durability test makes its
 *  fault land mid-generation by count, however fast or slow the machine
 *  @param opts.onTokens called with each answer's usage (prompt + completion tokens): what the calls cost */
export function startCountingEndpoint(opts: CountingEndpointOptions = {}): Promise<RunningServer> {
  const tasks = loadCoralTasks(path.join(CONFIGS, 'tasks/coral-demo/mmlu_pro.jsonl'), 'mmlu_pro');
  const policy = createCoralSimulatedPolicy({ tasks, skill: opts.skill ?? 0.6 });
  let answers = 0;
  return startOpenAICompatibleServer({
    modelName: 'counted-model',
    policy:
      opts.onAnswer || opts.onTokens
        ? (req) => {
            opts.onAnswer?.(++answers);
            const reply = policy(req);
            opts.onTokens?.(reply.completionTokens.reduce((a, b) => a + b, reply.promptTokens));
            return reply;
          }
        : policy,
    latencyMs: opts.latencyMs,
    capacity: opts.capacity,
    faults: opts.faults,
    port: opts.port,
  });
}

export interface CountingEndpointOptions {
  latencyMs?: number;
  capacity?: number;
  faults?: FaultOptions;
  skill?: number;
  onAnswer?: (n: number) => void;
  onTokens?: (tokens: number) => void;
  port?: number;
}

export interface RestartableEndpoint extends RunningServer {
  /** Drops every connection and stops listening, as a killed model server does. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

/** The counting endpoint as a model server that can be killed and restarted on its port (a vLLM or proxy restart).
 *  Its stats add up over the restarts: `duplicates` counts a key answered twice across them too. */
export async function startRestartableEndpoint(opts: CountingEndpointOptions = {}): Promise<RestartableEndpoint> {
  let current: RunningServer | undefined = await startCountingEndpoint(opts);
  const { url, port } = current;
  const before: ServerStats[] = [];
  const stop = async () => {
    const s = current;
    current = undefined;
    if (!s) return;
    await s.close();
    before.push(s.stats()); // after close: answers finished while it closed are counted
  };
  const stats = (): ServerStats => {
    const all = current ? [...before, current.stats()] : before;
    const byKey: Record<string, number> = {};
    for (const s of all) for (const [k, n] of Object.entries(s.byKey)) byKey[k] = (byKey[k] ?? 0) + n;
    const sum = (f: (s: ServerStats) => number) => all.reduce((a, s) => a + f(s), 0);
    return {
      received: sum((s) => s.received),
      completed: sum((s) => s.completed),
      faulted: sum((s) => s.faulted),
      inFlight: current?.stats().inFlight ?? 0,
      maxInFlight: Math.max(0, ...all.map((s) => s.maxInFlight)),
      byKey,
      duplicates: Object.values(byKey).reduce((a, n) => a + n - 1, 0),
    };
  };
  return {
    url,
    port,
    stats,
    resetStats: () => {
      before.length = 0;
      current?.resetStats();
    },
    stop,
    start: async () => {
      current ??= await startCountingEndpoint({ ...opts, port });
    },
    close: stop,
  };
}

export const externalDeploy = (server: RunningServer, maxConcurrency = 16) => ({
  kind: 'external',
  endpoint: { baseUrl: `${server.url}/v1`, model: 'counted-model', maxConcurrency },
});

/** An evaluation-only run of 32 conversations (16 questions × 2 samples) against the counting endpoint, at most
 *  `maxConcurrency` requests outstanding: the run the durability tests interrupt. */
export function evaluateOn(server: RunningServer, c: Record<string, any>, maxConcurrency = 8): void {
  c.iterations = 1;
  delete c.trainer;
  delete c.recipe.trainTasks;
  c.recipe.limit = 16;
  c.recipe.evalSamples = 2;
  c.server = externalDeploy(server, maxConcurrency);
}

/** A proxy in front of `upstream` that answers a request with the status `gateway()` gives (a proxy whose model
 *  server restarts or loads: 502/503/504) and passes it through when that gives undefined. */
export const startGatewayProxy = (upstream: { url: string }, gateway: () => number | undefined) =>
  startPassThroughProxy(upstream.url, gateway);
