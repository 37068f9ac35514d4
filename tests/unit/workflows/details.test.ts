// The lines the Temporal UI's Current Details show of an iteration's model roles while it trains, and of a run's
// start and time on the loop's page — the cases the Chromium tests (tests/integration/ui/roles-and-segments.test.ts) do not reach:
// a role still training, one that kept its checkpoint, an external role, a stopped run.
import { describe, expect, it } from 'vitest';
import { roleLines, runTimeLines } from '../../../workflows/details';

describe("an iteration's model roles in its details", () => {
  it('names what serves every role, and each trained role as trained, training or kept', () => {
    const dataset = { uri: 'file:///d.jsonl', sha256: 'x', rows: 4, bytes: 10 };
    const lines = roleLines({
      method: 'sft',
      training: true,
      models: {
        generator_0: {
          kind: 'trained',
          checkpoint: '/ck/iter-0',
          dataset,
          nextCheckpoint: '/ck/iter-1/generator_0',
          train: { steps: 8, finalLoss: 0.41, resumedFromStep: 3 },
        },
        critic_0: { kind: 'trained', checkpoint: '/ck/iter-0', dataset },
        critic_1: { kind: 'trained', checkpoint: '/ck/iter-0', skipped: 'no examples' },
        judge: { kind: 'external', model: 'gpt-4o-mini' },
      },
    });
    expect(lines.join('\n')).toBe(
      [
        '',
        'served checkpoints:',
        '',
        '- generator_0 (trained): `/ck/iter-0`',
        '- critic_0 (trained): `/ck/iter-0`',
        '- critic_1 (trained): `/ck/iter-0`',
        '- judge (external): model `gpt-4o-mini`',
        '',
        'trained:',
        '',
        '- train generator_0 · sft · 8 steps · final loss 0.4100 · resumed at step 3 → `/ck/iter-1/generator_0`',
        '- train critic_0 · sft · running',
        '- train critic_1 · sft · kept its checkpoint: no examples',
      ].join('\n'),
    );
  });
});

describe("a run's start on the loop's page", () => {
  const startedAt = '2026-05-01T09:00:00.000Z';
  const now = Date.parse(startedAt) + 3.5 * 3_600_000;
  it('says running while it runs, took once done, ran when stopped; nothing for runs that never kept it', () => {
    expect(runTimeLines({ startedAt, now, iteration: 1, iterations: 3, stopped: false })).toEqual([`started ${startedAt} · running 3.5 h`]);
    expect(runTimeLines({ startedAt, now, iteration: 3, iterations: 3, stopped: false })).toEqual([`started ${startedAt} · took 3.5 h`]);
    expect(runTimeLines({ startedAt, now, iteration: 1, iterations: 3, stopped: true })).toEqual([`started ${startedAt} · ran 3.5 h`]);
    expect(runTimeLines({ now, iteration: 1, iterations: 3, stopped: false })).toEqual([]);
  });
});
