// The dev server that `demo`, `eval` and `server --detach` leave running for the UI must outlive the command that
// started it. It used to write its log through a pipe to that command: once the command had exited, the server's
// next log line (the UI makes it write one whenever it reads a long history page) killed it with SIGPIPE.
import { afterAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isAlive, killProcessGroup } from '../../../activities/subprocess/process-group';
import { cli } from '../../helpers/cli';
import { tempStateDir } from '../../helpers/config';
import { freePorts } from '../../helpers/ui-server';
import { waitUntil } from '../../helpers/wait';

let pid: number | undefined;
afterAll(async () => {
  if (pid) await killProcessGroup(pid, 5000);
});

describe('collab-loop server --detach', () => {
  it('keeps serving after the starting command exited and the server has logged', async () => {
    const stateDir = tempStateDir();
    const { port, uiPort } = await freePorts();
    const r = await cli(['server', '--detach', '--state-dir', stateDir, '--port', String(port), '--ui-port', String(uiPort)]);
    expect(r.exitCode, r.all).toBe(0); // the starter is gone from here on
    pid = Number(/pid (\d+)/.exec(r.stdout)?.[1]);
    const log = path.join(stateDir, 'temporal-server.log');
    expect(r.stdout).toContain(log);

    const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
    const client = new Client({ connection });
    await client.workflow.start('anyWorkflow', { taskQueue: 'nobody-polls', workflowId: 'read-by-the-ui' });
    // What the UI does when a user opens a workflow: a history page larger than the server's threshold, which the
    // server logs at WARN ("GetHistory page size is larger than threshold").
    const history = `http://127.0.0.1:${uiPort}/api/v1/namespaces/default/workflows/read-by-the-ui/history?maximumPageSize=5000`;
    await waitUntil(async () => (await fetch(history)).status === 200, 30_000, 'the UI to serve the history page');
    await waitUntil(
      async () => /GetHistory page size is larger than threshold/.test(readFileSync(log, 'utf8')),
      30_000,
      'the server to log the warning',
    );

    // Still alive and serving, through the SDK and through the UI.
    expect(isAlive(pid)).toBe(true);
    expect((await client.workflow.getHandle('read-by-the-ui').describe()).status.name).toBe('RUNNING');
    expect((await fetch(`http://127.0.0.1:${uiPort}/api/v1/namespaces/default/workflows/read-by-the-ui`)).status).toBe(200);
    await connection.close();

    // A second start finds it instead of starting another.
    const again = await cli(['server', '--detach', '--state-dir', stateDir, '--port', String(port), '--ui-port', String(uiPort)]);
    expect(again.stdout).toContain(`already listening on 127.0.0.1:${port}`);
  });
});
