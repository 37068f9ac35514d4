// What `status`, `watch`, `start --wait` and `demo` say about a run, from its status alone: the state word, the
// running stage's progress (counts, rate, ETA, LLM calls, spend, trainers) in the shared words of
// contracts/progress-text.ts, the lines a live view prints once (stage changes, needs attention, iteration ends),
// and the plain lines' pace off a terminal. The drawn terminal display is checked end to end in tests/integration/cli/watch.test.ts.
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import type { StageProgress } from '../../../contracts/progress';
import type { IterationStatus, IterationSummary } from '../../../contracts/run';
import { renderStatus } from '../../../cli/format';
import { liveDisplay, liveRows } from '../../../cli/live-display';
import { LiveView } from '../../../cli/live-view';
import type { RunStatus } from '../../../cli/loop-workflow';

const NOW = Date.parse('2026-11-26T12:00:00Z');

function iteration(patch: Partial<IterationStatus> = {}): IterationStatus {
  return {
    iteration: 1,
    stage: 'generate',
    paused: false,
    shards: { done: 2, total: 6 },
    conversations: { done: 16, total: 0 },
    tokens: 0,
    stages: { deploy: { startedAt: '2026-11-26T11:59:00Z', ms: 2100 }, generate: { startedAt: '2026-11-26T11:59:02Z', ms: 0 } },
    ...patch,
  };
}

const summary = (i: number, metrics: Record<string, number>): IterationSummary => ({
  iteration: i,
  checkpoint: `iter-${i}`,
  metrics,
  tokens: 1000,
  manifests: {},
  stages: {
    deploy: { startedAt: '', ms: 2000 },
    generate: { startedAt: '', ms: 40_000 },
    evaluate: { startedAt: '', ms: 1000 },
    'build-data': { startedAt: '', ms: 3000 },
    undeploy: { startedAt: '', ms: 1000 },
    train: { startedAt: '', ms: 15_000 },
  },
});

function status(
  it: IterationStatus | undefined,
  patch: Partial<RunStatus> = {},
  done: IterationSummary[] = [summary(0, { accuracy: 0.5 })],
) {
  return {
    workflowStatus: 'RUNNING',
    loop: { runName: 'r', recipe: 'coral', iteration: 1, iterations: 3, paused: false, done, finished: false },
    iteration: it,
    inFlight: [],
    training: [],
    waits: [],
    ...patch,
  } satisfies RunStatus;
}

const generating: StageProgress = {
  stage: 'generate',
  unit: 'conversations',
  done: 34,
  total: 96,
  perSecond: 0.8,
  etaSeconds: 77.5,
  calls: { ok: 120, cached: 30, failed: 0, retried: 2 },
  callsPerSecond: 1.9,
  tokens: { prompt: 10_000, completion: 2345 },
  tokensPerSecond: 140,
  at: NOW,
};

const training: StageProgress = {
  stage: 'train',
  unit: 'steps',
  done: 12,
  trainers: [{ role: 'critic_2', step: 12, total: 40, loss: 0.41, stepsPerSecond: 0.5, etaSeconds: 56, at: NOW }],
  etaSeconds: 56,
  at: NOW,
};

