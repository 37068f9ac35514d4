// The request cache on one machine: answers appended to a journal per process, indexed in one file every process of
// the machine shares (index.sqlite). What a user relies on: an answer acknowledged by one process is found by any other
// (a restarted worker, a second worker), even when the writer was SIGKILLed mid-run, and a process that starts reads
// the journals only past where they are indexed; a torn line costs only a miss; caches written before the index
// (journals only) or before journals (a file per answer) still answer.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { JournalRequestCache } from '../../../../activities/llm/journal-cache';
import { journalLine } from '../../../../activities/llm/journal-format';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { tempStateDir } from '../../../helpers/config';
import { ackedBeforeKill } from '../../../helpers/killed-writer';

const answer = (n: number) => ({ texts: [`answer ${n}`], finishReasons: ['stop'], usage: { promptTokens: n, completionTokens: 1 } });
const journals = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('journal-'));

/** Rewrites `key`'s line in a journal as another key's line of the same length: what a reader re-reading that part of
 *  the journal would find under `other`, and what the index no longer finds under `key`. */
function relabel(file: string, key: string, other: string): void {
  const text = readFileSync(file, 'utf8');
  expect(other).toHaveLength(key.length);
  expect(text).toContain(`{"k":"${key}"`);
  writeFileSync(file, text.replace(`{"k":"${key}"`, `{"k":"${other}"`));
}

/** Looks `keys` up in another process (tests/fixtures/cache-lookup.ts): key → promptTokens, or null for a miss. */
async function lookUpElsewhere(dir: string, keys: string[]): Promise<Record<string, number | null>> {
  const { stdout } = await execa(process.execPath, ['--import', 'tsx', 'tests/fixtures/cache-lookup.ts', dir, ...keys], {
    cwd: PROJECT_ROOT,
  });
  return JSON.parse(stdout);
}

describe('journal request cache', () => {
  it("finds another process's answers, including those written after it first looked", async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const writer = new JournalRequestCache(dir);
    const reader = new JournalRequestCache(dir);
    await Promise.all([0, 1, 2].map((n) => writer.put(`k${n}`, answer(n))));
    expect(await reader.get('k1')).toEqual(answer(1));
    expect(await reader.get('missing')).toBeUndefined();
    await writer.put('k3', answer(3));
    expect(await reader.get('k3')).toEqual(answer(3));
    expect(await writer.get('k0')).toEqual(answer(0)); // its own, from its index
    expect(journals(dir)).toHaveLength(1); // only the writer wrote
    await Promise.all([writer.close(), reader.close()]);
  });

  it('a new process finds answers from the index and reads only what the journals hold past it', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const writer = new JournalRequestCache(dir);
    await Promise.all(Array.from({ length: 10 }, (_, n) => writer.put(`k${n}`, answer(n))));
    await writer.close(); // its index commits are in
    const [journal] = journals(dir).map((f) => path.join(dir, f));
    relabel(journal, 'k5', 'x5');
    // What a process killed between its journal write and its index commit leaves: a line past the indexed offset.
    appendFileSync(journal, journalLine('k10', answer(10)));
    expect(await lookUpElsewhere(dir, ['k0', 'k9', 'k10', 'k5', 'x5', 'missing'])).toEqual({
      k0: 0,
      k9: 9,
      k10: 10,
      k5: null, // its line now holds another key: a miss, never that key's answer
      x5: null, // the indexed part of the journal was not read again
      missing: null,
    });
  }, 60_000);

  it('every answer a SIGKILLed writer acknowledged is found; a torn last line is a miss', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const acked = await ackedBeforeKill(dir, 2000);
    const journal = journals(dir)[0];
    appendFileSync(path.join(dir, journal), '{"k":"torn","a":{"texts":["par'); // what a power loss leaves
    const reader = new JournalRequestCache(dir);
    const found = await Promise.all(acked.map(async (n) => (await reader.get(`w-${n}`))?.usage.promptTokens));
    expect(found).toEqual(acked);
    expect(await reader.get('torn')).toBeUndefined();
    await reader.close();
  }, 90_000);

  it('journals written before the index are indexed once, and the index is kept for the next process', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    mkdirSync(dir, { recursive: true });
    const old = ['journal-old-1-aa.jsonl', 'journal-old-2-bb.jsonl'].map((f) => path.join(dir, f));
    writeFileSync(old[0], [1, 2, 3].map((n) => journalLine(`o${n}`, answer(n))).join(''));
    writeFileSync(old[1], `${journalLine('o4', answer(4))}{"k":"o5","a":{"te`); // ends in a torn line
    const first = new JournalRequestCache(dir);
    expect(await first.get('o2')).toEqual(answer(2));
    expect(await first.get('o4')).toEqual(answer(4));
    expect(await first.get('o5')).toBeUndefined();
    expect((await first.keys()).sort()).toEqual(['o1', 'o2', 'o3', 'o4']);
    await first.close();
    expect(existsSync(path.join(dir, 'index.sqlite'))).toBe(true);

    relabel(old[0], 'o1', 'p1');
    const next = new JournalRequestCache(dir);
    expect(await next.get('o3')).toEqual(answer(3));
    expect(await next.get('p1')).toBeUndefined(); // from the index kept on disk, not from reading the journal again
    await next.close();
  });

  it('a journal removed under us is a miss', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const writer = new JournalRequestCache(dir);
    await writer.put('k1', answer(1));
    await writer.close();
    for (const f of journals(dir)) rmSync(path.join(dir, f));
    const reader = new JournalRequestCache(dir);
    expect(await reader.get('k1')).toBeUndefined();
    await reader.close();
  });

  it('an index that cannot be opened fails lookups with one clear error; answers are still written', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    mkdirSync(path.join(dir, 'index.sqlite'), { recursive: true }); // not a file SQLite can open
    const cache = new JournalRequestCache(dir);
    await cache.put('k1', answer(1));
    await expect(cache.get('k1')).rejects.toThrow(/request cache index .*index\.sqlite cannot be opened .*Deleting the file .*is safe/);
    rmSync(path.join(dir, 'index.sqlite'), { recursive: true });
    expect(await cache.get('k1')).toEqual(answer(1)); // the next lookup opens it, and indexes the journal
    await cache.close();
  });

  it('answers cached one file per answer (before journals) are still found', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const key = 'ab'.padEnd(64, '0');
    mkdirSync(path.join(dir, 'ab'), { recursive: true });
    writeFileSync(path.join(dir, 'ab', `${key}.json`), JSON.stringify(answer(7)));
    expect(await requestCacheFor({ stateDir: path.dirname(dir) }).get(key)).toEqual(answer(7));
  });
});
