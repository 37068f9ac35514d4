// The pool's browser lifecycle with real Chromium: relaunch after N renders, after a crash (we SIGKILL the browser
// this test process started — found through /proc as our own child, never by name) and after an idle period.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BrowserPool } from '../../../../activities/render/browser-pool';

/** Live Chromium browser processes whose parent is this test process (Playwright spawns them directly). */
function ourChromiums(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('chromium')) pids.push(Number(entry));
    } catch {
      // the process went away while we looked
    }
  }
  return pids;
}

/** Polls until `check` holds. The bound only turns a hang into a clear failure: it is no claim about speed. */
async function eventually(check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('BrowserPool lifecycle (real Chromium)', () => {
  it('relaunches the browser after restartAfterRenders renders and closes the old one', async () => {
    const pool = new BrowserPool({ pages: 1, restartAfterRenders: 3 });
    try {
      for (let i = 0; i < 5; i++) await pool.renderHtml(`<p>render ${i}</p>`);
      expect(pool.stats().launches).toBe(2);
      await eventually(() => ourChromiums().length === 1);
    } finally {
      await pool.close();
    }
    await eventually(() => ourChromiums().length === 0);
  });

  it('survives a crashed browser: the next render launches a new one', async () => {
    const pool = new BrowserPool({ pages: 1 });
    try {
      await pool.renderHtml('<p>before</p>');
      const [pid] = ourChromiums();
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, 'SIGKILL');
      await eventually(() => !ourChromiums().includes(pid));
      const png = await pool.renderHtml('<p>after</p>');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(pool.stats().launches).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('closes an idle browser (so the process can exit) and relaunches on demand', async () => {
    const pool = new BrowserPool({ pages: 1, idleCloseMs: 300 });
    try {
      await pool.renderHtml('<p>one</p>');
      await eventually(() => ourChromiums().length === 0);
      await pool.renderHtml('<p>two</p>');
      expect(pool.stats().launches).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