describe('status', () => {
  it('shows the running stage’s progress, not a 0 s stage time and 0 tokens, and the iteration’s ETA', () => {
    const text = renderStatus(status(iteration({ progress: generating })), NOW);
    expect(text).toContain('run r (coral) · running · iteration 1 (of 0–2)');
    expect(text).toContain('  stages: deploy 2.1 s · generate running for 58 s\n');
    // Paused, or waiting for the user: not at work, so no running time.
    expect(renderStatus(status(iteration({ paused: true, progress: generating })), NOW)).toContain('  stages: deploy 2.1 s\n');
    const attention = { stage: 'generate' as const, error: 'endpoint gone', since: '2026-11-26T12:00:00Z' };
    expect(renderStatus(status(iteration({ attention })), NOW)).toContain('  stages: deploy 2.1 s\n');
    expect(text).not.toMatch(/generate 0\.0 s|tokens 0\b/);
    expect(text).toContain('  generate: 34 of 96 conversations · 0.8/s · ETA 78 s');
    expect(text).toContain(
      '  calls 120 ok, 30 cached, 0 failed, 2 retried · 1.9 calls/s · tokens 10000 prompt + 2345 completion · 140 tokens/s · no price set',
    );
    // 78 s of generate left, then evaluate, build-data, undeploy and train as long as last time: 1+3+1+15 s.
    expect(text).toContain('  iteration ETA 98 s');
  });

  it('shows each trainer’s step, loss, rate and ETA while training', () => {
    const text = renderStatus(status(iteration({ stage: 'train', progress: training })));
    expect(text).toContain('  train critic_2: step 12 of 40 · loss 0.41 · 0.5 steps/s · ETA 56 s');
    expect(text).toContain('  iteration ETA 56 s');
    expect(text).not.toContain('conversations');
  });

  it('says "needs attention", not "running", with the error and the retry hint', () => {
    const attention = { stage: 'train' as const, error: 'trainer exited with code 2\nlog tail', since: '2026-11-26T12:00:00Z' };
    const text = renderStatus(status(iteration({ stage: 'train', attention })), NOW);
    expect(text).toContain('run r (coral) · needs attention · iteration 1 (of 0–2)');
    expect(text).toContain(
      '  NEEDS ATTENTION in stage "train" (since 2026-11-26T12:00:00Z):\n    trainer exited with code 2\n    log tail\n',
    );
    expect(text).toContain('  fix the cause, then: collab-loop retry r [--stage S] [--set key=value]');
  });

  it('without the workflow’s progress (older iterations), counts running shards during generate only', () => {
    const inFlight = [{ done: 3, total: 8 }];
    expect(renderStatus(status(iteration(), { inFlight }))).toContain('  generate: 19 conversations · ETA not yet known');
    const train = renderStatus(status(iteration({ stage: 'train' }), { inFlight, training: [{ step: 5, loss: 0.3 }] }));
    expect(train).toContain('  train: step 5 · loss 0.3 · ETA not yet known');
    expect(train).not.toContain('conversations');
  });
});

describe('status without a worker', () => {
  const unanswered = (patch: Partial<RunStatus> = {}) =>
    status(undefined, {
      unanswered: {
        reason: 'the status query timed out after 10 s',
        stage: 'train',
        running: [{ key: 'train', stage: 'train', unit: 'steps', done: 12, total: 40, loss: 0.41, at: NOW }],
      },
      waits: [{ activity: 'trainCheckpoint', attempt: 2, waiting: 'attempt 2 of 3 running, after: OOM' }],
      ...patch,
    });

  it('says the worker is busy, then the stage, what the running pieces say and what they wait on', () => {
    expect(renderStatus(unanswered(), NOW).split('\n').slice(0, 5)).toEqual([
      'run r (coral) · running · iteration 1 (of 0–2)',
      '  worker busy: the status query timed out after 10 s; showing what the server knows without it',
      '  stage: train',
      '  train: step 12 of 40 · loss 0.41 · ETA not yet known',
      '  train (trainCheckpoint): attempt 2 of 3 running, after: OOM',
    ]);
    const generating = unanswered({
      unanswered: {
        reason: 'r',
        stage: 'generate',
        attention: true,
        running: [
          { key: 'eval-0', stage: 'generate', unit: 'conversations', done: 3, total: 8, at: NOW },
          { key: 'eval-1', stage: 'generate', unit: 'conversations', done: 5, total: 8, at: NOW },
        ],
      },
      waits: [],
    });
    const text = renderStatus(generating, NOW);
    expect(text).toContain('run r (coral) · needs attention · iteration 1 (of 0–2)');
    expect(text).toContain('  running now: 2 generate pieces, 8 of 16 conversations in them\n');
  });

  it('of a closed run, only the busy line: no stage', () => {
    const text = renderStatus(unanswered({ workflowStatus: 'TERMINATED' }), NOW);
    expect(text).toContain('run r (coral) · terminated');
    expect(text).toContain('  worker busy: the status query timed out after 10 s');
    expect(text).not.toContain('stage: train');
  });
});

