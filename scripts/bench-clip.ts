// `npm run bench -- clip-vs-default`: how the default, weight-free screenshot score (activities/render/image-similarity.ts)
// ranks 20 page pairs against the CLIP score (activities/render/clip-similarity.ts, ColBench's measure) on the same
// pairs — Spearman's and Kendall's rank correlation — and what each costs per pair. The pages are generated here
// (layouts, colours, greeked text as boxes: no fonts involved) and rendered by the project's Chromium pool.
// With models/tiny-clip (random weights, made by bin/setup.js) the correlation means nothing: it shows the code
// path and its cost. Pointed at a real CLIP (`--clip-model DIR`, e.g. openai/clip-vit-base-patch32 saved locally),
// it tells what the default measures relative to the seed's score. Figures are printed, never asserted.
import path from 'node:path';
import { BrowserPool } from '../activities/render/browser-pool';
import { clipScorerStats, clipSimilarity, closeClipScorers } from '../activities/render/clip-similarity';
import { imageSimilarity } from '../activities/render/image-similarity';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';

export const TINY_CLIP = path.join(PROJECT_ROOT, 'models', 'tiny-clip');

interface PageSpec {
  layout: 'landing' | 'sidebar' | 'gallery' | 'article';
  accent: string;
  bg: string;
  ink: string;
  cards: number;
  extra: boolean;
  /** Word lengths of the headline (greeked): changing one is a "text edit". */
  headline: number[];
}

const BASE: PageSpec = {
  layout: 'landing',
  accent: '#1e40af',
  bg: '#ffffff',
  ink: '#111827',
  cards: 3,
  extra: false,
  headline: [8, 4, 6, 9],
};

/** A line of greeked text: one box per word (fixed sizes, so the page renders the same on every machine). */
const words = (lengths: number[], px: number, colour: string) =>
  `<div style="display:flex;flex-wrap:wrap;gap:${Math.round(px * 0.6)}px ${Math.round(px * 0.3)}px">${lengths
    .map(
      (n) =>
        `<span style="display:block;width:${Math.round(n * px * 0.55)}px;height:${Math.round(px * 0.7)}px;background:${colour}"></span>`,
    )
    .join('')}</div>`;
const paragraph = (n: number, colour: string) =>
  words(
    Array.from({ length: n }, (_, i) => 3 + ((i * 7) % 8)),
    16,
    colour,
  );

function page(o: PageSpec): string {
  const card = `<div style="border:1px solid #d1d5db;border-radius:10px;padding:20px;flex:1">${words([7, 5], 20, o.accent)}<div style="height:12px"></div>${paragraph(14, '#6b7280')}</div>`;
  const cards = `<div style="display:flex;gap:20px;padding:0 40px 40px">${card.repeat(o.cards)}</div>`;
  const extra = o.extra
    ? `<section style="padding:40px;background:#f3f4f6">${words([7], 24, o.ink)}<div style="height:16px"></div>${paragraph(60, o.ink)}</section>`
    : '';
  const head = `<header style="background:${o.accent};padding:20px 40px">${words([4, 9], 26, '#ffffff')}</header>`;
  const hero = `<section style="padding:40px">${words(o.headline, 38, o.ink)}<div style="height:20px"></div>${paragraph(30, '#4b5563')}
    <div style="display:inline-block;margin-top:20px;background:${o.accent};padding:12px 24px;border-radius:8px">${words([5, 4], 18, '#ffffff')}</div></section>`;
  let body: string;
  switch (o.layout) {
    case 'landing':
      body = `${head}${hero}${cards}${extra}`;
      break;
    case 'sidebar':
      body = `<div style="display:flex"><nav style="width:240px;min-height:900px;background:${o.accent};padding:24px">${Array.from({ length: 6 }, () => words([8], 18, '#ffffff')).join('<div style="height:18px"></div>')}</nav><main style="flex:1">${hero}${cards}${extra}</main></div>`;
      break;
    case 'gallery':
      body = `${head}<div style="display:grid;grid-template-columns:repeat(4,1fr);gap:12px;padding:40px">${Array.from({ length: 12 }, (_, i) => `<div style="height:160px;background:hsl(${(i * 37) % 360},55%,55%);border-radius:6px"></div>`).join('')}</div>${extra}`;
      break;
    case 'article':
      body = `<article style="max-width:720px;margin:0 auto;padding:48px 24px">${words(o.headline, 34, o.ink)}<div style="height:24px"></div>${Array.from({ length: 5 }, () => paragraph(40, o.ink)).join('<div style="height:20px"></div>')}</article>${extra}`;
      break;
  }
  return `<!doctype html><html><body style="margin:0;background:${o.bg}">${body}<footer style="background:#111827;padding:20px 40px">${words([3, 6], 14, '#9ca3af')}</footer></body></html>`;
}

const variant = (o: Partial<PageSpec>): PageSpec => ({ ...BASE, ...o });

