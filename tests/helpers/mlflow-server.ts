// A real MLflow tracking server (`mlflow server` from PyPI, installed into .venv-mlflow by bin/setup.js) on a free
// port, with a SQLite backend and the artifact proxy on a private directory. Plus the few REST reads tests need.
import { execa, type ResultPromise } from 'execa';
import { freePort } from '../../activities/serving/free-port';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { tempStateDir } from './config';
import { waitUntil } from './wait';

export interface MlflowServer {
  url: string;
  dir: string;
  get<T>(apiPath: string): Promise<T>;
  post<T>(apiPath: string, body: unknown): Promise<T>;
  close(): Promise<void>;
}

export async function startMlflowServer(): Promise<MlflowServer> {
  const dir = tempStateDir('collab-loop-mlflow-');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ResultPromise = execa(
    path.join(PROJECT_ROOT, '.venv-mlflow', 'bin', 'mlflow'),
    [
      'server',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--workers',
      '1',
      '--backend-store-uri',
      `sqlite:///${path.join(dir, 'mlflow.db')}`,
      '--artifacts-destination',
      path.join(dir, 'artifacts'),
    ],
    { cwd: dir, reject: false, all: true, detached: true },
  );
  let log = '';
  child.all!.on('data', (d: Buffer) => {
    log += d;
  });
  const healthy = async () =>
    (await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    )) || child.exitCode !== null;
  await waitUntil(healthy, 120_000, `mlflow server on ${url}`);
  if (child.exitCode !== null) throw new Error(`mlflow server exited: ${log}`);
  const call = async <T>(method: string, apiPath: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${apiPath}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${apiPath}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    url,
    dir,
    get: (p) => call('GET', p),
    post: (p, b) => call('POST', p, b),
    async close() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
      await child;
    },
  };
}
