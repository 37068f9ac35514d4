// Pins the argv and request dialect of each server kind (a GPU host's vLLM command line is checked here; vLLM's CPU
// build runs for real in tests/engines/, transformers serve in tests/engines/cpu/).
import { describe, expect, it } from 'vitest';
import { serverSchema } from '../../../../configs/schema';
import { modelServerLaunch } from '../../../../activities/serving/server-launch';
import { venvExecutable } from '../../../../activities/subprocess/venv';
import { SERVE_BIND_ENV, SERVE_HOST_ENV } from '../../../../activities/host-env';

const ckpt = '/state/checkpoints/run/iter-1';

describe('model server launch', () => {
  it('vllm: served name, our decoding wins over generation_config.json, key only via VLLM_API_KEY', () => {
    const s = serverSchema.parse({
      kind: 'vllm',
      tensorParallelSize: 2,
      gpuMemoryUtilization: 0.85,
      maxModelLen: 8192,
      apiKeyEnv: 'VLLM_KEY',
      extraArgs: ['--enforce-eager'],
    });
    if (s.kind !== 'vllm') throw new Error('kind');
    const l = modelServerLaunch(s, ckpt, 8011, { seed: 7, env: { VLLM_KEY: 'sk-secret' } });
    expect(l.argv).toEqual([
      'vllm',
      'serve',
      ckpt,
      '--host',
      '127.0.0.1',
      '--port',
      '8011',
      '--served-model-name',
      'collab-loop/iter-1',
      '--dtype',
      'auto',
      '--tensor-parallel-size',
      '2',
      '--seed',
      '7',
      '--generation-config',
      'vllm',
      '--gpu-memory-utilization',
      '0.85',
      '--max-model-len',
      '8192',
      '--enforce-eager',
    ]);
    expect(l.argv.join(' ')).not.toContain('sk-secret');
    expect(l.env.VLLM_API_KEY).toBe('sk-secret');
    expect(l).toMatchObject({ healthUrl: 'http://127.0.0.1:8011/health', checkModelsList: true });
    expect(l.endpoint).toMatchObject({
      baseUrl: 'http://127.0.0.1:8011/v1',
      model: 'collab-loop/iter-1',
      apiKeyEnv: 'VLLM_KEY',
      dialect: 'openai',
    });
  });

  it('vllm with python: the module `vllm serve` runs, same flags; env added; the key for readiness checks', () => {
    const s = serverSchema.parse({
      kind: 'vllm',
      python: '/opt/vllm-cpu/bin/python',
      env: { VLLM_CPU_KVCACHE_SPACE: '1' },
      apiKeyEnv: 'VLLM_KEY',
    });
    if (s.kind !== 'vllm') throw new Error('kind');
    const l = modelServerLaunch(s, ckpt, 8013, { seed: 7, env: { VLLM_KEY: 'sk-secret' } });
    const gpu = modelServerLaunch({ ...s, python: undefined }, ckpt, 8013, { seed: 7, env: {} });
    expect(l.argv.slice(0, 5)).toEqual(['/opt/vllm-cpu/bin/python', '-m', 'vllm.entrypoints.openai.api_server', '--model', ckpt]);
    expect(l.argv.slice(5)).toEqual(gpu.argv.slice(3)); // after `vllm serve <ckpt>`: the same flags
    expect(l.env).toEqual({ VLLM_CPU_KVCACHE_SPACE: '1', VLLM_API_KEY: 'sk-secret', HF_HUB_OFFLINE: '1' });
    expect(l.apiKey).toBe('sk-secret');
    expect(gpu.apiKey).toBeUndefined();
  });

  it('transformers serve: pinned to the checkpoint path, CPU, its own dialect', () => {
    const s = serverSchema.parse({ kind: 'transformers' });
    if (s.kind !== 'transformers') throw new Error('kind');
    const l = modelServerLaunch(s, ckpt, 8012);
    expect(l.argv).toEqual([
      venvExecutable('transformers'),
      'serve',
      ckpt,
      '--host',
      '127.0.0.1',
      '--port',
      '8012',
      '--device',
      'cpu',
      '--log-level',
      'warning',
    ]);
    expect(l.endpoint).toMatchObject({ model: ckpt, dialect: 'transformers-serve', maxConcurrency: 2 });
    expect(l.healthUrl).toBe('http://127.0.0.1:8012/health');
  });

  it('command: template placeholders, health path from the config', () => {
    const s = serverSchema.parse({
      kind: 'command',
      command: ['sglang', 'serve', '{checkpoint}', '--port', '{port}', '--name', '{model}'],
      servedModel: 'm-{checkpoint}',
      healthPath: '/ready',
    });
    if (s.kind !== 'command') throw new Error('kind');
    const l = modelServerLaunch(s, ckpt, 9000);
    expect(l.argv).toEqual(['sglang', 'serve', ckpt, '--port', '9000', '--name', `m-${ckpt}`]);
    expect(l.healthUrl).toBe('http://127.0.0.1:9000/ready');
  });

  it('--serve-host with --serve-bind: listens on that address only, health-checked there, reached by the name', () => {
    const s = serverSchema.parse({ kind: 'command', command: ['srv', '--host', '{host}', '--port', '{port}'] });
    if (s.kind !== 'command') throw new Error('kind');
    const saved = { host: process.env[SERVE_HOST_ENV], bind: process.env[SERVE_BIND_ENV] };
    try {
      process.env[SERVE_HOST_ENV] = 'gpu-1.internal';
      process.env[SERVE_BIND_ENV] = '10.1.2.3';
      const l = modelServerLaunch(s, ckpt, 9000);
      expect(l.argv).toEqual(['srv', '--host', '10.1.2.3', '--port', '9000']);
      expect(l.healthUrl).toBe('http://10.1.2.3:9000/health');
      expect(l.endpoint.baseUrl).toBe('http://gpu-1.internal:9000/v1');
      delete process.env[SERVE_BIND_ENV]; // --serve-host alone: every interface, as before
      expect(modelServerLaunch(s, ckpt, 9000).argv).toEqual(['srv', '--host', '0.0.0.0', '--port', '9000']);
    } finally {
      for (const [k, v] of [
        [SERVE_HOST_ENV, saved.host],
        [SERVE_BIND_ENV, saved.bind],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});
