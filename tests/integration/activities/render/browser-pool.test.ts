// The render pool against real headless Chromium (/usr/bin/chromium or $CHROMIUM_PATH): real PNGs, page reuse,
// the network guarantee, hung pages, and isolation between renders. No mocks.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserLaunchError, BrowserPool, RenderTimeoutError } from '../../../../activities/render/browser-pool';
import { watchConnections } from '../../../helpers/connections';
import { pixel, share } from '../../../helpers/pixels';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const GREEN = [0, 128, 0];
const WHITE = [255, 255, 255];

describe('BrowserPool (real Chromium)', () => {
  let pool: BrowserPool;
  beforeAll(() => {
    pool = new BrowserPool({ pages: 2 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('renders a real PNG of the asked size, and a red div is red in the decoded pixels', async () => {
    const buf = await pool.renderHtml(
      '<body style="margin:0"><div style="background:#f00;width:200px;height:100px"></div><p>hello</p></body>',
      { width: 640, height: 480 },
    );
    expect(buf.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    const png = PNG.sync.read(buf);
    expect([png.width, png.height]).toEqual([640, 480]); // short page: full page = the viewport
    expect(share(png, { x: 5, y: 5, w: 190, h: 90 }, RED)).toBe(1);
    expect(share(png, { x: 300, y: 5, w: 300, h: 90 }, WHITE)).toBe(1);
  });

  it('captures the full page height, keeps 100vh at the viewport height, and cuts at maxHeight', async () => {
    const html =
      '<body style="margin:0"><div style="height:100vh;background:#f00"></div>' +
      '<div style="height:1500px;background:#00f"></div></body>';
    const full = PNG.sync.read(await pool.renderHtml(html, { width: 400, height: 300 }));
    expect([full.width, full.height]).toEqual([400, 1800]);
    expect(share(full, { x: 0, y: 0, w: 400, h: 300 }, RED)).toBe(1);
    expect(share(full, { x: 0, y: 300, w: 400, h: 1500 }, BLUE)).toBe(1);
    const viewportOnly = PNG.sync.read(await pool.renderHtml(html, { width: 400, height: 300, fullPage: false }));
    expect([viewportOnly.width, viewportOnly.height]).toEqual([400, 300]);
    const cut = PNG.sync.read(await pool.renderHtml(html, { width: 400, height: 300, maxHeight: 1000 }));
    expect(cut.height).toBe(1000);
  });

  it('renders broken markup (Chromium is lenient)', async () => {
    // The text is transparent: glyphs land wherever the machine's fonts put them, and the box is sampled whole.
    // The abspos box sits at the body's corner whatever margins its unclosed children have.
    const png = PNG.sync.read(
      await pool.renderHtml(
        '<style>body{margin:0;color:transparent}</style>' +
          '<div style="position:absolute;background:#f00;width:50px;height:50px"><p>unclosed <b>bold <table><tr><td>cell</i></span></html><<>',
      ),
    );
    expect(png.width).toBe(1280);
    expect(share(png, { x: 0, y: 0, w: 50, h: 50 }, RED, 0)).toBe(1);
    expect(share(png, { x: 50, y: 0, w: 1230, h: 200 }, WHITE, 0)).toBe(1);
  });

  it('reuses its pages: many renders through a pool of 2 open 2 pages in one browser', async () => {
    const local = new BrowserPool({ pages: 2 });
    try {
      const pages = Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? `<script>const shade = ${i}; document.title = 't' + shade;</script><div style="height:${40 + i}px"></div>`
          : `<div style="background:#00f;height:${40 + i}px">static ${i}</div>`,
      );
      await Promise.all(pages.map((html) => local.renderHtml(html)));
      for (const html of pages.slice(0, 4)) await local.renderHtml(html);
      const stats = local.stats();
      expect(stats.renders).toBe(16);
      expect(stats.launches).toBe(1);
      expect(stats.pagesOpened).toBe(2); // counted from Chromium's own page events
      expect(stats.pagesDiscarded).toBe(0);
    } finally {
      await local.close();
    }
  });

  it('gives every scripted page a fresh window: same top-level const twice, no leaking timers or storage', async () => {
    const local = new BrowserPool({ pages: 1 }); // one page: every render lands on the same tab
    try {
      const draft = (colour: string) => `<body style="margin:0"><div id="box" style="width:100px;height:100px"></div>
        <script>const colour = '${colour}'; document.getElementById('box').style.background = colour;
        localStorage.setItem('visits', String(Number(localStorage.getItem('visits') || 0) + 1));
        if (localStorage.getItem('visits') !== '1') document.getElementById('box').style.background = '#000';</script></body>`;
      expect(pixel(PNG.sync.read(await local.renderHtml(draft('#f00'))), 50, 50)).toEqual(RED);
      // With setContent on a reused window this second draft throws "Identifier 'colour' has already been declared"
      // and the box stays transparent; with shared storage it turns black.
      expect(pixel(PNG.sync.read(await local.renderHtml(draft('#00f'))), 50, 50)).toEqual(BLUE);
      // A page that keeps repainting the body must not reach into the next (static) page.
      await local.renderHtml('<script>setInterval(() => { document.body.style.background = "#f00"; }, 1);</script>');
      const after = PNG.sync.read(await local.renderHtml('<p>static page</p>'));
      expect(share(after, { x: 600, y: 400, w: 100, h: 100 }, WHITE)).toBe(1);
      expect(local.stats().pagesOpened).toBe(1);
    } finally {
      await local.close();
    }
  });

  it('blocks the network: a page referencing a local server by every usual means causes zero connections', async () => {
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('x');
    });
    const connections = watchConnections(server);
    server.on('upgrade', (req, socket) => {
      requests.push(`UPGRADE ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const asset = 'https://cdn.example.test/theme.css';
    const local = new BrowserPool({ pages: 1, assets: { [asset]: { contentType: 'text/css', body: '#ok{background:#008000}' } } });
    try {
      const html = `<html><head>
        <link rel="stylesheet" href="${base}/style.css"><link rel="stylesheet" href="${asset}">
        <link rel="preconnect" href="${base}"><link rel="prefetch" href="${base}/prefetch">
        <style>@font-face{font-family:F;src:url(${base}/font.woff2)} body{font-family:F;background:url(${base}/bg.png)}</style>
        <script src="${base}/script.js"></script></head>
        <body><div id="ok" style="width:60px;height:60px"></div><img src="${base}/img.png"><iframe src="${base}/frame"></iframe>
        <script>
          fetch('${base}/fetch').catch(() => {});
          const xhr = new XMLHttpRequest(); xhr.open('GET', '${base}/xhr'); xhr.send();
          navigator.sendBeacon('${base}/beacon', 'x');
          try { new WebSocket('ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws'); } catch {}
          new EventSource('${base}/sse');
        </script></body></html>`;
      const png = PNG.sync.read(await local.renderHtml(html));
      // Late beacons and sockets: once the browser is gone (close() waits for Chromium's processes to exit), nothing
      // can connect any more, and settle() proves that whatever connected before has been counted.
      await local.close();
      await connections.settle();
      expect(requests).toEqual([]);
      expect(connections.count()).toBe(0);
      expect(pixel(png, 30, 30)).toEqual(GREEN); // the configured in-memory asset is served
    } finally {
      await local.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('times out a page that never settles with a clear error, recycles the page, and renders the next one', async () => {
    const local = new BrowserPool({ pages: 1 });
    try {
      await local.renderHtml('<p>warm</p>');
      const err = await local.renderHtml('<p>loop</p><script>while (true) {}</script>', { timeoutMs: 1500 }).catch((e) => e);
      // The message names the budget that fired (the one given here, not the 15 s default): no wall clock needed.
      expect(err).toBeInstanceOf(RenderTimeoutError);
      expect(err.message).toMatch(/timed out after 1500 ms: the page never settled/);
      const next = PNG.sync.read(await local.renderHtml('<div style="background:#f00;width:40px;height:40px"></div>'));
      expect(pixel(next, 20, 20)).toEqual(RED);
      const stats = local.stats();
      expect(stats.timeouts).toBe(1);
      expect(stats.pagesDiscarded).toBe(1);
      expect(stats.pagesOpened).toBe(2); // the hung page was replaced, not reused
      expect(stats.launches).toBe(1);
    } finally {
      await local.close();
    }
  });

  it('reports a missing Chromium as a launch error', async () => {
    const local = new BrowserPool({ executablePath: '/nonexistent/chromium' });
    await expect(local.renderHtml('<p>x</p>')).rejects.toThrow(BrowserLaunchError);
    await local.close();
  });
});
