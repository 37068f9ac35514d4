// A private redis-server (Debian's, installed by bin/setup.js) on a free port with nothing persisted: the shared
// endpoint limits' coordinator for tests and `npm run bench shared-limits`.
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../activities/serving/free-port';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface LocalRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const answersPing = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('PING\r\n'));
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
  });

export async function startLocalRedis(): Promise<LocalRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-redis-'));
  const port = await freePort();
  const child: ResultPromise = execa(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { reject: false, stdio: 'ignore' },
  );
  const deadline = Date.now() + 20_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${REDIS_SERVER} did not start on port ${port} (run node bin/setup.js to install redis-server)`);
    }
    await new Promise((r) => setTimeout(r, 50));
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