describe('the live view', () => {
  it('while no worker answers: keeps the last frame, says so once with its time, and when the worker is back', () => {
    const view = new LiveView();
    const busy = status(undefined, { unanswered: { reason: 'the status query timed out after 10 s', running: [] } });
    // Before any frame: the run's headline from what the server knows.
    expect(view.busy('the status query timed out after 10 s', busy, NOW)).toEqual({
      log: ['worker busy: the status query timed out after 10 s; showing what the server knows without it, retrying'],
      header: 'run r (coral) · running · iteration 1 (of 0–2)',
    });
    view.next(status(iteration({ progress: generating })), NOW);
    const shown = view.next(status(iteration({ progress: { ...generating, done: 40 } })), NOW + 1000);
    const first = view.busy('the status query timed out after 10 s', busy, NOW + 12_000);
    const clock = new Date(NOW + 1000).toTimeString().slice(0, 8);
    expect(first).toEqual({
      ...shown,
      log: [`worker busy: the status query timed out after 10 s; showing the state of ${clock}, retrying`],
    });
    expect(view.busy('the status query timed out after 10 s', busy, NOW + 24_000)).toEqual({ ...shown, log: [] });
    expect(view.next(status(iteration({ progress: { ...generating, done: 50 } })), NOW + 46_000).log).toEqual([
      'worker answering again after 34 s',
    ]);
    expect(view.next(status(iteration({ progress: { ...generating, done: 51 } })), NOW + 47_000).log).toEqual([]);
  });

  it('prints each stage change, attention and iteration end once; progress only of the stage it belongs to', () => {
    const view = new LiveView();
    const first = view.next(status(iteration({ progress: generating })));
    expect(first.log).toEqual(['iteration 1 (of 0–2) · stage generate']);
    expect(first.header).toBe('run r (coral) · running · iteration 1 (of 0–2) · stage generate');
    expect(first.progress).toBe(generating);
    expect(view.next(status(iteration({ progress: { ...generating, done: 40 } }))).log).toEqual([]);

    // Into train, whose progress has not come yet: no generate counts on its rows.
    const train = view.next(status(iteration({ stage: 'train', progress: undefined }), { inFlight: [{ done: 8, total: 8 }] }));
    expect(train.log).toEqual(['iteration 1 (of 0–2) · stage train']);
    expect(train.progress).toBeUndefined();

    const attention = { stage: 'train' as const, error: 'trainer exited with code 2', since: '2026-11-26T12:00:00Z' };
    const stuck = view.next(status(iteration({ stage: 'train', attention })));
    expect(stuck.header).toContain('· needs attention ·');
    expect(stuck.log).toEqual([
      'NEEDS ATTENTION in stage "train" (since 2026-11-26T12:00:00Z):',
      '  trainer exited with code 2',
      'fix the cause, then: collab-loop retry r [--stage S] [--set key=value]',
    ]);
    expect(view.next(status(iteration({ stage: 'train', attention }))).log).toEqual([]);
    expect(view.next(status(iteration({ stage: 'train', progress: training }))).log).toEqual(['stage train goes on after the retry']);

    const next = status(iteration({ iteration: 2, stage: 'deploy' }), {}, [summary(0, { accuracy: 0.5 }), summary(1, { accuracy: 0.625 })]);
    next.loop.iteration = 2;
    // Stages that began and ended between two looks still get their line, before the iteration's end.
    expect(view.next(next).log).toEqual([
      'iteration 1 (of 0–2) · stage evaluate',
      'iteration 1 (of 0–2) · stage build-data',
      'iteration 1 (of 0–2) · stage undeploy',
      'iteration 1 done: accuracy=0.6250',
      'iteration 2 (of 0–2) · stage deploy',
    ]);
  });

  it('gives a stage that began and ended between two looks its line, in the order stages run', () => {
    const view = new LiveView();
    expect(view.next(status(iteration({ stage: 'deploy', stages: { deploy: { startedAt: 't', ms: 0 } } }))).log).toEqual([
      'iteration 1 (of 0–2) · stage deploy',
    ]);
    const quick = { deploy: { startedAt: 't', ms: 1 }, generate: { startedAt: 't', ms: 1 }, evaluate: { startedAt: 't', ms: 0 } };
    expect(view.next(status(iteration({ stage: 'evaluate', stages: quick }))).log).toEqual([
      'iteration 1 (of 0–2) · stage generate',
      'iteration 1 (of 0–2) · stage evaluate',
    ]);
    // A retry went back to generate: its line again, not evaluate's left-over stats.
    expect(view.next(status(iteration({ stage: 'generate', stages: quick }))).log).toEqual(['iteration 1 (of 0–2) · stage generate']);
    // The run closed between looks: the last iteration's remaining stages, then its end.
    const closed = status(undefined, { workflowStatus: 'COMPLETED' }, [summary(0, { accuracy: 0.5 }), summary(1, { accuracy: 0.75 })]);
    expect(view.next(closed).log).toEqual([
      'iteration 1 (of 0–2) · stage build-data',
      'iteration 1 (of 0–2) · stage undeploy',
      'iteration 1 (of 0–2) · stage train',
      'iteration 1 done: accuracy=0.7500',
    ]);
  });

  it('says once what a stage waits on (no worker, a retry), not at every tick of its clock', () => {
    const view = new LiveView();
    const waiting = (seconds: number) =>
      status(iteration({ stage: 'deploy' }), {
        waits: [{ activity: 'deployCheckpoint', attempt: 1, waiting: `waiting for a worker on queue gpu (scheduled ${seconds} s ago)` }],
      });
    expect(view.next(waiting(31)).log).toEqual([
      'iteration 1 (of 0–2) · stage deploy',
      'deploy (deployCheckpoint): waiting for a worker on queue gpu (scheduled 31 s ago)',
    ]);
    expect(view.next(waiting(32)).log).toEqual([]);
  });

  it('announces a run that already needs attention or is paused when it starts watching', () => {
    const attention = { stage: 'generate' as const, error: 'budget reached', since: 'then' };
    expect(new LiveView().next(status(iteration({ attention }))).log).toContain('NEEDS ATTENTION in stage "generate" (since then):');
    const paused = status(iteration());
    paused.loop.paused = true;
    expect(new LiveView().next(paused).log).toContain('paused at the next stage boundary (collab-loop resume r goes on)');
  });

  it('draws one bar for the stage’s count and one per trainer, with text rows for LLM calls and the iteration ETA', () => {
    const view = new LiveView();
    const gen = liveRows(view.next(status(iteration({ progress: generating }))));
    expect(gen.map((r) => r.bar)).toEqual([undefined, { value: 34, total: 96 }, undefined, undefined]);
    expect(gen[1].line).toBe('generate: 34 of 96 conversations · 0.8/s · ETA 78 s');
    expect(gen[3].line).toBe('iteration ETA 98 s');
    const two = { ...training, trainers: [...training.trainers!, { role: 'critic_3', step: 3, total: 40, at: NOW }] };
    const train = liveRows(view.next(status(iteration({ stage: 'train', progress: two }))));
    expect(train.map((r) => r.bar)).toEqual([undefined, { value: 12, total: 40 }, { value: 3, total: 40 }, undefined]);
    expect(train[2].line).toBe('train critic_3: step 3 of 40 · ETA not yet known');
  });

  it('on a terminal, redraws the rows in place under the log lines', async () => {
    let out = '';
    const tty = Object.assign(
      new Writable({
        write(chunk, _enc, done) {
          out += chunk.toString();
          done();
        },
      }),
      {
        isTTY: true,
        columns: 200,
        rows: 40,
        cursorTo: () => true,
        moveCursor: () => true,
        clearLine: () => true,
        clearScreenDown: () => true,
      },
    ) as unknown as NodeJS.WriteStream;
    const display = liveDisplay({ stream: tty });
    const view = new LiveView();
    display.show(view.next(status(iteration({ progress: generating }))));
    display.show(view.next(status(iteration({ progress: { ...generating, done: 48 } }))));
    // Train's rows differ in number and kind (one bar per trainer): drawn anew.
    const two = { ...training, trainers: [...training.trainers!, { role: 'critic_3', step: 3, total: 40, at: NOW }] };
    display.show(view.next(status(iteration({ stage: 'train', progress: two }))));
    display.close();
    expect(out).toContain('iteration 1 (of 0–2) · stage train\n');
    expect(out).toMatch(/█+░+ train critic_2: step 12 of 40 · loss 0.41/);
    expect(out).toMatch(/█+░+ train critic_3: step 3 of 40/);
    expect(out).toContain('iteration 1 (of 0–2) · stage generate\n');
    expect(out).toMatch(/█+░+ generate: 34 of 96 conversations/);
    expect(out).toMatch(/█+░+ generate: 48 of 96 conversations/);
    expect(out).toContain('\x1b[?25l'); // cursor hidden while drawing, shown again at the end
    expect(out).toContain('\x1b[?25h');
  });

  it('off a terminal, plain lines: events at once, progress at most every 10 s and only when it changed', () => {
    const lines: string[] = [];
    let now = NOW;
    const display = liveDisplay({ write: (l) => lines.push(l), now: () => now });
    const view = new LiveView();
    const at = (done: number, seconds: number) => {
      now = NOW + seconds * 1000;
      display.show(view.next(status(iteration({ progress: { ...generating, done } }))));
    };
    at(10, 0); // the stage has only begun
    at(12, 5);
    at(20, 11);
    at(20, 22); // nothing new
    at(30, 25);
    at(40, 33); // 8 s after the last line
    expect(lines).toEqual([
      'iteration 1 (of 0–2) · stage generate',
      '  generate: 20 of 96 conversations · 0.8/s · ETA 78 s',
      '  calls 120 ok, 30 cached, 0 failed, 2 retried · 1.9 calls/s · tokens 10000 prompt + 2345 completion · 140 tokens/s · no price set',
      '  iteration ETA 98 s',
      '  generate: 30 of 96 conversations · 0.8/s · ETA 78 s',
      '  calls 120 ok, 30 cached, 0 failed, 2 retried · 1.9 calls/s · tokens 10000 prompt + 2345 completion · 140 tokens/s · no price set',
      '  iteration ETA 98 s',
    ]);
    expect(lines.join('')).not.toContain('\x1b');
  });
});
