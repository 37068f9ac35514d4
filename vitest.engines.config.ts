import { defineConfig } from 'vitest/config';
import { TEMPORAL_SETUP, TIMEOUTS } from './vitest.config.ts';

// `npm run test:engines`: the tests that run the real engines from their own venvs (bin/setup.js --engines), kept
// out of `npm test` because the venvs are GB-sized and each engine start takes a minute on this machine class.
export default defineConfig({
  test: {
    name: 'engines',
    include: ['tests/engines/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    ...TIMEOUTS,
    setupFiles: TEMPORAL_SETUP,
    globalSetup: ['tests/global-tmp.ts'],
  },
});
