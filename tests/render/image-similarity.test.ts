// Image similarity on pages rendered by real Chromium, and embeddingSimilarity against a small local HTTP server
// that stands in for a CLIP embedding server (it returns fixed vectors: no model weights are involved).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../activities/render/browser-pool';
import { embeddingSimilarity, imageSimilarity, imageSimilarityParts } from '../../activities/render/image-similarity';

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

describe('embeddingSimilarity against a stand-in CLIP embedding server', () => {
  // Stand-in for a CLIP server (e.g. `vllm serve openai/clip-vit-base-patch32 --runner pooling`): it records each
  // request and answers with fixed, deliberately unnormalised vectors chosen by which image it was sent.
  const received: Array<{ url?: string; method?: string; headers: http.IncomingHttpHeaders; body: any }> = [];
  const tinyPng = (width: number, height: number, value: number) => {
    const png = new PNG({ width, height });
    png.data.fill(value);
    return PNG.sync.write(png);
  };
  const pngA = tinyPng(2, 2, 255);
  const pngB = tinyPng(3, 1, 128);
  const vectorFor = (dataUrl: string) => (dataUrl === `data:image/png;base64,${pngA.toString('base64')}` ? [3, 0, 4] : [4, 3, 0]);
  let server: http.Server;
  let baseUrl = '';

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        const body = JSON.parse(raw);
        received.push({ url: req.url, method: req.method, headers: req.headers, body });
        if (body.model === 'broken') {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":"boom"}');
          return;
        }
        const url = body.messages?.[0]?.content?.[0]?.image_url?.url ?? '';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ object: 'list', model: body.model, data: [{ object: 'embedding', index: 0, embedding: vectorFor(url) }] }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends one vLLM chat-style embeddings request per image and returns the cosine of the normalised vectors', async () => {
    process.env.TEST_CLIP_KEY = 'sk-test-123';
    received.length = 0;
    const cos = await embeddingSimilarity({ baseUrl, model: 'openai/clip-vit-base-patch32', apiKeyEnv: 'TEST_CLIP_KEY' }, pngA, pngB);
    // [3,0,4]/5 · [4,3,0]/5 = 12/25
    expect(cos).toBeCloseTo(0.48, 10);
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/v1/embeddings');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers.authorization).toBe('Bearer sk-test-123');
      expect(Object.keys(r.body).sort()).toEqual(['encoding_format', 'messages', 'model']);
      expect(r.body.model).toBe('openai/clip-vit-base-patch32');
      expect(r.body.encoding_format).toBe('float');
      expect(r.body.messages).toHaveLength(1);
      expect(r.body.messages[0].role).toBe('user');
      expect(r.body.messages[0].content).toHaveLength(1);
      expect(r.body.messages[0].content[0].type).toBe('image_url');
    }
    const sent = received.map((r) =>
      Buffer.from(r.body.messages[0].content[0].image_url.url.replace(/^data:image\/png;base64,/, ''), 'base64'),
    );
    expect(sent.some((b) => b.equals(pngA))).toBe(true);
    expect(sent.some((b) => b.equals(pngB))).toBe(true);
  });

  it('gives 1 for the same image and sends no Authorization header without apiKeyEnv', async () => {
    received.length = 0;
    expect(await embeddingSimilarity({ baseUrl, model: 'clip' }, pngA, pngA)).toBeCloseTo(1, 12);
    expect(received.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it('fails clearly on a missing key variable or an HTTP error', async () => {
    delete process.env.TEST_CLIP_MISSING;
    await expect(embeddingSimilarity({ baseUrl, model: 'clip', apiKeyEnv: 'TEST_CLIP_MISSING' }, pngA, pngB)).rejects.toThrow(
      /TEST_CLIP_MISSING \(apiKeyEnv\) is not set/,
    );
    await expect(embeddingSimilarity({ baseUrl, model: 'broken' }, pngA, pngB)).rejects.toThrow(/HTTP 500/);
  });
});
