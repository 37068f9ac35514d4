// Served models require their run's key (activities/llm/served-key.ts): the simulator started exactly as the deploy
// stage starts it refuses a request without the key, or with another run's, and answers the client that resolves the
// endpoint's `apiKeyRef`; neither the endpoint reference (what enters a workflow history) nor the argv holds the key.
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVE_SECRET_ENV } from '../../../../activities/host-env';
import { resolveApiKey } from '../../../../activities/llm/client';
import { servedKey } from '../../../../activities/llm/served-key';
import { freePort } from '../../../../activities/serving/free-port';
import { simulatorLaunch } from '../../../../activities/serving/server-launch';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { baseCheckpointIn, tempStateDir, testConfig } from '../../../helpers/config';

const children: ResultPromise[] = [];
afterEach(async () => {
  delete process.env[SERVE_SECRET_ENV];
  for (const c of children.splice(0)) {
    if (c.exitCode === null) c.kill('SIGKILL');
    await c.catch(() => undefined);
  }
});

const post = (url: string, key?: string) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe("a run's served-model key", () => {
  it('is required by the served simulator and sent by the client, never carried in the endpoint', async () => {
    process.env[SERVE_SECRET_ENV] = 'cluster-secret';
    const dir = tempStateDir();
    const config = testConfig(dir);
    const launch = simulatorLaunch(config, baseCheckpointIn(dir), await freePort(), {
      taskKind: 'mmlu_pro',
      policyFile: `${baseCheckpointIn(dir)}/simulated-policy.json`,
      latencyMs: 0,
      maxConcurrency: 4,
      keyRef: 'run-a',
    });
    const [cmd, ...args] = launch.argv;
    const child = execa(cmd, args, { cwd: PROJECT_ROOT, env: launch.env, reject: false, all: true });
    children.push(child);
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(launch.healthUrl).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`simulator did not start: ${(await child).all}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = launch.endpoint.baseUrl;
    const key = resolveApiKey(launch.endpoint);
    expect(key).toBe(servedKey('run-a', 'test'));
    expect((await post(url)).status).toBe(401);
    expect((await post(url, servedKey('run-b', 'test'))).status).toBe(401);
    const models = await fetch(`${url}/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    expect(launch.endpoint.apiKeyRef).toBe('run-a');
    expect(JSON.stringify(launch.endpoint)).not.toContain(key);
    expect(launch.argv.join(' ')).not.toContain(key);
  });

  it('cannot be derived on a host without the cluster secret: the call fails naming the variable', () => {
    expect(() => resolveApiKey({ baseUrl: 'http://gpu-1:8000/v1', apiKeyRef: 'run-a' })).toThrow(
      "http://gpu-1:8000/v1: the endpoint requires the run's key, but COLLAB_LOOP_SERVE_SECRET is not set on this worker",
    );
  });
});
