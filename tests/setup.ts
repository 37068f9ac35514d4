// Per test file, in the tiers that run workers. Quiet Temporal's worker-state INFO lines in test output; warnings and
// errors still show. A file's environment variables end with it: the integration and e2e tiers' files share a process
// (vitest.config.ts, isolate: false), and one file's TEMPORAL_NAMESPACE (tests/helpers/temporal.ts) must not point
// the next file's CLI at a namespace of the wrong server. The request caches a file opened are closed after it (their
// index files and journals), so a test worker does not collect one open index per run of the suite.
import { afterAll } from 'vitest';
import { closeRequestCaches } from '../activities/llm/opened-caches';
import { installWorkerLogging } from '../workers/logging';

installWorkerLogging('WARN');

const env = { ...process.env };
afterAll(async () => {
  await closeRequestCaches();
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
});
