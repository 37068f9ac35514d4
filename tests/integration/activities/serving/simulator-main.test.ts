// simulator-main as the deploy activity runs it: a real node subprocess (bin/run-script.js) that writes its ready file,
// answers the real `openai` client, and exits cleanly on SIGTERM. It serves a SIMULATED policy (no model weights).
import { execa, type ResultPromise } from 'execa';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeScriptArgv, PROJECT_ROOT } from '../../../../activities/subprocess/node-script';

const SCRIPT = 'activities/serving/simulator-main.ts';
const MMLU = path.join(PROJECT_ROOT, 'configs/tasks/coral-demo/mmlu_pro.jsonl');
const children: ResultPromise[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.pid) c.kill('SIGKILL');
    await c.catch(() => undefined);
  }
});

function run(args: string[], env: Record<string, string> = {}) {
  const [cmd, argv] = nodeScriptArgv(SCRIPT, args);
  const child = execa(cmd, argv, { cwd: PROJECT_ROOT, env, reject: false });
  children.push(child);
  return child;
}

async function startSimulator(args: string[], env: Record<string, string> = {}) {
  const readyFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'sim-main-')), 'sub', 'ready.json');
  const child = run([...args, '--ready-file', readyFile], env);
  const deadline = Date.now() + 60_000;
  while (!existsSync(readyFile)) {
    if (child.exitCode !== null) throw new Error(`simulator exited early: ${(await child).stderr}`);
    if (Date.now() > deadline) throw new Error('simulator wrote no ready file within 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const ready = JSON.parse(readFileSync(readyFile, 'utf8')) as { url: string; port: number; pid: number };
  return { child, ready, client: new OpenAI({ baseURL: `${ready.url}/v1`, apiKey: 'x', maxRetries: 0 }) };
}

describe('simulator-main (subprocess)', () => {
  it('writes the ready file, answers, and exits 0 on SIGTERM', async () => {
    const { child, ready, client } = await startSimulator(['--model', 'sim-echo', '--policy', 'echo']);
    expect(ready.pid).toBe(child.pid);
    expect(ready.url).toBe(`http://127.0.0.1:${ready.port}`);
    expect(ready.port).toBeGreaterThan(0);
    expect((await fetch(`${ready.url}/health`)).status).toBe(200);
    const models = await client.models.list();
    expect(models.data).toEqual([{ id: 'sim-echo', object: 'model', created: 0, owned_by: 'collab-loop-simulator' }]);
    const r = await client.chat.completions.create({ model: 'sim-echo', messages: [{ role: 'user', content: 'ping' }], n: 2 });
    expect(r.choices.map((c) => c.message.content)).toEqual([expect.stringMatching(/^echo .* #0$/), expect.stringMatching(/^echo .* #1$/)]);
    expect(
      (await client.chat.completions.create({ model: 'other', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)).status,
    ).toBe(404);

    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe(`collab-loop simulator listening on ${ready.url} (model sim-echo, SIMULATED policy)`);
    expect(result.stderr).toBe('');
  });

  it('applies --api-key-env, --fault-*, --latency-ms and --capacity', async () => {
    const { child, ready } = await startSimulator(
      [
        '--model',
        'm',
        '--api-key-env',
        'SIM_TEST_KEY',
        '--fault-rate',
        '1',
        '--fault-kinds',
        '500',
        '--latency-ms',
        '10',
        '--capacity',
        '1',
      ],
      { SIM_TEST_KEY: 'k-123' },
    );
    const noKey = new OpenAI({ baseURL: `${ready.url}/v1`, apiKey: 'wrong', maxRetries: 0 });
    expect(await noKey.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)).toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const withKey = new OpenAI({ baseURL: `${ready.url}/v1`, apiKey: 'k-123', maxRetries: 0 });
    expect(
      await withKey.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e),
    ).toBeInstanceOf(OpenAI.InternalServerError);
    expect(await (await fetch(`${ready.url}/stats`)).json()).toMatchObject({ received: 2, faulted: 1, completed: 0 });
    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(0);

    const slow = await startSimulator(['--model', 'm', '--latency-ms', '60', '--capacity', '2']);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        slow.client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `q${i}` }] }),
      ),
    );
    expect(performance.now() - t0).toBeGreaterThanOrEqual(170); // 3 waves of 60 ms
    expect(await (await fetch(`${slow.ready.url}/stats`)).json()).toMatchObject({ completed: 6, maxInFlight: 2 });
    slow.child.kill('SIGINT');
    expect((await slow.child).exitCode).toBe(0);
  });

  it('serves the CoRal simulated policy from task files and a checkpoint policy file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sim-main-'));
    const policyFile = path.join(dir, 'simulated-policy.json');
    writeFileSync(policyFile, JSON.stringify({ skill: 0.4, agreeability: 0.7 }));
    const { child, client } = await startSimulator([
      '--model',
      'sim-ckpt',
      '--policy',
      'coral',
      '--tasks',
      `${MMLU}:mmlu_pro`,
      '--policy-file',
      policyFile,
    ]);
    const body = { model: 'sim-ckpt', messages: [{ role: 'user' as const, content: 'Hello partner.' }], seed: 5, n: 2 };
    const a = await client.chat.completions.create(body);
    expect(a.choices).toHaveLength(2);
    for (const c of a.choices) expect(c.message.content).toMatch(/^(?!echo )\S/); // the CoRal policy, not echo
    expect(a.usage?.prompt_tokens).toBeGreaterThan(0);
    // Seeded by the request: the same request gets the same answer.
    expect((await client.chat.completions.create(body)).choices.map((c) => c.message.content)).toEqual(
      a.choices.map((c) => c.message.content),
    );
    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(0);
  });

  it('reports a usage error in one stderr line with exit code 2', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sim-main-'));
    const badPolicy = path.join(dir, 'bad-policy.json');
    writeFileSync(badPolicy, JSON.stringify({ skill: 3 }));
    const cases: Array<[string[], RegExp]> = [
      [['--model', 'm', '--policy', 'coral', '--tasks', 'no-dataset-here'], /--tasks "no-dataset-here" must look like <file>:<dataset>/],
      [
        ['--model', 'm', '--policy', 'coral', '--tasks', '/nonexistent/tasks.jsonl:mmlu_pro'],
        /--tasks .*\/nonexistent\/tasks\.jsonl.*ENOENT/,
      ],
      [['--model', 'm', '--policy', 'coral'], /--policy coral needs at least one --tasks/],
      [
        ['--model', 'm', '--policy', 'coral', '--tasks', `${MMLU}:mmlu_pro`, '--policy-file', badPolicy],
        /--policy-file .*bad-policy\.json: "skill" must be a number in \[0, 1\]/,
      ],
      [['--model', 'm', '--policy', 'gpt'], /--policy: unknown policy "gpt"/],
      [['--model', 'm', '--fault-rate', '0.2', '--fault-kinds', '429,teapot'], /--fault-kinds: unknown teapot/],
      [['--model', 'm', '--capacity', '0'], /--capacity: "0"/],
      [['--model', 'm', '--api-key-env', 'SIM_TEST_UNSET_VAR'], /--api-key-env: environment variable SIM_TEST_UNSET_VAR is not set/],
      [['--policy', 'echo'], /required option '--model <name>'/],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((r, i) => {
      const [args, pattern] = cases[i];
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(pattern);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^collab-loop simulator: /);
      expect(r.stdout).toBe('');
    });
  });
});
