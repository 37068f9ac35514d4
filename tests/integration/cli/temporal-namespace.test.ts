// A run in a non-default namespace, chosen as for the Temporal CLI: once by TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE
// (`eval`, in-process workers), once by a profile file (TEMPORAL_CONFIG_FILE + TEMPORAL_PROFILE) for a separate
// `collab-loop worker` and `start --wait`. The workflows must exist in that namespace and not in "default".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { loopWorkflowId } from '../../../contracts/messages';
import { cli, cliProcess } from '../../helpers/cli';
import { tempStateDir, testConfigRaw } from '../../helpers/config';
import { startDevServer } from '../../helpers/temporal';
import { freePorts } from '../../helpers/ui-server';
import { waitUntil } from '../../helpers/wait';
import { killProcessGroup } from '../../../activities/subprocess/process-group';

let env: TestWorkflowEnvironment;
let detachedPid: number | undefined;
beforeAll(async () => {
  env = await startDevServer({ namespaces: ['team-a', 'team-b'] });
});
afterAll(async () => {
  await env?.teardown();
  if (detachedPid) await killProcessGroup(detachedPid, 5000);
});

/** A one-iteration coral run on the simulator, saved as a YAML file for the CLI. */
function configFile(): { file: string; home: string } {
  const stateDir = tempStateDir();
  const file = path.join(stateDir, 'run.yaml');
  writeFileSync(file, stringify(testConfigRaw(stateDir, (raw) => Object.assign(raw, { iterations: 1 }))));
  // HOME without a Temporal profile file of the machine's user.
  return { file, home: stateDir };
}

const statusIn = async (namespace: string, runName: string) =>
  (await new Client({ connection: env.connection, namespace }).workflow.getHandle(loopWorkflowId(runName)).describe()).status.name;

async function expectOnlyIn(namespace: string, runName: string): Promise<void> {
  expect(await statusIn(namespace, runName)).toBe('COMPLETED');
  await expect(statusIn('default', runName)).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

describe('Temporal connection settings as the Temporal CLI reads them', () => {
  it('TEMPORAL_ADDRESS + TEMPORAL_NAMESPACE: eval, status and list work in that namespace only', async () => {
    const { file, home } = configFile();
    const vars = { HOME: home, XDG_CONFIG_HOME: home, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'team-a' };
    const r = await cli(['eval', file, '--name', 'ns-eval'], vars);
    expect(r.exitCode, r.all).toBe(0);
    await expectOnlyIn('team-a', 'ns-eval');

    const status = await cli(['status', 'ns-eval'], vars);
    expect(status.exitCode, status.all).toBe(0);
    const list = await cli(['list'], vars);
    expect(list.stdout).toMatch(/^ns-eval\t/m);
    // The same command against "default" does not see the run.
    const elsewhere = await cli(['status', 'ns-eval'], { ...vars, TEMPORAL_NAMESPACE: 'default' });
    expect(elsewhere.exitCode).toBe(2);
    expect(elsewhere.stderr.trim()).toBe('collab-loop: no run named "ns-eval" in namespace default (see collab-loop list)');
  });

  it('a profile file: `collab-loop worker` and `start --wait` use its address and namespace', async () => {
    const { file, home } = configFile();
    const profiles = path.join(home, 'temporal.toml');
    writeFileSync(
      profiles,
      `[profile.default]\naddress = "127.0.0.1:1"\n\n[profile.team]\naddress = "${env.address}"\nnamespace = "team-b"\n`,
    );
    const vars = { HOME: home, XDG_CONFIG_HOME: home, TEMPORAL_CONFIG_FILE: profiles, TEMPORAL_PROFILE: 'team' };
    const worker = cliProcess(['worker'], vars);
    let out = '';
    worker.all!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      await waitUntil(async () => out.includes('collab-loop worker polling'), 60_000, 'the worker startup line');
      expect(out).toContain(` on ${env.address} in namespace team-b (pid `);
      const r = await cli(['start', file, '--name', 'ns-profile', '--wait'], vars);
      expect(r.exitCode, `${r.all}\n--- worker:\n${out}`).toBe(0);
      await expectOnlyIn('team-b', 'ns-profile');
    } finally {
      worker.kill('SIGINT');
      await worker;
    }
  });

  it('a dev server started by collab-loop creates TEMPORAL_NAMESPACE; an absent namespace is one clear error', async () => {
    const { home } = configFile();
    const { port, uiPort } = await freePorts();
    const vars = { HOME: home, XDG_CONFIG_HOME: home, TEMPORAL_NAMESPACE: 'team-c' };
    const r = await cli(['server', '--detach', '--state-dir', home, '--port', String(port), '--ui-port', String(uiPort)], vars);
    expect(r.exitCode, r.all).toBe(0);
    detachedPid = Number(/pid (\d+)/.exec(r.stdout)?.[1]);

    const address = `127.0.0.1:${port}`;
    const inTeamC = await cli(['status', 'nothing'], { ...vars, TEMPORAL_ADDRESS: address });
    expect(inTeamC.stderr.trim()).toBe('collab-loop: no run named "nothing" in namespace team-c (see collab-loop list)');
    const absent = await cli(['status', 'nothing'], { ...vars, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'team-x' });
    expect(absent.exitCode).toBe(2);
    expect(absent.stderr.trim().split('\n')).toEqual([
      `collab-loop: namespace team-x does not exist on the Temporal server at ${address} (set by TEMPORAL_NAMESPACE or the profile's namespace); create it with \`temporal operator namespace create --namespace team-x\``,
    ]);
  });
});
