// Renders HTML to PNG in real headless Chromium: one browser per worker process, a few reused pages, no network.
//
// Why it looks like this (measured on this machine kind, 2 cores; measured on this machine class
// and scripts/bench-render.ts):
// - Opening a page costs ~270 ms, rendering on an open page ~45 ms, so pages are kept and reused.
// - Reusing a page with `setContent` is only safe for markup that cannot run script. `document.open()` keeps the
//   window: globals and timers of the previous page survive into the next one, and a second page declaring the same
//   top-level `const` (every draft of the same generated site does) dies with "Identifier 'x' has already been
//   declared". So a page that can run script (SCRIPT_VECTORS), or any page rendered where script ran before, is
//   loaded by a real navigation to a fresh origin (http://r<n>.render.invalid/, answered from memory): new window,
//   new storage, the normal parser path (like the file:// loads ColBench renders). That costs ~60 ms more per
//   render (bench: ~47 vs ~106 ms one at a time), so static markup takes the fast path: setContent into the page's
//   current, script-free document. (The feasibility doc's "reuse pages, 5x faster" holds for static markup only.)
// - The screenshot is taken with CDP `Page.captureScreenshot` (optimizeForSpeed) rather than page.screenshot:
//   ~30 ms instead of ~45 ms for the same pixels (the PNG is bigger: faster zlib setting).
// - Network: every request that is not data:/about:/blob: (or a configured asset: `assets`, `serve`) is aborted at the
//   context level and WebSockets are closed unconnected. Prefetch, sendBeacon and preconnect bypass Playwright's
//   interception (measured), so Chromium's host resolver also maps every host, IP literals included, to NOTFOUND:
//   nothing leaves the browser even when a request escapes interception.
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page, type Route } from 'playwright-core';

/** Launch flags (measured on this machine class) plus the resolver rule that makes the no-network guarantee hold. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox', // root in a container: Chromium's sandbox needs user namespaces we do not have
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND',
];
// The fresh --user-data-dir: Playwright's launch() creates a new temporary profile directory for every browser
// (it refuses a --user-data-dir argument) and deletes it on close and on process exit.

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** A response served from memory instead of the network, e.g. a vendored Tailwind build for ColBench pages. */
export interface Asset {
  contentType: string;
  body: string | Buffer;
}

export interface BrowserPoolOptions {
  /** Default: $CHROMIUM_PATH or /usr/bin/chromium. Playwright never downloads a browser here. */
  executablePath?: string;
  /** Pages kept open = renders in flight at once. Default 2 (this machine kind has 2 cores). */
  pages?: number;
  /** Relaunch the browser after this many renders, to bound memory growth. Default 500. */
  restartAfterRenders?: number;
  /** Close the browser after this long without renders (it keeps the event loop alive). Default 60 s; 0 = never. */
  idleCloseMs?: number;
  launchTimeoutMs?: number;
  /** Exact URL → in-memory response. Everything else outside data:/about:/blob: is aborted. */
  assets?: Record<string, Asset>;
  /** In-memory responses for URL patterns, asked after `assets` (e.g. picture URLs of any size). */
  serve?: (url: string) => Asset | undefined;
}

export interface RenderOptions {
  /** Viewport in CSS pixels; the PNG is this wide. Default 1280 × 800. */
  width?: number;
  height?: number;
  /** Capture the whole page height (at least the viewport height, at most maxHeight). Default true. */
  fullPage?: boolean;
  /** Longer pages are cut here: bounds PNG size and decode memory. Default 8192. */
  maxHeight?: number;
  /** Budget for loading + capturing once a page is assigned (not the wait for a free page). Default 15 s. */
  timeoutMs?: number;
}

export interface PoolStats {
  launches: number;
  /** Pages Chromium reports as opened in our contexts (counted from the browser's own events). */
  pagesOpened: number;
  pagesDiscarded: number;
  renders: number;
  /** Renders that needed a fresh document (markup that can run script, or a page where script ran). */
  navigations: number;
  timeouts: number;
  failures: number;
}

/** The page never settled (an endless script, a huge layout): it was discarded and will be replaced. */
export class RenderTimeoutError extends Error {
  override name = 'RenderTimeoutError';
}
/** The page crashed or the browser died while rendering. */
export class RenderError extends Error {
  override name = 'RenderError';
  /** The whole browser was gone (crashed or killed), not just this page. */
  readonly browserDied: boolean;
  constructor(message: string, opts: { cause?: unknown; browserDied?: boolean } = {}) {
    super(message, { cause: opts.cause });
    this.browserDied = opts.browserDied ?? false;
  }
}
/** Chromium could not be started: an environment problem, not the page's fault. */
export class BrowserLaunchError extends Error {
  override name = 'BrowserLaunchError';
}

