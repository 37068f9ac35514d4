import { defineConfig } from 'vitest/config';

// Temporal's native bridge needs process isolation (forks); workflow tests talk to real dev servers and real
// subprocesses, hence the generous timeouts. Two workers: this machine class has two cores.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    include: ['tests/**/*.test.ts'],
    // The real engines (GB-sized venvs, minutes per server start): `npm run test:engines` (vitest.engines.config.ts).
    exclude: ['tests/engines/**', '**/node_modules/**'],
    setupFiles: ['tests/setup.ts'],
    globalSetup: ['tests/global-tmp.ts'],
  },
});
