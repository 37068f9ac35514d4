// Render throughput: the pool (activities/render/browser-pool.ts) against a plain Playwright loop — one browser,
// one page, setContent + page.screenshot, no pool, no routing — in the same run, same Chromium and flags.
// Figures are printed, never asserted. Run: npx tsx scripts/bench-render.ts
//
// The pool's figure is for N renders submitted at once (how a shard activity uses it; the pool runs 2 at a time).
// Sequential pool throughput is printed as well. With `scripted: true` every page carries a <script>: the pool
// then loads each one as a fresh document (a navigation), while the bare loop keeps document.write-ing into one
// window — faster, but wrong as soon as two pages declare the same top-level const.
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { BrowserPool, CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from '../activities/render/browser-pool';

export interface RenderBench {
  poolPerSecond: number;
  barePerSecond: number;
  ratio: number;
  renders: number;
}
export interface RenderBenchOptions {
  renders?: number;
  scripted?: boolean;
  log?: (line: string) => void;
}

function smallPage(i: number, scripted: boolean): string {
  return `<!doctype html><html><body style="margin:0;font-family:sans-serif">
    <header style="background:#1e40af;color:#fff;padding:16px 32px">Card ${i}</header>
    <main style="padding:32px"><h1>Small page ${i}</h1><p>${'Some text for the card body. '.repeat(12)}</p>
    <div style="display:flex;gap:16px">${'<div style="width:120px;height:80px;background:#e5e7eb"></div>'.repeat(4)}</div></main>
    ${scripted ? `<script>const n = ${i}; document.querySelector('h1').textContent += ' #' + n;</script>` : ''}</body></html>`;
}

const perSecond = (n: number, ms: number) => (n * 1000) / ms;

async function bareLoop(pages: string[]): Promise<number> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    for (const html of pages.slice(0, 3)) {
      await page.setContent(html);
      await page.screenshot({ type: 'png', fullPage: true });
    }
    const t0 = performance.now();
    for (const html of pages) {
      await page.setContent(html);
      await page.screenshot({ type: 'png', fullPage: true });
    }
    return performance.now() - t0;
  } finally {
    await browser.close();
  }
}

async function poolRun(pages: string[]): Promise<{ concurrentMs: number; sequentialMs: number; firstMs: number }> {
  const pool = new BrowserPool({ pages: 2 });
  try {
    let t0 = performance.now();
    await pool.renderHtml(pages[0]); // includes the browser launch
    const firstMs = performance.now() - t0;
    await Promise.all(pages.slice(0, 4).map((html) => pool.renderHtml(html))); // both pages open and warm
    t0 = performance.now();
    await Promise.all(pages.map((html) => pool.renderHtml(html)));
    const concurrentMs = performance.now() - t0;
    t0 = performance.now();
    for (const html of pages) await pool.renderHtml(html);
    const sequentialMs = performance.now() - t0;
    return { concurrentMs, sequentialMs, firstMs };
  } finally {
    await pool.close();
  }
}

export async function benchRender(opts: RenderBenchOptions = {}): Promise<RenderBench> {
  const renders = opts.renders ?? 40;
  const scripted = opts.scripted ?? false;
  const log = opts.log ?? (() => undefined);
  const pages = Array.from({ length: renders }, (_, i) => smallPage(i, scripted));
  // Two alternating rounds so that a busy neighbour on the machine hurts both sides alike.
  let bareMs = 0,
    poolMs = 0,
    seqMs = 0,
    firstMs = 0;
  for (let round = 0; round < 2; round++) {
    bareMs += await bareLoop(pages);
    const p = await poolRun(pages);
    poolMs += p.concurrentMs;
    seqMs += p.sequentialMs;
    firstMs = p.firstMs;
  }
  const result: RenderBench = {
    poolPerSecond: perSecond(2 * renders, poolMs),
    barePerSecond: perSecond(2 * renders, bareMs),
    ratio: bareMs / poolMs,
    renders: 2 * renders,
  };
  log(`render bench (${scripted ? 'scripted' : 'static'} small page, 1280x800 full page, ${2 * renders} renders per side)`);
  log(`  bare playwright loop   ${result.barePerSecond.toFixed(1)} renders/s  (${(bareMs / (2 * renders)).toFixed(1)} ms/render)`);
  log(
    `  pool, submitted at once ${result.poolPerSecond.toFixed(1)} renders/s  (${(poolMs / (2 * renders)).toFixed(1)} ms/render)  ratio ${result.ratio.toFixed(2)}`,
  );
  log(
    `  pool, one at a time    ${perSecond(2 * renders, seqMs).toFixed(1)} renders/s  (${(seqMs / (2 * renders)).toFixed(1)} ms/render)  ratio ${(bareMs / seqMs).toFixed(2)}`,
  );
  log(`  pool first render incl. browser launch ${firstMs.toFixed(0)} ms`);
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const log = (line: string) => console.log(line);
  await benchRender({ log });
  await benchRender({ log, scripted: true });
}
