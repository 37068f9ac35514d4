import { defineConfig } from 'vitest/config';

// The tiers (`npm test` runs them all; `npm run test:<tier>` one of them):
// - unit: pure code, no servers, no subprocesses, no network (the edit loop);
// - workflows: workflow control flow against mocked activities;
// - integration: one component at a time with its real servers and subprocesses;
// - e2e: whole loops, durability under faults, several hosts.
// The real engines (GB-sized venvs, minutes per server start): `npm run test:engines` (vitest.engines.config.ts).
// Temporal's native bridge needs process isolation (forks); the tests that talk to real dev servers and real
// subprocesses get generous timeouts.
export const TIMEOUTS = { testTimeout: 180_000, hookTimeout: 120_000 };
/** Quiets Temporal's worker-state lines: for the tiers that run workers. */
export const TEMPORAL_SETUP = ['tests/setup.ts'];
/** The Temporal dev server a tier's files share, a namespace per file (tests/shared-temporal.ts). */
const SHARED_TEMPORAL = ['tests/shared-temporal.ts'];

const tier = (name: string, test: Record<string, unknown>) => ({
  test: { name, include: [`tests/${name}/**/*.test.ts`], pool: 'forks' as const, ...TIMEOUTS, ...test },
});

export default defineConfig({
  test: {
    // Three workers on this machine class's two cores: much of the suite waits (outages held for their length, a rate
    // limit's minute, slow simulated endpoints) and a third file fills that time (idle CPU 22 % → 11 %). What the load
    // may not break is a bound, not a margin: a killed worker re-pays at most maxConcurrency calls, because a call's
    // endpoint slot is held until its answer is in the request cache (activities/llm/client.ts attemptOnce).
    maxWorkers: 3,
    // One TMPDIR for the whole run, whichever tiers it runs.
    globalSetup: ['tests/global-tmp.ts'],
    projects: [
      // One module graph per worker instead of one per file: the pure tests share nothing but imports, and importing
      // took most of their time (53 files: 48 s instead of 221 s wall, measured at load 16-18 on 2 cores).
      tier('unit', { isolate: false }),
      tier('workflows', { setupFiles: TEMPORAL_SETUP, globalSetup: SHARED_TEMPORAL }),
      // The same for the files with servers and subprocesses: what one file sets that the next could meet is its
      // environment variables, and tests/setup.ts puts them back after each file. Importing and setting up every
      // file took 232 s + 150 s of test-process time over the suite, 58 s + 14 s with this (vitest's own figures).
      tier('integration', { setupFiles: TEMPORAL_SETUP, globalSetup: SHARED_TEMPORAL, isolate: false }),
      tier('e2e', { setupFiles: TEMPORAL_SETUP, globalSetup: SHARED_TEMPORAL, isolate: false }),
    ],
  },
});
