// The request caches' index (activities/llm/journal-index.ts: SQLite, shared by a host's processes) at the size of a
// large cache: N entries written as workers write them (batches of lines in random key order, keys as the caches make
// them), then a NEW process opens the file and looks keys up (cache-index-probe-main.ts): its start, its memory,
// and the µs of a hit and of a miss. What an in-memory index cost instead: ~200 bytes of heap per key in every
// process, and a read of every journal at its start.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { IndexUse } from '../activities/llm/journal-index';
import type { JournalLine } from '../activities/llm/journal-format';
import { nodeScriptArgv, PROJECT_ROOT } from '../activities/subprocess/node-script';

export const DEFAULT_ENTRIES = 10_000_000;
const LOOKUPS = 20_000;
/** Lines per recorded batch, and batches in flight: what a busy host's workers hand the index. */
const BATCH = 1_000;
const IN_FLIGHT = 4;
/** A journal per 100,000 answers, an answer line of ~1 KB. */
const PER_JOURNAL = 100_000;
const LINE = 1_000;

/** The key of entry `i`, made as the caches make keys (sha256 hex). */
export const benchKey = (i: number) => createHash('sha256').update(`bench-${i}`).digest('hex');

/** This process's resident memory (MiB): in all, its own (anonymous), and mapped files' pages (its code and libraries,
 *  shared with every process that maps them, and given back under memory pressure). */
export interface Rss {
  total: number;
  anon: number;
  file: number;
}

export function rssNow(): Rss {
  const status = readFileSync('/proc/self/status', 'utf8');
  const mib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0) / 1024;
  return { total: mib('VmRSS'), anon: mib('RssAnon'), file: mib('RssFile') };
}

export interface ProbeFigures {
  before: Rss;
  opened: Rss;
  looked: Rss;
  openMs: number;
  sinceStartMs: number;
  hitUs: number;
  missUs: number;
}

export async function benchCacheIndex(entries = DEFAULT_ENTRIES): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-bench-index-'));
  const file = path.join(dir, 'index.sqlite');
  try {
    const use = new IndexUse(file);
    const index = await use.get();
    const t0 = performance.now();
    const inFlight = new Set<Promise<void>>();
    for (let first = 0; first < entries; first += BATCH) {
      const lines: JournalLine[] = [];
      const last = Math.min(entries, first + BATCH);
      for (let i = first; i < last; i++) lines.push([benchKey(i), (i % PER_JOURNAL) * LINE, LINE - 1]);
      const journal = `journal-bench-${Math.floor(first / PER_JOURNAL)}.jsonl`;
      const commit = index.record(journal, lines, (first % PER_JOURNAL) * LINE, ((last - 1) % PER_JOURNAL) * LINE + LINE);
      inFlight.add(commit);
      void commit.finally(() => inFlight.delete(commit));
      if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    await use.release(); // closed: the file as a new process finds it
    const buildS = (performance.now() - t0) / 1000;
    const bytes = statSync(file).size;

    const [cmd, args] = nodeScriptArgv('scripts/cache-index-probe-main.ts', [file, String(entries), String(LOOKUPS)]);
    const { stdout } = await execa(cmd, args, { cwd: PROJECT_ROOT });
    const p = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ProbeFigures;
    const rss = (r: Rss) => `${r.total.toFixed(0)} MiB (own ${r.anon.toFixed(0)}, mapped files ${r.file.toFixed(0)})`;
    const n = entries.toLocaleString('en-US');
    console.log(`\ncache-index — the request cache's index (SQLite) with ${n} entries, then a new process that opens it`);
    console.log(
      `  build                    ${buildS.toFixed(1)} s (${((buildS * 1e6) / entries).toFixed(1)} µs per entry, batches of ${BATCH}, ${IN_FLIGHT} in flight)`,
    );
    console.log(`  index on disk            ${(bytes / 2 ** 20).toFixed(0)} MiB (${(bytes / entries).toFixed(0)} bytes per entry)`);
    console.log(
      `  new process: open        ${p.openMs.toFixed(1)} ms (SQLite loaded and the file opened; ${p.sinceStartMs.toFixed(0)} ms after the process started)`,
    );
    console.log(`  new process: RSS         before opening ${rss(p.before)}`);
    console.log(`                           opened         ${rss(p.opened)}   target ≤ 300 MB per process at 10 M entries`);
    console.log(`                           after lookups  ${rss(p.looked)}`);
    console.log(
      `  lookup                   hit ${p.hitUs.toFixed(2)} µs, miss ${p.missUs.toFixed(2)} µs (${LOOKUPS.toLocaleString('en-US')} random keys each)`,
    );
    console.log("  (own: the process's memory, SQLite's page cache of the index among it; mapped files: its code and libraries —");
    console.log('  SQLite reads the index with read(), the kernel keeps its pages in the page cache, not in the process)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
