// The sandbox and the renderer count what they do (activities/metrics.ts) under the run of the activity that asked:
// real sandboxed python3 runs (one ok, one failing, one past its wall limit) and a real Chromium render.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRunLabel } from '../../../activities/metrics';
import { closeSharedBrowserPool } from '../../../activities/render/browser-pool';
import { renderWebPage } from '../../../activities/render/page-renderer';
import { runSandboxedPython } from '../../../activities/sandbox/python-sandbox';
import { recordMetrics, type RecordingMeter } from '../../helpers/recording-meter';

const SLOT = 170;
let metrics: RecordingMeter;
beforeAll(() => {
  metrics = recordMetrics();
});
afterAll(async () => {
  metrics.stop();
  await closeSharedBrowserPool();
});

const python = (code: string, wallSeconds = 10) =>
  runSandboxedPython({ files: { 'main.py': code }, script: 'main.py', slot: SLOT, limits: { wallSeconds } });

describe('metrics of the sandbox and the renderer', () => {
  it('counts sandbox runs by outcome, labelled with the run', async () => {
    await withRunLabel('score-run', async () => {
      await python('print(1)');
      await python('raise SystemExit(3)');
      await python('while True: pass', 1);
    });
    await python('print(2)'); // outside any run
    for (const outcome of ['ok', 'error', 'timeout'])
      expect(metrics.sum('collab_loop_sandbox_runs', { run: 'score-run', outcome }), outcome).toBe(1);
    expect(metrics.sum('collab_loop_sandbox_runs', { run: '' })).toBe(1);
  });

  it('counts rendered pages, labelled with the run', async () => {
    await withRunLabel('html-run', () => renderWebPage('<html><body><p style="width:10px;height:10px;background:red"></p></body></html>'));
    expect(metrics.sum('collab_loop_renders', { run: 'html-run' })).toBe(1);
  });
});
