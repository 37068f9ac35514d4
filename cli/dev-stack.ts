// `collab-loop dev-stack`: what a multi-host rehearsal shares, on one machine — the Temporal dev server
// (cli/dev-server.ts), SeaweedFS with a bucket and one identity (cli/stack/seaweedfs.ts) and a Redis with a password
// (cli/stack/redis.ts) — each in its own process group with a pid file under the state dir, its data there too, so
// that `--stop` ends them from any shell and a restart on the same dir keeps runs, objects and budget ledgers.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { killProcessGroup, readPidFile, stillRunning, writePidFile } from '../activities/subprocess/process-group';
import { spawnLogged } from '../activities/subprocess/spawn-logged';
import { REDIS_PASSWORD_ENV } from '../activities/llm/shared-limits-config';
import { extraNamespaces, portOpen, startDevServer, waitForPort } from './dev-server';
import { REDIS_SERVER, redisArgs, untilRedisAnswers } from './stack/redis';
import { newS3Credentials, otherPorts, spawnWeed, untilWritable, weedSockets, writeIdentities } from './stack/seaweedfs';
import { DEFAULT_NAMESPACE, temporalTarget } from './temporal-config';
import { UserError } from './user-error';

export interface DevStackPorts {
  temporal: number;
  ui: number;
  s3: number;
  redis: number;
}

const PORT_FLAGS: Record<keyof DevStackPorts, string> = {
  temporal: '--temporal-port',
  ui: '--ui-port',
  s3: '--s3-port',
  redis: '--redis-port',
};
const SERVICES = ['temporal', 'seaweedfs', 'redis'] as const;
type Service = (typeof SERVICES)[number];
const REGION = 'us-east-1';

const where = (stateDir: string) => ({
  stack: path.join(stateDir, 'dev-stack.json'),
  credentials: path.join(stateDir, 'credentials.env'),
  pid: (s: Service) => path.join(stateDir, 'pids', `${s}.pid`),
  dir: (s: Service) => path.join(stateDir, s),
});

interface StackRecord {
  ports: DevStackPorts;
  /** SeaweedFS's master, volume, filer and gRPC ports: a restarted weed finds its volumes at the recorded ones. */
  weedPorts: number[];
  bucket: string;
}

/** S3 bucket naming rules (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html), simplified. */
export function checkBucketName(bucket: string): string {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new UserError(`--bucket "${bucket}" is not a bucket name (3-63 of a-z, 0-9, "." and "-")`);
  return bucket;
}

function readRecord(stateDir: string): StackRecord | undefined {
  const file = where(stateDir).stack;
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StackRecord) : undefined;
}

/** The services whose pid file names a process group still running. */
export function runningServices(stateDir: string): Service[] {
  return SERVICES.filter((s) => {
    const rec = readPidFile(where(stateDir).pid(s));
    return rec !== undefined && stillRunning(rec.pid, rec.start);
  });
}

/** The identity's key and the Redis password: made once, kept (mode 600) so every host's copy stays valid. */
function credentials(stateDir: string): Record<string, string> {
  const file = where(stateDir).credentials;
  if (existsSync(file))
    return Object.fromEntries(
      [...readFileSync(file, 'utf8').matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2]] as [string, string]),
    );
  const s3 = newS3Credentials();
  const vars = {
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    AWS_REGION: REGION,
    [REDIS_PASSWORD_ENV]: randomBytes(18).toString('hex'),
  };
  writeFileSync(
    file,
    `${Object.entries(vars)
      .map(([k, v]) => `export ${k}=${v}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  );
  return vars;
}

/** What the other hosts need: the environment (the secrets through the credentials file) and the config sections. */
export function stackSettings(stateDir: string, rec: StackRecord, namespace: string): string {
  const config = {
    storage: { kind: 's3', bucket: rec.bucket, endpoint: `http://127.0.0.1:${rec.ports.s3}`, region: REGION, forcePathStyle: true },
    llm: { sharedLimits: { redis: `redis://127.0.0.1:${rec.ports.redis}/0` } },
  };
  return [
    `# dev stack under ${stateDir}: Temporal UI http://localhost:${rec.ports.ui}`,
    `# on every host that runs workers or commands (${where(stateDir).credentials}: AWS_* and ${REDIS_PASSWORD_ENV}, mode 600):`,
    `export TEMPORAL_ADDRESS=127.0.0.1:${rec.ports.temporal}`,
    ...(namespace === DEFAULT_NAMESPACE ? [] : [`export TEMPORAL_NAMESPACE=${namespace}`]),
    `. ${where(stateDir).credentials}`,
    `# stop it: collab-loop dev-stack --stop --state-dir ${stateDir}`,
    '# in the run config:',
    stringifyYaml(config).trimEnd(),
  ].join('\n');
}

