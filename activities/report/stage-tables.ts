// Where an iteration's time and LLM budget went: one row per iteration, one column per stage.
import { STAGES, type IterationSummary, type StageStats } from '../../workflows/types';
import { esc, note } from './html';

const duration = (ms: number) =>
  ms < 1000
    ? `${ms} ms`
    : ms < 120_000
      ? `${(ms / 1000).toFixed(1)} s`
      : ms < 7_200_000
        ? `${(ms / 60_000).toFixed(1)} min`
        : `${(ms / 3_600_000).toFixed(1)} h`;

function stageTable(
  rows: IterationSummary[],
  cell: (s: StageStats | undefined) => string,
  total: (r: IterationSummary) => string,
  cls: string,
): string {
  const stages = STAGES.filter((st) => rows.some((r) => r.stages?.[st]));
  const head = `<tr><th>iteration</th>${stages.map((st) => `<th>${esc(st)}</th>`).join('')}<th>total</th></tr>`;
  const body = rows.map(
    (r) =>
      `<tr data-iteration="${r.iteration}"><td>iter ${r.iteration}</td>${stages.map((st) => `<td data-stage="${st}">${cell(r.stages?.[st])}</td>`).join('')}<td>${total(r)}</td></tr>`,
  );
  return `<table class="${cls}">${head}\n${body.join('\n')}</table>`;
}

/** LLM calls (cached ones counted in, shown apart) and tokens per stage. */
export function llmUsageTable(rows: IterationSummary[]): string {
  if (!rows.some((r) => r.stages)) return note('Not recorded: this run predates per-stage accounting.');
  const cell = (s: StageStats | undefined) =>
    s?.calls === undefined ? '-' : `${s.calls} calls${s.cachedCalls ? ` (${s.cachedCalls} cached)` : ''}<br>${s.tokens ?? 0} tokens`;
  const total = (r: IterationSummary) => {
    const calls = STAGES.reduce((a, st) => a + (r.stages?.[st]?.calls ?? 0), 0);
    return `${calls} calls<br>${r.tokens} tokens (conversations)`;
  };
  return stageTable(rows, cell, total, 'llm-usage');
}

/** Wall time each stage worked, retries included, waits for a user's retry excluded. */
export function stageTimeTable(rows: IterationSummary[]): string {
  if (!rows.some((r) => r.stages)) return note('Not recorded: this run predates per-stage timing.');
  const cell = (s: StageStats | undefined) => (s ? duration(s.ms) : '-');
  const total = (r: IterationSummary) => duration(STAGES.reduce((a, st) => a + (r.stages?.[st]?.ms ?? 0), 0));
  return stageTable(rows, cell, total, 'stage-time');
}
