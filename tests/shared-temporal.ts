// Temporal dev servers shared by a tier's test files (vitest globalSetup), instead of one per file: a dev server start
// costs seconds and a bundle of CPU on a 2-core machine. One server per pool slot (VITEST_POOL_ID, 1..maxWorkers), so
// that files running at the same time never share a server's store, as before. Each file claims a namespace of its
// own (tests/helpers/temporal.ts), created at launch so that the server registers the search attributes in it (a
// namespace registered later has none): a workflow or worker one file leaves behind never meets the next file's.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { launchDevServer } from './helpers/temporal';

/** More than the files of a tier that start a server and land on one slot; a file past the last one gets a server of
 *  its own. Each namespace costs the server a few system pollers, so not many more. */
const NAMESPACES = 12;

export interface SharedTemporal {
  /** The server of pool slot i + 1. */
  addresses: string[];
  namespaces: string[];
  /** A file claims namespace n of slot i by creating `claims/i-n` exclusively. */
  claims: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedTemporal?: SharedTemporal;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `test-file-${i + 1}`);
  const slots = Number(project.globalConfig.maxWorkers) || 1;
  const envs = await Promise.all(Array.from({ length: slots }, () => launchDevServer(namespaces)));
  // Under the run's TMPDIR (tests/global-tmp.ts runs first): removed with it.
  const claims = mkdtempSync(path.join(os.tmpdir(), 'temporal-namespace-claims-'));
  project.provide('sharedTemporal', { addresses: envs.map((e) => e.address), namespaces, claims });
  return async () => {
    await Promise.all(envs.map((e) => e.teardown()));
  };
}