/** 20 pairs, from the same page to unrelated designs. */
export const PAIRS: Array<{ label: string; a: PageSpec; b: PageSpec }> = [
  { label: 'identical landing', a: BASE, b: BASE },
  { label: 'identical gallery', a: variant({ layout: 'gallery' }), b: variant({ layout: 'gallery' }) },
  { label: 'headline word longer', a: BASE, b: variant({ headline: [8, 4, 7, 9] }) },
  { label: 'headline one word fewer', a: BASE, b: variant({ headline: [8, 4, 9] }) },
  { label: 'accent blue → red', a: BASE, b: variant({ accent: '#b91c1c' }) },
  { label: 'accent blue → green', a: BASE, b: variant({ accent: '#15803d' }) },
  { label: 'background tinted', a: BASE, b: variant({ bg: '#fefce8' }) },
  { label: 'accent + background', a: BASE, b: variant({ accent: '#7c3aed', bg: '#f5f3ff' }) },
  { label: 'two cards, not three', a: BASE, b: variant({ cards: 2 }) },
  { label: 'one card, not three', a: BASE, b: variant({ cards: 1 }) },
  { label: 'extra section below', a: BASE, b: variant({ extra: true }) },
  { label: 'sidebar vs landing', a: BASE, b: variant({ layout: 'sidebar' }) },
  { label: 'sidebar recoloured', a: variant({ layout: 'sidebar' }), b: variant({ layout: 'sidebar', accent: '#0f766e' }) },
  { label: 'article vs landing', a: BASE, b: variant({ layout: 'article' }) },
  { label: 'article, dark mode', a: variant({ layout: 'article' }), b: variant({ layout: 'article', bg: '#0f172a', ink: '#e5e7eb' }) },
  { label: 'landing, dark mode', a: BASE, b: variant({ bg: '#0f172a', ink: '#e5e7eb', accent: '#f59e0b' }) },
  { label: 'gallery vs landing', a: BASE, b: variant({ layout: 'gallery' }) },
  { label: 'gallery vs article', a: variant({ layout: 'gallery' }), b: variant({ layout: 'article' }) },
  { label: 'dark gallery vs article', a: variant({ layout: 'gallery', bg: '#0f172a' }), b: variant({ layout: 'article' }) },
  { label: 'blank vs landing', a: BASE, b: variant({ layout: 'article', headline: [], bg: '#ffffff', ink: '#ffffff' }) },
];

/** Ranks from 1, ties sharing their mean rank. */
function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((p, q) => p[0] - q[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

function pearson(x: number[], y: number[]): number {
  const mx = x.reduce((s, v) => s + v, 0) / x.length;
  const my = y.reduce((s, v) => s + v, 0) / y.length;
  let sxy = 0,
    sxx = 0,
    syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
}

/** Spearman's rho: Pearson's correlation of the ranks (ties at their mean rank). */
export const spearman = (x: number[], y: number[]): number => pearson(ranks(x), ranks(y));

/** Kendall's tau-b (concordant minus discordant pairs, corrected for ties). */
export function kendall(x: number[], y: number[]): number {
  let c = 0,
    d = 0,
    tx = 0,
    ty = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const a = Math.sign(x[i] - x[j]);
      const b = Math.sign(y[i] - y[j]);
      if (a === 0 && b === 0) continue;
      if (a === 0) tx++;
      else if (b === 0) ty++;
      else if (a === b) c++;
      else d++;
    }
  return (c - d) / Math.sqrt((c + d + tx) * (c + d + ty));
}

export async function benchClipVsDefault(clipModel = TINY_CLIP): Promise<void> {
  const pool = new BrowserPool({ pages: 2 });
  let shots: Array<[Buffer, Buffer]>;
  try {
    shots = await Promise.all(
      PAIRS.map(async (p) => [await pool.renderHtml(page(p.a)), await pool.renderHtml(page(p.b))] as [Buffer, Buffer]),
    );
  } finally {
    await pool.close();
  }
  try {
    let t = performance.now();
    const weightFree = shots.map(([a, b]) => imageSimilarity(a, b));
    const weightFreeMs = (performance.now() - t) / PAIRS.length;
    t = performance.now();
    await clipSimilarity(clipModel, shots[0][0], shots[0][1]); // starts the scorer process: its cost is printed apart
    const startMs = performance.now() - t;
    t = performance.now();
    const clip: number[] = [];
    for (const [a, b] of shots) clip.push(await clipSimilarity(clipModel, a, b));
    const clipMs = (performance.now() - t) / PAIRS.length;
    const stats = clipScorerStats(clipModel);
    const tiny = path.resolve(clipModel) === TINY_CLIP;
    console.log(`
clip-vs-default — ${PAIRS.length} rendered page pairs, weight-free score vs CLIP cosine (${tiny ? 'models/tiny-clip: RANDOM weights, the figure means nothing' : clipModel})`);
    console.log('  pair                        weight-free    CLIP');
    for (const [i, p] of PAIRS.entries())
      console.log(`  ${p.label.padEnd(28)}${weightFree[i].toFixed(3).padStart(9)}${clip[i].toFixed(4).padStart(10)}`);
    console.log(
      `  rank correlation         Spearman ${spearman(weightFree, clip).toFixed(3)}, Kendall tau-b ${kendall(weightFree, clip).toFixed(3)}`,
    );
    console.log(`  weight-free per pair     ${weightFreeMs.toFixed(1)} ms (in the worker, no model)`);
    console.log(
      `  CLIP per pair            ${clipMs.toFixed(1)} ms (one Python process, pid ${stats?.pid}, ${stats?.served} images embedded); its start ${startMs.toFixed(0)} ms, once per worker`,
    );
  } finally {
    await closeClipScorers();
  }
}
