// Generated pages in the seed's style (Tailwind from a CDN, picsum.photos pictures) against real headless Chromium:
// styled from the vendored build, pictures at their asked size, and still not one request leaves the browser.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool, closeSharedBrowserPool } from '../../../../activities/render/browser-pool';
import { renderWebPage, webPageAsset } from '../../../../activities/render/page-renderer';
import { picsumPlaceholder } from '../../../../activities/render/picsum-placeholder';
import { watchConnections, type ConnectionWatch } from '../../../helpers/connections';
import { pixel, share } from '../../../helpers/pixels';

const TAILWIND_RED_500 = [0xef, 0x44, 0x44];
const WHITE = [255, 255, 255];

/** The placeholder's fill for a picsum URL, read from the SVG the renderer serves. */
function fillOf(url: string): number[] {
  const hex = /fill="#([0-9a-f]{6})"/.exec(String(picsumPlaceholder(url)?.body))![1];
  return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
}

/** A Tailwind page: a 128 px bg-red-500 square, then a 200×100 picture (Tailwind makes images blocks). */
const seedStylePage = (loadTailwind: string, extraHead = '') =>
  `<html><head>${loadTailwind}${extraHead}</head><body>` +
  '<div class="bg-red-500 w-32 h-32"></div><img src="https://picsum.photos/200/100"></body></html>';

describe('generated pages render as the seed renders them (real Chromium)', () => {
  let server: http.Server;
  let connections: ConnectionWatch;
  const requests: string[] = [];
  let base = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('x');
    });
    connections = watchConnections(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** Renders at 400 × 300 with the worker's page assets, and proves the sentinel server saw no connection. */
  async function renderOffline(html: string): Promise<PNG> {
    const pool = new BrowserPool({ pages: 1, serve: webPageAsset });
    let png: PNG;
    try {
      png = PNG.sync.read(await pool.renderHtml(html, { width: 400, height: 300 }));
    } finally {
      await pool.close(); // the browser's processes have exited: nothing can connect after this
    }
    await connections.settle();
    expect(requests).toEqual([]);
    expect(connections.count()).toBe(0);
    return png;
  }

  it.each([
    [
      'the jsDelivr stylesheet WebSight pages link',
      '<link href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css" rel="stylesheet">',
    ],
    ['the same build by a version range on unpkg', '<link rel="stylesheet" href="https://unpkg.com/tailwindcss@^2/dist/tailwind.css">'],
    [
      'the Play CDN script, with a config assignment',
      '<script src="https://cdn.tailwindcss.com?plugins=forms"></script><script>tailwind.config = {}</script>',
    ],
  ])('styles Tailwind classes loaded by %s, draws the picture at 200×100, and makes no request', async (_name, load) => {
    // The sentinel server stands for the network: the same files asked from a host we do not serve stay blocked.
    const unlisted = `<link rel="stylesheet" href="${base}/npm/tailwindcss@2.2.19/dist/tailwind.min.css"><link rel="icon" href="${base}/200/100">`;
    const png = await renderOffline(seedStylePage(load, unlisted));
    expect([png.width, png.height]).toEqual([400, 300]);
    // Tailwind's preflight zeroes the body margin; w-32 h-32 is 128 × 128 CSS px of red-500 (#ef4444).
    expect(share(png, { x: 0, y: 0, w: 128, h: 128 }, TAILWIND_RED_500, 0)).toBe(1);
    expect(share(png, { x: 128, y: 0, w: 272, h: 128 }, WHITE, 0)).toBe(1);
    const picture = fillOf('https://picsum.photos/200/100');
    expect(share(png, { x: 0, y: 128, w: 200, h: 100 }, picture, 0)).toBe(1);
    expect(share(png, { x: 200, y: 128, w: 200, h: 100 }, WHITE, 0)).toBe(1);
    expect(share(png, { x: 0, y: 228, w: 400, h: 72 }, WHITE, 0)).toBe(1);
  });

  it('leaves unlisted URLs blocked: another Tailwind version, a non-picsum picture, the local server', async () => {
    const html =
      '<html><head><link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/tailwindcss@3.4.1/dist/tailwind.min.css">' +
      `<link rel="stylesheet" href="${base}/theme.css"></head><body style="margin:0">` +
      '<div class="bg-red-500 w-32 h-32" style="min-height:10px"></div>' +
      `<img src="https://images.example.test/200/100" width="200" height="100"><img src="${base}/img.png"></body></html>`;
    const png = await renderOffline(html);
    // Unstyled: the div is a full-width 10 px strip with no background, no red square.
    expect(share(png, { x: 0, y: 0, w: 400, h: 10 }, WHITE, 0)).toBe(1);
    expect(share(png, { x: 0, y: 0, w: 128, h: 128 }, TAILWIND_RED_500, 0)).toBe(0);
    // The unserved picture is a broken image, not the placeholder.
    expect(share(png, { x: 0, y: 10, w: 200, h: 100 }, fillOf('https://picsum.photos/200/100'), 0)).toBe(0);
  });

  it('is what the worker renders with: renderWebPage serves the CDN files through the shared pool', async () => {
    try {
      const png = PNG.sync.read(await renderWebPage(seedStylePage('<script src="https://cdn.tailwindcss.com"></script>')));
      expect(png.width).toBe(1280);
      expect(pixel(png, 64, 64)).toEqual(TAILWIND_RED_500);
      expect(pixel(png, 100, 178)).toEqual(fillOf('https://picsum.photos/id/48/200/100'));
    } finally {
      await closeSharedBrowserPool();
    }
  });
});
