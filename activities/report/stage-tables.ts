// Where an iteration's time and LLM budget went: one row per iteration, one column per stage.
import { duration } from '../../contracts/duration';
import { STAGES, type IterationSummary, type Spend, type Stage, type StageStats } from '../../contracts/run';
import { esc, note } from './html';

/** One row per iteration, one column per key (a stage or a model role) that some row has. */
function iterationTable(
  rows: IterationSummary[],
  keys: readonly string[],
  cell: (r: IterationSummary, key: string) => string,
  total: (r: IterationSummary) => string,
  cls: string,
  attr = 'stage',
): string {
  const head = `<tr><th>iteration</th>${keys.map((k) => `<th>${esc(k)}</th>`).join('')}<th>total</th></tr>`;
  const body = rows.map(
    (r) =>
      `<tr data-iteration="${r.iteration}"><td>iter ${r.iteration}</td>${keys.map((k) => `<td data-${attr}="${esc(k)}">${cell(r, k)}</td>`).join('')}<td>${total(r)}</td></tr>`,
  );
  return `<table class="${cls}">${head}\n${body.join('\n')}</table>`;
}

function stageTable(
  rows: IterationSummary[],
  cell: (s: StageStats | undefined) => string,
  total: (r: IterationSummary) => string,
  cls: string,
): string {
  const stages = STAGES.filter((st) => rows.some((r) => r.stages?.[st]));
  return iterationTable(rows, stages, (r, st) => cell(r.stages?.[st as Stage]), total, cls);
}

const spendText = (s: Spend | undefined) => (s ? `${s.tokens} tokens${s.usd ? `<br>$${s.usd.toFixed(4)}` : ''}` : '-');

/** What the LLM calls spent (tokens, and dollars at the endpoints' prices), per stage and per model role. */
export function spendTables(rows: IterationSummary[]): string {
  if (!rows.some((r) => r.spend)) return note('Not recorded: this run predates budgets and spend accounting.');
  const stages = STAGES.filter((st) => rows.some((r) => r.spend?.byStage[st]));
  const roles = [...new Set(rows.flatMap((r) => Object.keys(r.spend?.byRole ?? {})))];
  const total = (r: IterationSummary) => spendText(r.spend?.total);
  return [
    iterationTable(rows, stages, (r, st) => spendText(r.spend?.byStage[st as Stage]), total, 'spend-stage'),
    iterationTable(rows, roles, (r, role) => spendText(r.spend?.byRole[role]), total, 'spend-role', 'role'),
  ].join('\n');
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
