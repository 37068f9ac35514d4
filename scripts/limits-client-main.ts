// One process sending calls to one endpoint through the project's client (createChat: cache, limiter, retries), as
// a worker's shards do: the processes of the shared-limits tests and of `bench shared-limits`.
// argv[2]: JSON ClientJob (limits-clients.ts starts these processes).
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { requestCacheFor } from '../activities/llm/cache';
import { createChat } from '../activities/llm/client';
import { newUsageCounter } from '../activities/llm/usage';
import { closeSharedLimits } from '../activities/llm/shared-limiter';
import { llmSchema } from '../configs/schema';
import type { ClientJob } from './limits-clients';
import { closeRequestCaches, exitClosingCaches } from '../activities/llm/opened-caches';

async function main(job: ClientJob): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shared-limits-client-'));
  const chat = createChat({
    endpoint: { ...job, cacheId: job.model },
    cache: requestCacheFor({ stateDir: dir }),
    llm: llmSchema.parse({ requestTimeoutSeconds: 3600, callRetries: 2, maxRetryDelaySeconds: 1, sharedLimits: job.sharedLimits }),
    usage: newUsageCounter(),
  });
  console.log('ready');
  if (job.waitForGo) await once(process.stdin, 'data');
  const t0 = performance.now();
  const answeredAt: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < job.calls) {
      const i = next++;
      const text = `${job.label} call ${i} `;
      await chat({
        messages: [{ role: 'user', content: text.padEnd(job.promptChars ?? text.length, 'x') }],
        decoding: { temperature: 0, maxTokens: job.maxTokens ?? 8 },
        sampleKey: `${job.label}-${i}`,
      });
      answeredAt.push(Date.now());
    }
  };
  await Promise.all(Array.from({ length: job.inFlight }, lane));
  console.log(JSON.stringify({ calls: job.calls, seconds: (performance.now() - t0) / 1000, answeredAt }));
  closeSharedLimits();
  await closeRequestCaches();
  rmSync(dir, { recursive: true, force: true });
}

main(JSON.parse(process.argv[2]) as ClientJob).then(
  () => exitClosingCaches(0),
  (err: Error) => {
    console.error(err.message);
    return exitClosingCaches(1);
  },
);
