// Small inline-SVG line plots (no script, no external asset): one per metric across iterations, and the training
// loss per step. A rate is drawn on 0–1 and a count from 0 (metric-kinds.ts); anything else on its own range; the
// y ticks are round numbers. Each point's <title> is its hover value (the page runs no script).
import { esc } from './html';
import type { MetricKind } from './metric-kinds';

export interface Series {
  name: string;
  points: Array<[number, number]>;
  /** Marks the series' elements for readers and tests (e.g. `data-iteration="1"`). */
  attrs?: Record<string, string | number>;
  /** A standard error per point (same order as `points`): drawn as an error bar ±1 SE. */
  errors?: Array<number | undefined>;
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

/** A round step (1, 2, 2.5 or 5 × 10^k) that cuts `span` into about four. */
function niceStep(span: number): number {
  const raw = span / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
}

/** The y axis: its ends and its ticks. A rate: 0 to 1. A count: 0 to a round number above the largest (a count that
 *  is always 0 gets 0–1). A value: round numbers around the data; a constant one is shown against 0. */
function yAxis(values: number[], kind: MetricKind): { lo: number; hi: number; ticks: number[] } {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (kind === 'rate') [lo, hi] = [Math.min(0, lo), Math.max(1, hi)];
  else if (kind === 'count' || lo === hi) [lo, hi] = [Math.min(0, lo), Math.max(0, hi)];
  if (lo === hi) hi = lo + 1;
  const step = niceStep(hi - lo);
  const a = Math.floor(lo / step + 1e-9) * step;
  const b = Math.ceil(hi / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let i = 0; a + i * step <= b + step / 1e6; i++) ticks.push(Number((a + i * step).toPrecision(12)));
  return { lo: a, hi: b, ticks };
}

export function linePlotSvg(o: {
  series: Series[];
  xLabel: string;
  width?: number;
  height?: number;
  integerX?: boolean;
  /** How the y axis is ranged (metric-kinds.ts); default `value`. */
  yKind?: MetricKind;
}): string {
  const W = o.width ?? 300,
    H = o.height ?? 190,
    L = 46,
    R = 10,
    T = 10,
    B = 34;
  const all = o.series.flatMap((s) => s.points);
  if (!all.length) return '';
  const [x0, x1] = o.integerX && new Set(all.map((p) => p[0])).size === 1 ? [all[0][0] - 1, all[0][0] + 1] : range(all.map((p) => p[0]));
  const bars = o.series.flatMap((s) => s.points.flatMap(([, py], i) => (s.errors?.[i] ? [py - s.errors[i]!, py + s.errors[i]!] : [])));
  const axis = yAxis([...all.map((p) => p[1]), ...bars], o.yKind ?? 'value');
  const [y0, y1] = [axis.lo, axis.hi];
  const x = (v: number) => L + ((v - x0) / (x1 - x0)) * (W - L - R);
  const y = (v: number) => T + (1 - (v - y0) / (y1 - y0)) * (H - T - B);
  const parts: string[] = [];
  for (const v of axis.ticks)
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#e4e4e4"/><text class="y-tick" x="${L - 4}" y="${y(v) + 4}" text-anchor="end" font-size="10">${String(v)}</text>`,
    );
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
    s.points.forEach(([px, py], i) => {
      const e = s.errors?.[i];
      if (e) parts.push(errorBar(x(px), y(py - e), y(py + e), color, `${esc(s.name)}: ${fmt(py)} ± ${fmt(e)} (SE)`, px, e));
    });
    for (const [px, py] of s.points)
      parts.push(
        `<circle cx="${x(px)}" cy="${y(py)}" r="${s.points.length > 40 ? 1.5 : 3}" fill="${color}" data-x="${px}" data-y="${py}"><title>${esc(s.name)}: ${fmt(px)} → ${fmt(py)}</title></circle>`,
      );
    parts.push('</g>');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img">${parts.join('')}</svg>`;
}

/** A vertical bar from `yLow` to `yHigh` (pixels) with caps; `data-se` is the standard error it stands for. */
function errorBar(cx: number, yLow: number, yHigh: number, color: string, title: string, px: number, se: number): string {
  const cap = (cy: number) => `<line x1="${cx - 4}" x2="${cx + 4}" y1="${cy}" y2="${cy}"/>`;
  return `<g class="error-bar" stroke="${color}" stroke-width="1.2" data-x="${px}" data-se="${se}"><title>${title}</title><line x1="${cx}" x2="${cx}" y1="${yLow}" y2="${yHigh}"/>${cap(yLow)}${cap(yHigh)}</g>`;
}

/** A legend for plots with several series (the loss plot: one line per iteration's trainer run). */
export function legendHtml(series: Series[]): string {
  return `<p class="legend">${series.map((s, i) => `<span style="color:${COLORS[i % COLORS.length]}">■</span> ${esc(s.name)}`).join(' &nbsp; ')}</p>`;
}
