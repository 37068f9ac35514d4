// A real Temporal dev server for a test file whose CLI subprocesses talk to it as a user's shell would.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll } from 'vitest';
import { tempStateDir } from './config';
import { startDevServer } from './temporal';

/** Starts the server before the file's tests and stops it after; `cliEnv()`: the CLI's environment for it, with a
 *  HOME that has no Temporal profile file of the machine's user. */
export function cliDevServer(): { env: () => TestWorkflowEnvironment; cliEnv: () => Record<string, string> } {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await startDevServer();
  });
  afterAll(async () => {
    await env?.teardown();
  });
  const home = tempStateDir();
  return { env: () => env, cliEnv: () => ({ TEMPORAL_ADDRESS: env.address, HOME: home, XDG_CONFIG_HOME: home }) };
}
