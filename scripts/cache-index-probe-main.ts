// A new process that opens a request cache index (activities/llm/journal-index.ts) and looks keys up in it: what every
// worker that starts on a host with a large cache pays. argv: the index file, the entries it holds (keys are
// benchKey(0 … entries-1)), lookups of each kind. Prints one JSON line of figures (bench-cache-index.ts).
import { IndexUse } from '../activities/llm/journal-index';
import { benchKey, type ProbeFigures, rssNow } from './bench-cache-index';

const [file, entries, lookups] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const before = rssNow();
const t0 = performance.now();
const use = new IndexUse(file);
const index = await use.get();
const openMs = performance.now() - t0;
const sinceStartMs = performance.now(); // from the process's start
const opened = rssNow();

/** µs per lookup of `lookups` keys benchKey(pick()), keys made outside the timed part in slices. */
function timeLookups(pick: () => number, expectFound: boolean): number {
  let ns = 0n;
  for (let done = 0; done < lookups; done += 1000) {
    const keys = Array.from({ length: Math.min(1000, lookups - done) }, () => benchKey(pick()));
    const t = process.hrtime.bigint();
    for (const k of keys)
      if ((index.find(k) !== undefined) !== expectFound)
        throw new Error(`bench cache-index: ${k} wrongly ${expectFound ? 'missing' : 'found'}`);
    ns += process.hrtime.bigint() - t;
  }
  return Number(ns) / 1000 / lookups;
}

const hitUs = timeLookups(() => Math.floor(Math.random() * entries), true);
const missUs = timeLookups(() => entries + Math.floor(Math.random() * entries), false);
const figures: ProbeFigures = { before, opened, looked: rssNow(), openMs, sinceStartMs, hitUs, missUs };
await use.release();
console.log(JSON.stringify(figures));
