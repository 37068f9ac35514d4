// CPU per LLM call: the project's client path (createChat: request-cache key and durable write, the openai SDK,
// the per-endpoint limiter, usage accounting) against a plain client (fetch + a semaphore), both against one
// endpoint that is not the bottleneck — the dry-run server in its own process, 100 ms per request, 512 in flight.
// Both sides run in this process one after the other, so `process.cpuUsage()` over each side is that side's CPU.
// Issue 12 item 9 asks the worker to reach ≤ 1.3× the plain client's CPU per call; this prints where it stands.
// Figures are returned for `npm run bench` to print, never asserted.
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requestCacheFor } from '../activities/llm/cache';
import { createChat, newUsageCounter } from '../activities/llm/client';
import { nodeScriptArgv, PROJECT_ROOT } from '../activities/subprocess/node-script';

const IN_FLIGHT = 512;
const LATENCY_MS = 100;
const CALLS = 5120;

export interface LlmCpuBench {
  calls: number;
  inFlight: number;
  plain: { cpuMsPerCall: number; callsPerSecond: number };
  project: { cpuMsPerCall: number; callsPerSecond: number };
}

async function measure(run: () => Promise<void>): Promise<{ cpuMsPerCall: number; callsPerSecond: number }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const wall = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { cpuMsPerCall: (used.user + used.system) / 1000 / CALLS, callsPerSecond: CALLS / (wall / 1000) };
}

/** `CALLS` calls, at most IN_FLIGHT at once. */
async function saturate(call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < CALLS) await call(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

export async function benchLlmCpu(): Promise<LlmCpuBench> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-llm-cpu-'));
  const ready = path.join(dir, 'ready.json');
  const [cmd, args] = nodeScriptArgv('activities/serving/simulator-main.ts', [
    '--model',
    'bench',
    '--latency-ms',
    String(LATENCY_MS),
    '--ready-file',
    ready,
  ]);
  const server = execa(cmd, args, { cwd: PROJECT_ROOT, reject: false, stdio: 'ignore' });
  try {
    const deadline = Date.now() + 30_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline) {
      try {
        url = (JSON.parse(readFileSync(ready, 'utf8')) as { url: string }).url;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    if (!url) throw new Error('bench llm-cpu: the endpoint did not start');
    const body = (i: number, side: string) =>
      JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: `${side} question ${i}` }], max_tokens: 16, temperature: 0 });

    const plain = await measure(() =>
      saturate(async (i) => {
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(i, 'plain'),
        });
        await res.json();
      }),
    );

    const chat = createChat({
      endpoint: { baseUrl: `${url}/v1`, model: 'bench', cacheId: 'bench', maxConcurrency: IN_FLIGHT },
      cache: requestCacheFor({ stateDir: dir }),
      llm: { requestTimeoutSeconds: 60, callRetries: 2, maxRetryDelaySeconds: 1 },
      usage: newUsageCounter(),
    });
    const project = await measure(() =>
      saturate((i) =>
        chat({
          messages: [{ role: 'user', content: `project question ${i}` }],
          decoding: { temperature: 0, maxTokens: 16 },
          sampleKey: `s${i}`,
        }),
      ),
    );
    return { calls: CALLS, inFlight: IN_FLIGHT, plain, project };
  } finally {
    server.kill('SIGTERM');
    await server;
    rmSync(dir, { recursive: true, force: true });
  }
}
