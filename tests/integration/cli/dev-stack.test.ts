// `collab-loop dev-stack`: the real Temporal dev server, SeaweedFS and redis-server, started detached by the CLI
// on free ports; another host's settings are what it prints (the exports, the credentials file, the config
// sections). They must work, `--stop` must leave no process and no bound port, and a restart keeps the bucket's data.
import { afterAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Connection } from '@temporalio/client';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { stablePort } from '../../../activities/serving/free-port';
import { groupAlive, readPidFile } from '../../../activities/subprocess/process-group';
import { portOpen } from '../../../cli/dev-server';
import { stopDevStack } from '../../../cli/dev-stack';
import { cli } from '../../helpers/cli';

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-dev-stack-'));
afterAll(() => stopDevStack(stateDir)); // only does something when a test failed half-way

/** Redis's answers to the commands, over a plain socket (RESP inline commands). */
function redisSays(port: number, commands: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = net.connect(port, '127.0.0.1', () => s.write(commands.map((c) => `${c}\r\n`).join('')));
    s.on('data', (d) => {
      out += d.toString();
      if (out.split('\r\n').length > commands.length) {
        s.destroy();
        resolve(out.trim());
      }
    });
    s.once('error', reject);
  });
}

interface Printed {
  env: Record<string, string>;
  config: { storage: { bucket: string; endpoint: string; region: string }; llm: { sharedLimits: { redis: string } } };
  credentialsFile: string;
}

/** What a user copies from the output: the export lines, the sourced credentials file and the config sections. */
function readPrinted(stdout: string): Printed {
  const env: Record<string, string> = {};
  for (const m of stdout.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  const credentialsFile = /^\. (.+)$/m.exec(stdout)![1];
  for (const m of readFileSync(credentialsFile, 'utf8').matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  return { env, config: parse(stdout.split('# in the run config:\n')[1]), credentialsFile };
}

const s3For = (p: Printed) =>
  new S3Client({
    endpoint: p.config.storage.endpoint,
    region: p.config.storage.region,
    forcePathStyle: true,
    credentials: { accessKeyId: p.env.AWS_ACCESS_KEY_ID, secretAccessKey: p.env.AWS_SECRET_ACCESS_KEY },
  });

async function freeDistinctPorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) ports.push(await stablePort('127.0.0.1', ports));
  return ports;
}

describe('collab-loop dev-stack', () => {
  it('a bad flag is one line, exit 2', async () => {
    for (const [args, line] of [
      [['--s3-port', 'abc'], 'collab-loop: "abc" is not a port number'],
      [['--bucket', 'Not_A_Bucket'], 'collab-loop: --bucket "Not_A_Bucket" is not a bucket name (3-63 of a-z, 0-9, "." and "-")'],
      [['--stop', '--detach'], 'collab-loop: --stop takes only --state-dir (not --detach)'],
    ]) {
      const r = await cli(['dev-stack', '--state-dir', stateDir, ...args]);
      expect(r.exitCode, r.all).toBe(2);
      expect(r.all!.trim()).toBe(line);
    }
  });

  it('starts Temporal, SeaweedFS and Redis that other hosts reach with what it prints; --stop leaves nothing', async () => {
    const [temporal, ui, s3, redis] = await freeDistinctPorts(4);
    const flags = ['--state-dir', stateDir, '--temporal-port', `${temporal}`, '--ui-port', `${ui}`, '--s3-port', `${s3}`];
    // A user whose workers use their own namespace: the stack's server must have it.
    const start = () => cli(['dev-stack', ...flags, '--redis-port', `${redis}`, '--detach'], { TEMPORAL_NAMESPACE: 'rehearsal' });
    const r = await start();
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stderr).toBe(''); // no AWS SDK NodeVersionSupportWarning either
    const printed = readPrinted(r.stdout);
    expect(statSync(printed.credentialsFile).mode & 0o777).toBe(0o600);
    expect(printed.env.TEMPORAL_ADDRESS).toBe(`127.0.0.1:${temporal}`);
    expect(printed.env.TEMPORAL_NAMESPACE).toBe('rehearsal');
    expect(printed.config.llm.sharedLimits.redis).toBe(`redis://127.0.0.1:${redis}/0`);

    // S3: the bucket exists and takes a write with the printed identity.
    const client = s3For(printed);
    const Bucket = printed.config.storage.bucket;
    await client.send(new PutObjectCommand({ Bucket, Key: 'rehearsal/hello.txt', Body: 'from another host' }));
    const got = await client.send(new GetObjectCommand({ Bucket, Key: 'rehearsal/hello.txt' }));
    expect(await got.Body!.transformToString()).toBe('from another host');
    client.destroy();

    // Redis: needs the password from the credentials file.
    expect(await redisSays(redis, ['PING'])).toMatch(/^-NOAUTH/);
    expect(await redisSays(redis, [`AUTH ${printed.env.COLLAB_LOOP_REDIS_PASSWORD}`, 'PING'])).toBe('+OK\r\n+PONG');

    // Temporal: the frontend answers at TEMPORAL_ADDRESS and has the printed TEMPORAL_NAMESPACE.
    const conn = await Connection.connect({ address: printed.env.TEMPORAL_ADDRESS });
    const { namespaces } = await conn.workflowService.listNamespaces({});
    expect(namespaces.map((n) => n.namespaceInfo?.name)).toEqual(expect.arrayContaining(['default', 'rehearsal']));
    await conn.close();

    const again = await start();
    expect(again.exitCode).toBe(2);
    expect(again.stderr.trim()).toMatch(
      /^collab-loop: a dev stack is already running under .* \(temporal, seaweedfs, redis\); stop it with/,
    );

    const pids = ['temporal', 'seaweedfs', 'redis'].map((s) => readPidFile(path.join(stateDir, 'pids', `${s}.pid`))!.pid);
    const weedPorts: number[] = JSON.parse(readFileSync(path.join(stateDir, 'dev-stack.json'), 'utf8')).weedPorts;
    const stop = await cli(['dev-stack', '--stop', '--state-dir', stateDir]);
    expect(stop.exitCode, stop.all).toBe(0);
    expect(stop.stdout.trim()).toBe('stopped temporal, seaweedfs, redis');
    for (const pid of pids) expect(groupAlive(pid), `process group ${pid}`).toBe(false);
    for (const p of [temporal, ui, s3, redis, ...weedPorts]) expect(await portOpen(p), `port ${p}`).toBe(false);

    // A restart on the same state dir: same credentials, the object is still in the bucket.
    const restarted = await start();
    expect(restarted.exitCode, restarted.all).toBe(0);
    const after = readPrinted(restarted.stdout);
    expect(after.env.AWS_SECRET_ACCESS_KEY).toBe(printed.env.AWS_SECRET_ACCESS_KEY);
    const client2 = s3For(after);
    const kept = await client2.send(new GetObjectCommand({ Bucket, Key: 'rehearsal/hello.txt' }));
    expect(await kept.Body!.transformToString()).toBe('from another host');
    client2.destroy();
    expect((await cli(['dev-stack', '--stop', '--state-dir', stateDir])).stdout.trim()).toBe('stopped temporal, seaweedfs, redis');
    for (const p of [temporal, ui, s3, redis]) expect(await portOpen(p), `port ${p}`).toBe(false);
  });
});