const LOCAL_URL = /^(data|about|blob):/i;
/**
 * Markup through which a page can run script in our window: scripts, event-handler attributes, javascript: URLs,
 * frames (srcdoc is same-origin), meta refresh. Deliberately broad: a false positive only costs a navigation.
 */
const SCRIPT_VECTORS = /<script|<iframe|<frame|<object|<embed|<meta[^>]*refresh|[\s"'/]on[a-z]+\s*=|javascript:/i;
const DOCUMENT_URL = /^http:\/\/r\d+\.render\.invalid\/$/;
const OPEN_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 5_000;

/** One launched browser and its single context. Retired generations finish their in-flight renders, then close. */
interface Generation {
  browser: Browser;
  context: BrowserContext;
  renders: number;
  busy: number;
  retired: boolean;
  dead: boolean;
}

interface PooledPage {
  gen: Generation;
  page: Page;
  cdp: CDPSession;
  width: number;
  height: number;
  crashed: boolean;
  /** Script may have run in the current document: the next render needs a fresh one. */
  dirty: boolean;
}

/** Waits in FIFO order for one of `size` slots. */
class Slots {
  private free: number;
  private waiters: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

const errorText = (e: unknown) => (e instanceof Error ? e.message.split('\n')[0] : String(e));

export class BrowserPool {
  private readonly executablePath: string;
  private readonly size: number;
  private readonly restartAfter: number;
  private readonly idleCloseMs: number;
  private readonly launchTimeoutMs: number;
  private readonly assets: Map<string, Asset>;
  private readonly serve: (url: string) => Asset | undefined;
  private readonly slots: Slots;
  /** Navigation URL → markup, for the route handler to answer a fresh-document load. */
  private readonly documents = new Map<string, string>();
  private current: Generation | undefined;
  private launching: Promise<Generation> | undefined;
  private idle: PooledPage[] = [];
  private documentSeq = 0;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly counters: PoolStats = {
    launches: 0,
    pagesOpened: 0,
    pagesDiscarded: 0,
    renders: 0,
    navigations: 0,
    timeouts: 0,
    failures: 0,
  };

  constructor(opts: BrowserPoolOptions = {}) {
    this.executablePath = opts.executablePath ?? process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;
    this.size = Math.max(1, opts.pages ?? 2);
    this.restartAfter = Math.max(1, opts.restartAfterRenders ?? 500);
    this.idleCloseMs = opts.idleCloseMs ?? 60_000;
    this.launchTimeoutMs = opts.launchTimeoutMs ?? 30_000;
    this.assets = new Map(Object.entries(opts.assets ?? {}));
    this.serve = opts.serve ?? (() => undefined);
    this.slots = new Slots(this.size);
  }

  stats(): PoolStats {
    return { ...this.counters };
  }

  /** PNG of `html` rendered at the given viewport. Lenient like a browser: broken markup still renders. */
  async renderHtml(html: string, opts: RenderOptions = {}): Promise<Buffer> {
    if (this.closed) throw new Error('BrowserPool is closed');
    const o: Required<RenderOptions> = {
      width: opts.width ?? 1280,
      height: opts.height ?? 800,
      fullPage: opts.fullPage ?? true,
      maxHeight: opts.maxHeight ?? 8192,
      timeoutMs: opts.timeoutMs ?? 15_000,
    };
    if (!(o.width >= 1 && o.height >= 1 && o.width <= 8192 && o.maxHeight >= o.height))
      throw new RangeError(`bad render size ${o.width}x${o.height} (maxHeight ${o.maxHeight})`);
    clearTimeout(this.idleTimer);
    this.inFlight++;
    await this.slots.acquire();
    try {
      try {
        return await this.attempt(html, o);
      } catch (e) {
        // A browser that died before or under this render (crash, OOM, killed) is not this page's verdict yet:
        // one more try on a fresh browser. A page that kills the browser again fails for real.
        if (e instanceof RenderError && e.browserDied) return await this.attempt(html, o);
        throw e;
      }
    } finally {
      this.slots.release();
      this.inFlight--;
      this.armIdleClose();
    }
  }

  private async attempt(html: string, o: Required<RenderOptions>): Promise<Buffer> {
    let slot: PooledPage | undefined;
    try {
      slot = await this.takePage();
      slot.gen.busy++;
      const png = await withTimeout(
        this.renderOn(slot, html, o),
        o.timeoutMs,
        () =>
          new RenderTimeoutError(
            `render timed out after ${o.timeoutMs} ms: the page never settled (endless script or layout?); ` +
              'the page was discarded and will be replaced',
          ),
      );
      this.counters.renders++;
      this.giveBack(slot);
      return png;
    } catch (e) {
      if (e instanceof RenderTimeoutError) this.counters.timeouts++;
      else this.counters.failures++;
      if (slot) this.discard(slot);
      if (e instanceof RenderTimeoutError || e instanceof BrowserLaunchError || !slot) throw e;
      const why = slot.crashed ? 'the page crashed' : slot.gen.dead ? 'the browser died' : 'rendering failed';
      throw new RenderError(`${why}: ${errorText(e)}`, { cause: e, browserDied: slot.gen.dead });
    } finally {
      if (slot) this.finishOn(slot.gen);
    }
  }

  /** Closes every browser this pool started. Renders still in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const gens = new Set<Generation>(this.idle.map((p) => p.gen));
    if (this.current) gens.add(this.current);
    const launching = this.launching;
    this.current = undefined;
    this.idle = [];
    if (launching)
      await launching.then(
        (g) => gens.add(g),
        () => undefined,
      );
    await Promise.all([...gens].map((g) => this.closeGeneration(g)));
  }

  private async renderOn(slot: PooledPage, html: string, o: Required<RenderOptions>): Promise<Buffer> {
    const { page, cdp } = slot;
    if (slot.width !== o.width || slot.height !== o.height) {
      await page.setViewportSize({ width: o.width, height: o.height });
      slot.width = o.width;
      slot.height = o.height;
    }
    const scripted = SCRIPT_VECTORS.test(html);
    if (scripted || slot.dirty) {
      // Fresh window, fresh origin (so fresh storage): the route handler answers this URL with `html`.
      slot.dirty = true;
      this.counters.navigations++;
      const url = `http://r${++this.documentSeq}.render.invalid/`;
      this.documents.set(url, html);
      try {
        await page.goto(url, { waitUntil: 'load', timeout: o.timeoutMs });
      } finally {
        this.documents.delete(url);
      }
      slot.dirty = scripted;
    } else {
      // document.write into the current, script-free document; 'load' = images/fonts of the markup settled.
      await page.setContent(html, { waitUntil: 'load', timeout: o.timeoutMs });
    }
    // Web fonts (data: URLs are allowed) may still be decoding after load; the screenshot must not race them.
    await cdp.send('Runtime.evaluate', {
      expression: 'document.fonts ? document.fonts.ready.then(() => null) : null',
      awaitPromise: true,
    });
    let height = o.height;
    if (o.fullPage) {
      // Layout metrics come from the browser, not from page JS (which could lie or be broken).
      const metrics = await cdp.send('Page.getLayoutMetrics');
      const content = Math.ceil(metrics.cssContentSize?.height ?? 0);
      height = Math.min(o.maxHeight, Math.max(o.height, Number.isFinite(content) ? content : 0));
    }
    const shot = await cdp.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: height > o.height, // paints below the fold without resizing: 100vh stays o.height
      clip: { x: 0, y: 0, width: o.width, height, scale: 1 },
      // Not in playwright-core's protocol.d.ts but honoured by Chromium: faster zlib settings for the PNG.
      ...({ optimizeForSpeed: true } as object),
    });
    return Buffer.from(shot.data, 'base64');
  }

  private async takePage(): Promise<PooledPage> {
    while (this.idle.length > 0) {
      const slot = this.idle.shift()!;
      if (!slot.crashed && !slot.gen.dead && !slot.gen.retired) return slot;
      this.discard(slot);
    }
    return this.openPage(await this.generation());
  }

  private giveBack(slot: PooledPage): void {
    slot.gen.renders++;
    if (slot.gen.renders >= this.restartAfter) this.retire(slot.gen);
    if (slot.gen.retired || this.closed) this.discard(slot);
    else this.idle.push(slot);
  }

  private async openPage(gen: Generation): Promise<PooledPage> {
    const page = await gen.context.newPage();
    try {
      const viewport = page.viewportSize();
      const slot: PooledPage = {
        gen,
        page,
        cdp: await withTimeout(gen.context.newCDPSession(page), OPEN_TIMEOUT_MS, () => new Error('CDP attach timed out')),
        width: viewport?.width ?? 0,
        height: viewport?.height ?? 0,
        crashed: false,
        dirty: false,
      };
      page.on('crash', () => {
        slot.crashed = true;
      });
      // Popups (window.open, target=_blank) would pile up as pages nobody renders: close them at once.
      page.on('popup', (p) => {
        p.close().catch(() => undefined);
      });
      return slot;
    } catch (e) {
      await page.close().catch(() => undefined);
      throw e;
    }
  }

  /** Closes a page that timed out, crashed or belongs to a retired browser; never waits on it. */
  private discard(slot: PooledPage): void {
    this.counters.pagesDiscarded++;
    const gen = slot.gen;
    if (gen.dead) return;
    withTimeout(slot.page.close({ runBeforeUnload: false }), CLOSE_TIMEOUT_MS, () => new Error('page.close timed out')).catch(() => {
      // A renderer that ignores close is beyond saving: replace the whole browser.
      this.retire(gen);
    });
  }

  private finishOn(gen: Generation): void {
    gen.busy--;
    if (gen.retired && gen.busy === 0) void this.closeGeneration(gen);
  }

  private retire(gen: Generation): void {
    gen.retired = true;
    if (this.current === gen) this.current = undefined;
    this.idle = this.idle.filter((p) => {
      if (p.gen !== gen) return true;
      this.counters.pagesDiscarded++;
      return false;
    });
    if (gen.busy === 0) void this.closeGeneration(gen);
  }

  private async closeGeneration(gen: Generation): Promise<void> {
    gen.retired = true;
    if (this.current === gen) this.current = undefined;
    // browser.close() falls back to SIGKILL of Chromium's process group when the browser does not answer.
    await gen.browser.close().catch(() => undefined);
  }

  private armIdleClose(): void {
    if (this.idleCloseMs <= 0 || this.inFlight > 0 || this.closed) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inFlight === 0 && this.current) this.retire(this.current);
    }, this.idleCloseMs);
    this.idleTimer.unref();
  }

  private async generation(): Promise<Generation> {
    if (this.current && !this.current.dead && !this.current.retired) return this.current;
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Generation> {
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: this.executablePath,
        headless: true,
        args: [...CHROMIUM_ARGS],
        timeout: this.launchTimeoutMs,
        // Signals belong to the Temporal worker's graceful shutdown. Playwright still kills Chromium's process group
        // on process 'exit', and Chromium exits by itself when its CDP pipe to this process closes.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (e) {
      throw new BrowserLaunchError(
        `could not launch Chromium at ${this.executablePath} (install it with \`apt-get install -y chromium\`, ` +
          `or set CHROMIUM_PATH): ${errorText(e)}`,
        { cause: e },
      );
    }
    this.counters.launches++;
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      serviceWorkers: 'block',
      acceptDownloads: false,
      // Same pixels on every machine: no locale/time zone/dark-mode dependence.
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
    });
    const gen: Generation = { browser, context, renders: 0, busy: 0, retired: false, dead: false };
    browser.on('disconnected', () => {
      gen.dead = true;
      if (this.current === gen) this.current = undefined;
    });
    context.on('page', () => {
      this.counters.pagesOpened++;
    });
    await context.route('**/*', (route) => this.routeRequest(route));
    await context.routeWebSocket(/.*/, (ws) => {
      ws.close().catch(() => undefined);
    });
    if (this.closed) {
      await browser.close().catch(() => undefined);
      throw new Error('BrowserPool is closed');
    }
    this.current = gen;
    return gen;
  }

  private routeRequest(route: Route): Promise<void> {
    const request = route.request();
    const url = request.url();
    let answer: Promise<void>;
    const asset = this.assets.get(url) ?? this.serve(url);
    const document = DOCUMENT_URL.test(url) && request.isNavigationRequest() ? this.documents.get(url) : undefined;
    if (asset) answer = route.fulfill({ status: 200, contentType: asset.contentType, body: asset.body });
    else if (document !== undefined) answer = route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: document });
    else if (LOCAL_URL.test(url)) answer = route.continue();
    else answer = route.abort('blockedbyclient');
    // The page may be gone by the time we answer (discarded after a timeout): nothing to do then.
    return answer.catch(() => undefined);
  }
}

let shared: BrowserPool | undefined;

/** The worker process's pool (one Chromium per process). Options apply on first use only. */
export function sharedBrowserPool(opts?: BrowserPoolOptions): BrowserPool {
  shared ??= new BrowserPool(opts);
  return shared;
}

/** For worker shutdown: the open browser would otherwise keep the process alive until idleCloseMs. */
export async function closeSharedBrowserPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
