// `collab-loop report`: a self-contained HTML page (inline SVG plot, no scripts, no external assets).
import type { IterationSummary } from '../workflows/types';
import { fmtNum } from './format';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/** Line plot of the metrics that live in [0, 1] (rates), one line per metric, iterations on x. */
export function metricsPlotSvg(rows: IterationSummary[], keys: string[]): string {
  const W = 640, H = 320, L = 50, R = 180, T = 20, B = 40;
  const n = rows.length;
  const x = (i: number) => L + (n <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (v: number) => T + (1 - v) * (H - T - B);
  const parts: string[] = [];
  for (let g = 0; g <= 4; g++) {
    const v = g / 4;
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${v.toFixed(2)}</text>`);
  }
  rows.forEach((r, i) => parts.push(`<text x="${x(i)}" y="${H - B + 16}" text-anchor="middle" font-size="11">iter ${r.iteration}</text>`));
  keys.forEach((k, ki) => {
    const color = COLORS[ki % COLORS.length];
    const pts = rows.map((r, i) => [x(i), y(r.metrics[k] ?? 0)] as const);
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => p.join(',')).join(' ')}"/>`);
    pts.forEach(([px, py]) => parts.push(`<circle cx="${px}" cy="${py}" r="3.5" fill="${color}"/>`));
    parts.push(`<rect x="${W - R + 12}" y="${T + ki * 18}" width="12" height="3" fill="${color}"/><text x="${W - R + 30}" y="${T + ki * 18 + 5}" font-size="12">${esc(k)}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="metrics per iteration">${parts.join('')}</svg>`;
}

export function reportHtml(runName: string, rows: IterationSummary[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))];
  const rateKeys = keys.filter((k) => rows.every((r) => r.metrics[k] === undefined || (r.metrics[k] >= 0 && r.metrics[k] <= 1)));
  const table = [
    `<tr><th>iteration</th>${keys.map((k) => `<th>${esc(k)}</th>`).join('')}<th>tokens</th><th>checkpoint</th></tr>`,
    ...rows.map((r) => `<tr><td>${r.iteration}</td>${keys.map((k) => `<td>${fmtNum(r.metrics[k])}</td>`).join('')}<td>${r.tokens}</td><td><code>${esc(r.checkpoint)}</code></td></tr>`),
  ].join('\n');
  const lineage = rows
    .map((r) => `<li>iteration ${r.iteration}: <code>${esc(r.checkpoint)}</code>${r.datasets?.sft ? ` · SFT ${r.datasets.sft.rows} rows (sha256 ${r.datasets.sft.sha256.slice(0, 12)})` : ''}${r.datasets?.dpo ? ` · DPO ${r.datasets.dpo.rows} pairs (sha256 ${r.datasets.dpo.sha256.slice(0, 12)})` : ''}${r.probe ? ` · probe: served <code>${esc(r.probe.model)}</code>, ${r.probe.prompts} prompts, answers sha256 ${r.probe.answersSha256.slice(0, 12)}` : ''}${r.train ? ` · trained ${r.train.steps ?? '?'} steps, final loss ${fmtNum(r.train.finalLoss)}${r.train.resumedFromStep ? ` (resumed from step ${r.train.resumedFromStep})` : ''}` : ''}${r.nextCheckpoint ? ` → <code>${esc(r.nextCheckpoint)}</code>` : ''}</li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>collab-loop report: ${esc(runName)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}code{font-size:90%}</style>
</head><body>
<h1>collab-loop report: ${esc(runName)}</h1>
<h2>Metrics per iteration</h2>
${metricsPlotSvg(rows, rateKeys)}
<table>
${table}
</table>
<h2>Lineage</h2>
<ul>
${lineage}
</ul>
</body></html>
`;
}
