// The weight-free image similarity on pages rendered by real Chromium.
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../../../activities/render/browser-pool';
import { imageSimilarity, imageSimilarityParts } from '../../../../activities/render/image-similarity';

/**
 * Text drawn as word-shaped boxes ("greeked"), never as glyphs: glyph shapes, advances and line heights come from
 * whatever fonts Chromium finds on the machine, so pages with real text would score differently elsewhere. A flex
 * row of fixed-size boxes lays out the same everywhere: one box per word, 0.55 em per letter, explicit gaps.
 */
function words(text: string, o: { px: number; colour: string; line?: number }): string {
  const h = Math.round(o.px * 0.7);
  const boxes = text
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `<span style="display:block;width:${Math.round(w.length * o.px * 0.55)}px;height:${h}px;background:${o.colour}"></span>`)
    .join('');
  const rowGap = Math.round((o.line ?? 1.5) * o.px) - h;
  return `<div style="display:flex;flex-wrap:wrap;column-gap:${Math.round(o.px * 0.3)}px;row-gap:${rowGap}px">${boxes}</div>`;
}

/** A small landing page; options change one aspect at a time. */
function site(o: { accent?: string; bg?: string; headline?: string; extra?: boolean } = {}): string {
  const accent = o.accent ?? '#1e40af';
  const cards = ['Dashboards', 'Reports', 'Alerts']
    .map(
      (t) =>
        `<div style="border:1px solid #d1d5db;border-radius:12px;padding:24px"><div style="margin:0 0 8px">${words(t, { px: 19, colour: accent })}</div>` +
        `<div style="margin:16px 0">${words('Everything you need, nothing you do not. '.repeat(3), { px: 16, colour: '#4b5563' })}</div></div>`,
    )
    .join('');
  return `<!doctype html><html><body style="margin:0;background:${o.bg ?? '#fff'}">
    <header style="background:${accent};padding:24px 48px">${words('Acme Analytics', { px: 28, colour: '#fff', line: 1.2 })}</header>
    <section style="padding:48px;display:flex;gap:32px;align-items:center"><div style="flex:1">
      <div style="margin:0 0 16px">${words(o.headline ?? 'Insights that move your business', { px: 40, colour: '#000', line: 1.2 })}</div>
      <div style="margin:18px 0">${words('We turn raw data into clear decisions for teams of every size. '.repeat(4), { px: 18, colour: '#374151', line: 1.6 })}</div>
      <div style="display:inline-block;background:${accent};padding:14px 28px;border-radius:8px">${words('Start free trial', { px: 18, colour: '#fff', line: 1.2 })}</div>
    </div><div style="width:420px;height:280px;background:#e5e7eb;border-radius:12px"></div></section>
    <section style="padding:0 48px 48px;display:grid;grid-template-columns:repeat(3,1fr);gap:24px">${cards}</section>
    ${o.extra ? `<section style="padding:48px;background:#f3f4f6"><div style="margin:0 0 20px">${words('Pricing', { px: 24, colour: '#000' })}</div>${words('Simple plans for everyone. '.repeat(20), { px: 16, colour: '#000' })}<div style="height:600px"></div></section>` : ''}
    <footer style="background:#111827;padding:24px 48px">${words('© 2024 Acme', { px: 16, colour: '#9ca3af' })}</footer></body></html>`;
}

const UNRELATED = `<!doctype html><html><body style="margin:0;background:#0f172a">
  <div style="display:flex"><nav style="width:260px;height:1000px;background:#f59e0b"></nav><main style="padding:64px">
  ${words('PORTFOLIO', { px: 72, colour: '#e2e8f0', line: 1.2 })}<div style="display:grid;grid-template-columns:1fr 1fr;gap:8px;margin-top:40px">
  ${Array.from({ length: 6 }, (_, i) => `<div style="height:180px;width:380px;background:hsl(${i * 50},70%,50%)"></div>`).join('')}
  </div></main></div></body></html>`;

describe('imageSimilarity (weight-free) on real renders', () => {
  const pool = new BrowserPool({ pages: 2 });
  const shots: Record<string, Buffer> = {};
  const score: Record<string, number> = {};

  beforeAll(async () => {
    const pages: Record<string, string> = {
      reference: site(),
      identical: site(),
      textChange: site({ headline: 'Insights that boost your business' }), // one word one letter longer
      recoloured: site({ accent: '#b91c1c' }),
      recolouredTinted: site({ accent: '#15803d', bg: '#fefce8' }),
      taller: site({ extra: true }),
      blank: '<div></div>',
      unrelated: UNRELATED,
    };
    await Promise.all(
      Object.entries(pages).map(async ([k, html]) => {
        shots[k] = await pool.renderHtml(html);
      }),
    );
    for (const k of Object.keys(pages)) {
      if (k === 'reference') continue;
      const parts = imageSimilarityParts(shots.reference, shots[k]);
      score[k] = parts.score;
      console.log(
        `similarity reference vs ${k}: ${parts.score.toFixed(3)} (structure ${parts.structure.toFixed(3)}, ` +
          `palette ${parts.palette.toFixed(3)}, plain SSIM ${parts.plainSsim.toFixed(3)})`,
      );
    }
  });
  afterAll(async () => {
    await pool.close();
  });

  it('is in [0, 1] and symmetric', () => {
    for (const v of Object.values(score)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
    expect(imageSimilarity(shots.recoloured, shots.reference)).toBeCloseTo(score.recoloured, 6);
  });

  it('scores the same page rendered twice as identical', () => {
    expect(score.identical).toBeGreaterThan(0.999);
  });

  it('keeps a small text change high', () => {
    expect(score.textChange).toBeGreaterThan(0.95);
  });

  it('scores the same layout in other colours below identical', () => {
    expect(score.recoloured).toBeLessThan(score.identical - 0.02);
    expect(score.recoloured).toBeGreaterThan(0.8);
  });

  it('scores a completely different page low', () => {
    expect(score.unrelated).toBeLessThan(0.2);
  });

  it('orders crafted pairs monotonically: the more that changes, the lower the score', () => {
    const order = ['identical', 'textChange', 'recoloured', 'recolouredTinted', 'taller', 'blank', 'unrelated'];
    for (let i = 1; i < order.length; i++) expect(score[order[i]], `${order[i - 1]} > ${order[i]}`).toBeLessThan(score[order[i - 1]]);
  });

  it('compares full-page shots of different heights by what they share', () => {
    const [a, b] = [PNG.sync.read(shots.reference), PNG.sync.read(shots.taller)];
    expect(b.height).toBeGreaterThan(a.height + 500);
    // Same top, extra section below: clearly related, clearly not the same page.
    expect(score.taller).toBeGreaterThan(0.5);
    expect(score.taller).toBeLessThan(score.recoloured);
  });
});
