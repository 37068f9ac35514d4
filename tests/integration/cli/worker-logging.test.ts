// `collab-loop worker` prints its own startup line and the SDK's warnings — not ~20 lines of webpack statistics
// and worker state changes — unless asked for them with --log-level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { cliProcess } from '../../helpers/cli';
import { startDevServer } from '../../helpers/temporal';
import { waitUntil } from '../../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer({ own: true }); // the startup line it reads is the one of the "default" namespace
});
afterAll(async () => {
  await env?.teardown();
});

/** Starts a worker, waits for its startup line, stops it with SIGINT (as Ctrl-C does) and returns all it printed. */
async function workerOutput(extra: string[]): Promise<string> {
  const p = cliProcess(['worker', '--queues', 'workflows,cpu', ...extra], { TEMPORAL_ADDRESS: env.address });
  let out = '';
  p.all!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await waitUntil(async () => out.includes('collab-loop worker polling'), 60_000, 'the worker startup line');
  p.kill('SIGINT');
  const r = await p;
  expect(r.exitCode, out).toBe(0);
  return out;
}

describe('worker logging', () => {
  it('by default prints the startup line and nothing below WARN', async () => {
    const out = await workerOutput([]);
    expect(out).toMatch(
      new RegExp(`^collab-loop worker polling workflows, cpu on ${env.address.replace(/\./g, '\\.')} \\(pid \\d+\\)$`, 'm'),
    );
    expect(out).not.toMatch(/webpack|modules by path|\[INFO\]|\[DEBUG\]/);
  });

  it('--log-level debug adds how the workflow bundle was made and the state changes', async () => {
    const out = await workerOutput(['--log-level', 'debug']);
    // webpack's statistics, or the bundle kept from an earlier start of the same sources (workers/workflow-bundle.ts).
    expect(out).toMatch(
      /\[DEBUG\] (asset workflow-bundle-.*webpack [\d.]+ compiled successfully|workflow bundle reused: \S+ \(\d+ source files unchanged)/s,
    );
    expect(out).toMatch(/\[INFO\] Worker state changed/);
  });

  it('an unknown level is one clear error', async () => {
    const p = cliProcess(['worker', '--log-level', 'loud'], { TEMPORAL_ADDRESS: env.address });
    const r = await p;
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/--log-level <level>' argument 'loud' is invalid\. Allowed choices are trace, debug, info, warn, error/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a --server-outage-tolerance that is not whole seconds is one clear error', async () => {
    const r = await cliProcess(['worker', '--server-outage-tolerance', '10m'], { TEMPORAL_ADDRESS: env.address });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('--server-outage-tolerance: "10m" is not a whole number of seconds');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a --checkpoint-cache-gb that is not a number of GB is one clear error', async () => {
    const r = await cliProcess(['worker', '--checkpoint-cache-gb', '50G'], { TEMPORAL_ADDRESS: env.address });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--checkpoint-cache-gb: "50G" is not a number of GB');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
