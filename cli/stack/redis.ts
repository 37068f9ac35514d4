// redis-server (Debian's, installed by bin/setup.js), the shared endpoint limits' coordinator. startLocalRedis is a
// private one on a free port with nothing persisted, for tests and `npm run bench shared-limits`; `collab-loop
// dev-stack` (cli/dev-stack.ts) starts one with redisArgs on a persistent directory and a password.
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../activities/serving/free-port';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface LocalRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The server answers on loopback, where redisArgs binds it (a server with a password answers an unauthenticated
 *  PING with NOAUTH). */
const answersPing = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('PING\r\n'));
    s.once('data', (d) => {
      s.destroy();
      resolve(/^(\+PONG|-NOAUTH)/.test(d.toString()));
    });
    // A peer that takes the connection and never answers (a port another server holds) is not redis.
    s.setTimeout(2000, () => s.destroy());
    s.once('error', () => resolve(false));
    s.once('close', () => resolve(false));
  });

/** Loopback only; `persist`: an append-only file in `dir` (fsync every second, redis.conf's default), so a restart
 *  keeps the budget ledgers; otherwise nothing is written. `password`: clients must AUTH (requirepass). */
export function redisArgs(o: { port: number; dir: string; persist?: boolean; password?: string }): string[] {
  const args = ['--port', String(o.port), '--bind', '127.0.0.1', '--dir', o.dir, '--save', ''];
  args.push('--appendonly', o.persist ? 'yes' : 'no');
  if (o.password) args.push('--requirepass', o.password);
  return args;
}

/** Until it answers on `port`; `exited` tells that it will not. */
export async function untilRedisAnswers(port: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await answersPing(port))) {
    if (exited() || Date.now() > deadline)
      throw new Error(`${REDIS_SERVER} did not start on port ${port} (run node bin/setup.js to install redis-server)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startLocalRedis(): Promise<LocalRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-redis-'));
  const port = await freePort();
  const child: ResultPromise = execa(REDIS_SERVER, redisArgs({ port, dir }), { reject: false, stdio: 'ignore' });
  try {
    await untilRedisAnswers(port, () => child.exitCode !== null);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    async stop() {
      child.kill('SIGKILL');
      await child;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
