// Small inline-SVG line plots (no script, no external asset): one per metric across iterations, and the training
// loss per step. Each axis is scaled to its own data, so a token count and a rate are both readable.
import { esc } from './html';

export interface Series {
  name: string;
  points: Array<[number, number]>;
  /** Marks the series' elements for readers and tests (e.g. `data-iteration="1"`). */
  attrs?: Record<string, string | number>;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
const fmt = (v: number) => (Number.isInteger(v) ? String(v) : Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3));

function range(values: number[]): [number, number] {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) {
    lo -= Math.abs(lo) * 0.1 || 0.5;
    hi += Math.abs(hi) * 0.1 || 0.5;
  }
  const pad = (hi - lo) * 0.08;
  return [lo - pad, hi + pad];
}

export function linePlotSvg(o: { series: Series[]; xLabel: string; width?: number; height?: number; integerX?: boolean }): string {
  const W = o.width ?? 300,
    H = o.height ?? 190,
    L = 46,
    R = 10,
    T = 10,
    B = 34;
  const all = o.series.flatMap((s) => s.points);
  if (!all.length) return '';
  const [x0, x1] = o.integerX && new Set(all.map((p) => p[0])).size === 1 ? [all[0][0] - 1, all[0][0] + 1] : range(all.map((p) => p[0]));
  const [y0, y1] = range(all.map((p) => p[1]));
  const x = (v: number) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
  const y = (v: number) => T + (1 - (v - y0) / (y1 - y0)) * (H - T - B);
  const parts: string[] = [];
  for (let g = 0; g <= 3; g++) {
    const v = y0 + ((y1 - y0) * g) / 3;
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#e4e4e4"/><text x="${L - 4}" y="${y(v) + 4}" text-anchor="end" font-size="10">${fmt(v)}</text>`,
    );
  }
  const xs = [...new Set(all.map((p) => p[0]))].sort((a, b) => a - b);
  const ticks = xs.length <= 8 ? xs : Array.from({ length: 6 }, (_, i) => xs[Math.round((i * (xs.length - 1)) / 5)]);
  for (const t of ticks) parts.push(`<text x="${x(t)}" y="${H - B + 14}" text-anchor="middle" font-size="10">${fmt(t)}</text>`);
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle" font-size="10">${esc(o.xLabel)}</text>`);
  o.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const attrs = Object.entries(s.attrs ?? {})
      .map(([k, v]) => ` ${k}="${esc(String(v))}"`)
      .join('');
    const pts = s.points.map(([px, py]) => `${x(px)},${y(py)}`).join(' ');
    parts.push(`<g class="series"${attrs}><title>${esc(s.name)}</title>`);
    if (s.points.length > 1) parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8" points="${pts}"/>`);
    for (const [px, py] of s.points)
      parts.push(
        `<circle cx="${x(px)}" cy="${y(py)}" r="${s.points.length > 40 ? 1.5 : 3}" fill="${color}" data-x="${px}" data-y="${py}"><title>${esc(s.name)}: ${fmt(px)} → ${fmt(py)}</title></circle>`,
      );
    parts.push('</g>');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${parts.join('')}</svg>`;
}

/** A legend for plots with several series (the loss plot: one line per iteration's trainer run). */
export function legendHtml(series: Series[]): string {
  return `<p class="legend">${series.map((s, i) => `<span style="color:${COLORS[i % COLORS.length]}">■</span> ${esc(s.name)}`).join(' &nbsp; ')}</p>`;
}
