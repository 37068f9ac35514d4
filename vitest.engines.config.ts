import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run test:engines`: the tests that run the real engines from their own venvs (bin/setup.js --engines), kept
// out of `npm test` because the venvs are GB-sized and each engine start takes a minute on this machine class.
export default defineConfig({
  test: { ...base.test, include: ['tests/engines/**/*.test.ts'], exclude: ['**/node_modules/**'] },
});
