// Image similarity on pages rendered by real Chromium, and embeddingSimilarity against a small local HTTP server
// that stands in for a CLIP embedding server (it returns fixed vectors: no model weights are involved).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../activities/render/browser-pool';
import {
  embeddingSimilarity, imageSimilarity, imageSimilarityParts,
} from '../../activities/render/image-similarity';

/** A small landing page; options change one aspect at a time. */
function site(o: { accent?: string; bg?: string; headline?: string; extra?: boolean } = {}): string {
  const accent = o.accent ?? '#1e40af';
  const cards = ['Dashboards', 'Reports', 'Alerts'].map((t) =>
    `<div style="border:1px solid #d1d5db;border-radius:12px;padding:24px"><h3 style="margin:0 0 8px;color:${accent}">${t}</h3>` +
    `<p style="color:#4b5563">${'Everything you need, nothing you do not. '.repeat(3)}</p></div>`).join('');
  return `<!doctype html><html><body style="margin:0;font-family:sans-serif;background:${o.bg ?? '#fff'}">
    <header style="background:${accent};color:#fff;padding:24px 48px;font-size:28px">Acme Analytics</header>
    <section style="padding:48px;display:flex;gap:32px;align-items:center"><div style="flex:1">
      <h1 style="font-size:40px;margin:0 0 16px">${o.headline ?? 'Insights that move your business'}</h1>
      <p style="font-size:18px;line-height:1.6;color:#374151">${'We turn raw data into clear decisions for teams of every size. '.repeat(4)}</p>
      <button style="background:${accent};color:#fff;border:0;padding:14px 28px;font-size:18px;border-radius:8px">Start free trial</button>
    </div><div style="width:420px;height:280px;background:#e5e7eb;border-radius:12px"></div></section>
    <section style="padding:0 48px 48px;display:grid;grid-template-columns:repeat(3,1fr);gap:24px">${cards}</section>
    ${o.extra ? `<section style="padding:48px;background:#f3f4f6"><h2>Pricing</h2><p>${'Simple plans for everyone. '.repeat(20)}</p><div style="height:600px"></div></section>` : ''}
    <footer style="background:#111827;color:#9ca3af;padding:24px 48px">© 2024 Acme</footer></body></html>`;
}

const UNRELATED = `<!doctype html><html><body style="margin:0;background:#0f172a;color:#e2e8f0;font-family:serif">
  <div style="display:flex"><nav style="width:260px;height:1000px;background:#f59e0b"></nav><main style="padding:64px">
  <h1 style="font-size:72px;margin:0">PORTFOLIO</h1><div style="display:grid;grid-template-columns:1fr 1fr;gap:8px;margin-top:40px">
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
      textChange: site({ headline: 'Insights that grow your business' }),
      recoloured: site({ accent: '#b91c1c' }),
      recolouredTinted: site({ accent: '#15803d', bg: '#fefce8' }),
      taller: site({ extra: true }),
      blank: '<p></p>',
      unrelated: UNRELATED,
    };
    await Promise.all(Object.entries(pages).map(async ([k, html]) => { shots[k] = await pool.renderHtml(html); }));
    for (const k of Object.keys(pages)) {
      if (k === 'reference') continue;
      const parts = imageSimilarityParts(shots.reference, shots[k]);
      score[k] = parts.score;
      console.log(`similarity reference vs ${k}: ${parts.score.toFixed(3)} (structure ${parts.structure.toFixed(3)}, ` +
        `palette ${parts.palette.toFixed(3)}, plain SSIM ${parts.plainSsim.toFixed(3)})`);
    }
  });
  afterAll(async () => { await pool.close(); });

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
      req.on('data', (c) => { raw += c; });
      req.on('end', () => {
        const body = JSON.parse(raw);
        received.push({ url: req.url, method: req.method, headers: req.headers, body });
        if (body.model === 'broken') { res.writeHead(500, { 'content-type': 'application/json' }); res.end('{"error":"boom"}'); return; }
        const url = body.messages?.[0]?.content?.[0]?.image_url?.url ?? '';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', model: body.model, data: [{ object: 'embedding', index: 0, embedding: vectorFor(url) }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => { await new Promise((resolve) => server.close(resolve)); });

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
    const sent = received.map((r) => Buffer.from(r.body.messages[0].content[0].image_url.url.replace(/^data:image\/png;base64,/, ''), 'base64'));
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
    await expect(embeddingSimilarity({ baseUrl, model: 'clip', apiKeyEnv: 'TEST_CLIP_MISSING' }, pngA, pngB))
      .rejects.toThrow(/TEST_CLIP_MISSING \(apiKeyEnv\) is not set/);
    await expect(embeddingSimilarity({ baseUrl, model: 'broken' }, pngA, pngB)).rejects.toThrow(/HTTP 500/);
  });
});
