// The request caches' index file (index.sqlite): where each key's line is, and how far each journal is indexed, kept
// on disk for the next process. The caches' tests (journal-cache.test.ts, object-journal-cache.test.ts) cover what a
// user sees; this one the index's own promises, on keys as the caches make them (sha256 hex) and as tests write them.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexUse } from '../../../../activities/llm/journal-index';
import { tempStateDir } from '../../../helpers/config';

const hexKey = (n: number) => createHash('sha256').update(String(n)).digest('hex');

describe('request cache index', () => {
  it('keeps every location and indexed offset for the next user of the file', async () => {
    const file = path.join(tempStateDir(), 'llm-cache', 'index.sqlite');
    const first = new IndexUse(file);
    const index = await first.get();
    const big = 2 ** 40 + 7; // a journal past 4 GiB
    await Promise.all([
      index.record(
        'journal-a.jsonl',
        [
          [hexKey(1), 0, 100],
          ['k-2', 101, 50],
        ],
        0,
        152,
      ),
      index.record('journal-b.jsonl', [[hexKey(3), big, 70]], 0, big + 71),
    ]);
    await index.record('journal-a.jsonl', [], 0, 90); // a catch-up that read less never takes the offset back
    await first.release();

    const next = await new IndexUse(file).get();
    expect(next).not.toBe(index); // opened again from the file
    expect(next.find(hexKey(1))).toEqual({ journal: 'journal-a.jsonl', start: 0, length: 100 });
    expect(next.find('k-2')).toEqual({ journal: 'journal-a.jsonl', start: 101, length: 50 });
    expect(next.find(hexKey(3))).toEqual({ journal: 'journal-b.jsonl', start: big, length: 70 });
    expect(next.find(hexKey(4))).toBeUndefined();
    expect(next.indexedTo('journal-a.jsonl')).toBe(152);
    expect(next.indexedTo('journal-b.jsonl')).toBe(big + 71);
    expect(next.indexedTo('journal-c.jsonl')).toBe(0);
    expect(next.keys().sort()).toEqual([hexKey(1), hexKey(3), 'k-2'].sort());
  });

  it('leaves bytes that never reached the index past its indexed offset, for the next catch-up to read', async () => {
    const use = new IndexUse(path.join(tempStateDir(), 'llm-cache', 'index.sqlite'));
    const index = await use.get();
    // The batch of bytes 0…100 was never recorded (the index could not be opened then); the next one was.
    await index.record('journal-a.jsonl', [[hexKey(7), 100, 50]], 100, 151);
    expect(index.find(hexKey(7))).toEqual({ journal: 'journal-a.jsonl', start: 100, length: 50 });
    expect(index.indexedTo('journal-a.jsonl')).toBe(0);
    // The catch-up reads the journal from its indexed offset, 0, and indexes all of it.
    await index.record(
      'journal-a.jsonl',
      [
        [hexKey(6), 0, 99],
        [hexKey(7), 100, 50],
      ],
      0,
      151,
    );
    expect(index.indexedTo('journal-a.jsonl')).toBe(151);
    expect(index.find(hexKey(6))).toEqual({ journal: 'journal-a.jsonl', start: 0, length: 99 });
    await use.release();
  });

  it('finds what this process recorded before it is committed', async () => {
    const use = new IndexUse(path.join(tempStateDir(), 'llm-cache', 'index.sqlite'));
    const index = await use.get();
    const committed = index.record('journal-a.jsonl', [[hexKey(5), 10, 20]], 0, 31);
    expect(index.find(hexKey(5))).toEqual({ journal: 'journal-a.jsonl', start: 10, length: 20 });
    expect(index.indexedTo('journal-a.jsonl')).toBe(31);
    await committed;
    expect(index.find(hexKey(5))).toEqual({ journal: 'journal-a.jsonl', start: 10, length: 20 });
    await use.release();
  });
});