function spawnRedis(dir: string, port: number, password: string): ChildProcess {
  if (!existsSync(REDIS_SERVER))
    throw new Error(`${REDIS_SERVER} is not installed: run node bin/setup.js (installs Debian's redis-server)`);
  return spawnLogged(REDIS_SERVER, redisArgs({ port, dir, persist: true, password }), path.join(dir, 'redis.log'), { detached: true });
}

/** Starts the three services and waits until each takes work; on any failure, stops what it started. */
export async function startDevStack(o: {
  stateDir: string;
  ports: DevStackPorts;
  bucket: string;
  detach: boolean;
}): Promise<{ settings: string; children: ChildProcess[] }> {
  const stateDir = path.resolve(o.stateDir);
  const { namespace } = temporalTarget();
  const running = runningServices(stateDir);
  if (running.length)
    throw new UserError(
      `a dev stack is already running under ${stateDir} (${running.join(', ')}); stop it with: collab-loop dev-stack --stop --state-dir ${stateDir}`,
    );
  mkdirSync(path.join(stateDir, 'pids'), { recursive: true });
  for (const [k, p] of Object.entries(o.ports) as [keyof DevStackPorts, number][])
    if (await portOpen(p)) throw new UserError(`port ${p} (${PORT_FLAGS[k]}) is in use on 127.0.0.1: choose another with ${PORT_FLAGS[k]}`);
  const previous = readRecord(stateDir);
  const weedPorts = previous && !previous.weedPorts.includes(o.ports.s3) ? previous.weedPorts : await otherPorts(o.ports.s3);
  for (const p of weedPorts)
    if (await portOpen(p)) throw new UserError(`port ${p}, one SeaweedFS took under ${stateDir} before, is in use now`);
  const rec: StackRecord = { ports: o.ports, weedPorts, bucket: o.bucket };
  writeFileSync(where(stateDir).stack, JSON.stringify(rec, null, 2));
  const vars = credentials(stateDir);
  const s3 = { accessKeyId: vars.AWS_ACCESS_KEY_ID, secretAccessKey: vars.AWS_SECRET_ACCESS_KEY };
  const children: ChildProcess[] = [];
  const started = (s: Service, child: ChildProcess) => {
    children.push(child);
    child.once('error', () => {}); // a failed spawn also sets exitCode, which the readiness waits check
    writePidFile(where(stateDir).pid(s), { pid: child.pid! });
    return child;
  };
  try {
    const tDir = where(stateDir).dir('temporal');
    const tLog = path.join(tDir, 'temporal.log');
    const temporal = started(
      'temporal',
      startDevServer({
        stateDir: tDir,
        log: tLog,
        detached: true,
        port: o.ports.temporal,
        uiPort: o.ports.ui,
        namespaces: extraNamespaces(namespace),
      }),
    );
    const wDir = where(stateDir).dir('seaweedfs');
    mkdirSync(wDir, { recursive: true });
    const weed = started('seaweedfs', spawnWeed(wDir, writeIdentities(wDir, s3), o.ports.s3, weedPorts, { outlive: true }));
    const redis = started('redis', spawnRedis(where(stateDir).dir('redis'), o.ports.redis, vars[REDIS_PASSWORD_ENV]));
    await untilRedisAnswers(o.ports.redis, () => redis.exitCode !== null);
    await waitForPort(o.ports.temporal, 60_000, temporal, tLog);
    await waitForPort(o.ports.ui, 60_000, temporal, tLog);
    await untilWritable(weed, `http://127.0.0.1:${o.ports.s3}`, o.bucket, s3, wDir);
  } catch (e) {
    await stopDevStack(stateDir);
    throw e;
  }
  if (o.detach) for (const c of children) c.unref();
  return { settings: stackSettings(stateDir, rec, namespace), children };
}

/** Ends every service a pid file under the state dir names (and the sockets weed leaves in /tmp); what it stopped. */
export async function stopDevStack(stateDir: string): Promise<Service[]> {
  const dir = path.resolve(stateDir);
  const stopped: Service[] = [];
  for (const s of SERVICES) {
    const file = where(dir).pid(s);
    const rec = readPidFile(file);
    if (rec && stillRunning(rec.pid, rec.start)) {
      // weed's graceful stop of the filer can hang (cli/stack/seaweedfs.ts killAndWait): a short grace, then SIGKILL.
      await killProcessGroup(rec.pid, s === 'seaweedfs' ? 2000 : 10_000);
      stopped.push(s);
    }
    rmSync(file, { force: true });
  }
  const rec = readRecord(dir);
  for (const sock of rec ? weedSockets(rec.weedPorts) : []) rmSync(sock, { force: true });
  return stopped;
}
