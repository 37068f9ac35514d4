// A local OpenAI-compatible endpoint answering from the CoRal simulated policy, with latency, capacity, faults
// and request counting — the "endpoint that counts requests" of the durability tests.
import path from 'node:path';
import { startOpenAICompatibleServer, type FaultOptions, type RunningServer } from '../../activities/serving/openai-compatible-server';
import { createCoralSimulatedPolicy, loadCoralTasks } from '../../activities/recipes/coral';
import { CONFIGS } from './config';

/** @param opts.onAnswer called as the endpoint produces its n-th answer (from 1): how a durability test makes its
 *  fault land mid-generation by count, however fast or slow the machine
 *  @param opts.onTokens called with each answer's usage (prompt + completion tokens): what the calls cost */
export function startCountingEndpoint(
  opts: {
    latencyMs?: number;
    capacity?: number;
    faults?: FaultOptions;
    skill?: number;
    onAnswer?: (n: number) => void;
    onTokens?: (tokens: number) => void;
  } = {},
): Promise<RunningServer> {
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
  });
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
