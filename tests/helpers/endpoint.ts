// A local OpenAI-compatible endpoint answering from the CoRal simulated policy, with latency, capacity, faults
// and request counting — the "endpoint that counts requests" of the durability tests.
import path from 'node:path';
import { startOpenAICompatibleServer, type FaultOptions, type RunningServer } from '../../activities/serving/openai-compatible-server';
import { createCoralSimulatedPolicy, loadCoralTasks } from '../../activities/recipes/coral';
import { CONFIGS } from './config';

/** `onAnswer` is called as each answer is produced: tests act on a run (kill its worker, pause it) by count. */
export function startCountingEndpoint(
  opts: { latencyMs?: number; capacity?: number; faults?: FaultOptions; skill?: number; onAnswer?: () => void } = {},
): Promise<RunningServer> {
  const tasks = loadCoralTasks(path.join(CONFIGS, 'tasks/coral-demo/mmlu_pro.jsonl'), 'mmlu_pro');
  const policy = createCoralSimulatedPolicy({ tasks, skill: opts.skill ?? 0.6 });
  return startOpenAICompatibleServer({
    modelName: 'counted-model',
    policy: (req) => {
      opts.onAnswer?.();
      return policy(req);
    },
    latencyMs: opts.latencyMs,
    capacity: opts.capacity,
    faults: opts.faults,
  });
}

export const externalDeploy = (server: RunningServer, maxConcurrency = 16) => ({
  kind: 'external',
  endpoint: { baseUrl: `${server.url}/v1`, model: 'counted-model', maxConcurrency },
});
