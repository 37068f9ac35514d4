// The metrics of finished iterations as a plain-text table — one row per metric, one column per iteration (recipes
// report a dozen metrics; iterations are few). The CLI prints it and the loop's UI details show it, identically.
import type { IterationSummary } from './run';

export const fmtNum = (v: number | undefined) =>
  v === undefined || Number.isNaN(v) ? '-' : Number.isInteger(v) ? String(v) : v.toFixed(4);

export function metricsTable(rows: IterationSummary[], keys?: string[]): string {
  if (!rows.length) return '(no finished iterations yet)';
  const names = keys ?? [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))];
  const header = ['metric', ...rows.map((r) => `iter ${r.iteration}`)];
  const body = [
    ...names.map((n) => [n, ...rows.map((r) => fmtNum(r.metrics[n]))]),
    ['tokens (all LLM calls)', ...rows.map((r) => String(r.tokens))],
    ...(rows.some((r) => r.train)
      ? [
          ['train steps', ...rows.map((r) => String(r.train?.steps ?? '-'))],
          ['train final loss', ...rows.map((r) => fmtNum(r.train?.finalLoss))],
        ]
      : []),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
