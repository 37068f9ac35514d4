// Where each cached answer is — key → its journal, the line's start and length — for both request caches
// (journal-cache.ts, object-journal-cache.ts), in an LMDB file beside their journals (lmdb-js) that every process of
// the host shares: lookups are B-tree reads in the mapped file (µs, nothing loaded when a process starts, nothing held
// per key in its heap), where an in-memory map cost every worker ~200 bytes per key and a read of every journal.
// The journals stay the durable store of answers; the index may lag them. Each journal's entry says how far it is
// indexed, written in the same transaction as its lines, so lines past that offset — of a process killed between its
// journal write and its index commit, of journals written before the index — are read and indexed by the next miss
// (the caches' catch-up), and only those. Lines recorded here are found at once by this process, while their commit
// runs in lmdb-js's write thread (batched per event-loop turn).
// Commits are synced, overlapping the next ones (lmdb-js's default overlappingSync) rather than skipped with noSync: a
// power loss then leaves the last good transaction, where noSync can leave a torn B-tree that LMDB reads by crashing
// the process (a truncated index file segfaults node on open) — on every worker of the host at every start.
import type { Database, RootDatabase } from 'lmdb';
import { StorageError } from '../storage/storage-error';
import type { JournalLine } from './journal-format';

/** Where an answer's line is: its journal (a file name in the cache's directory, or an object name) and bytes. */
export interface Location {
  journal: string;
  start: number;
  length: number;
}

/** lmdb-js's default largest key (bytes): a longer one is not indexed, so it is a miss (real keys are 33 bytes). */
const MAX_KEY_BYTES = 1978;
/** Address space reserved for the file (not disk or memory): growing past it remaps, and lmdb-js keeps the old maps. */
const MAP_SIZE = 2 ** 34;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A cache key as stored: a sha256 hex key (every key the caches make) as its 32 bytes, anything else as UTF-8; the
 *  first byte says which. */
function keyBytes(key: string): Buffer {
  if (!SHA256_HEX.test(key)) return Buffer.concat([Buffer.of(0), Buffer.from(key, 'utf8')]);
  const bytes = Buffer.allocUnsafe(33);
  bytes[0] = 1;
  bytes.write(key, 1, 'hex');
  return bytes;
}

function keyOf(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b[0] === 1 ? b.toString('hex', 1) : b.toString('utf8', 1);
}

/** A location as stored: the journal's number (uint32), start (uint48), length (uint32). */
function locationBytes(journalId: number, start: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(14);
  bytes.writeUInt32BE(journalId, 0);
  bytes.writeUIntBE(start, 4, 6);
  bytes.writeUInt32BE(length, 10);
  return bytes;
}

export class JournalIndex {
  /** Key → location bytes. */
  private readonly lines: Database<Buffer, Buffer>;
  /** Journal → [its number, how far it is indexed]. */
  private readonly journals: Database<[number, number], string>;
  /** Journal number → journal (the locations carry numbers: 4 bytes instead of a name). */
  private readonly names: Database<string, number>;
  private readonly nameCache = new Map<number, string>();
  /** Lines recorded by this process and not committed yet, and how far their journals are then indexed. */
  private readonly uncommitted = new Map<string, Location>();
  private readonly uncommittedTo = new Map<string, number>();
  private readonly writes = new Set<Promise<void>>();

  constructor(private readonly env: RootDatabase) {
    this.lines = env.openDB<Buffer, Buffer>({ name: 'lines', keyEncoding: 'binary', encoding: 'binary' });
    this.journals = env.openDB<[number, number], string>({ name: 'journals' });
    this.names = env.openDB<string, number>({ name: 'names', keyEncoding: 'uint32' });
  }

  /** Where `key` is; on a miss, after `catchUp` has indexed the journal tails no one indexed yet. */
  async findCaughtUp(key: string, catchUp: (index: JournalIndex) => Promise<void>): Promise<Location | undefined> {
    const at = this.find(key);
    if (at) return at;
    await catchUp(this);
    return this.find(key);
  }

  find(key: string): Location | undefined {
    const recorded = this.uncommitted.get(key);
    if (recorded) return recorded;
    const k = keyBytes(key);
    const at = k.length <= MAX_KEY_BYTES ? this.lines.getBinaryFast(k) : undefined;
    if (!at) return undefined;
    const id = at.readUInt32BE(0);
    const start = at.readUIntBE(4, 6);
    const length = at.readUInt32BE(10);
    const journal = this.nameOf(id); // after reading `at`: the next get reuses its buffer
    return journal === undefined ? undefined : { journal, start, length };
  }

  /** How far `journal` is indexed (0: not at all). */
  indexedTo(journal: string): number {
    return Math.max(this.uncommittedTo.get(journal) ?? 0, this.journals.get(journal)?.[1] ?? 0);
  }

  /** Records `lines`, the bytes `from`…`to` of `journal`, committed in the background (resolves then; never throws
   *  at once). find() has them at once. The journal counts as indexed up to `to` only where the index already reached
   *  `from`: bytes before it that were never committed (an index that could not be opened, a commit that failed)
   *  stay past the indexed offset, so the next miss's catch-up reads them again. */
  record(journal: string, lines: JournalLine[], from: number, to: number): Promise<void> {
    const located = lines.map(([key, start, length]): [string, Location] => [key, { journal, start, length }]);
    for (const [key, at] of located) this.uncommitted.set(key, at);
    if (this.indexedTo(journal) >= from && to > (this.uncommittedTo.get(journal) ?? 0)) this.uncommittedTo.set(journal, to);
    let commit: Promise<unknown>;
    try {
      commit = this.env.transaction(() => {
        // In the write transaction: another process's commit of this journal or of a new one cannot come in between.
        const known = this.journals.get(journal);
        const id = known?.[0] ?? this.numberJournal(journal);
        for (const [key, at] of located) {
          const k = keyBytes(key);
          if (k.length <= MAX_KEY_BYTES) this.lines.put(k, locationBytes(id, at.start, at.length));
        }
        const indexed = known?.[1] ?? 0;
        if (indexed >= from && to > indexed) this.journals.put(journal, [id, to]);
        else if (!known) this.journals.put(journal, [id, 0]);
      });
    } catch (err) {
      commit = Promise.reject(err); // a closed file: as a failed commit
    }
    const settle = () => {
      for (const [key, at] of located) if (this.uncommitted.get(key) === at) this.uncommitted.delete(key);
      if (this.uncommittedTo.get(journal) === to) this.uncommittedTo.delete(journal);
      this.writes.delete(done);
    };
    const done: Promise<void> = commit.then(settle, (err) => {
      settle();
      throw err;
    });
    this.writes.add(done);
    return done;
  }

  /** Every key indexed (committed or not). */
  keys(): string[] {
    const keys = new Set(this.uncommitted.keys());
    for (const k of this.lines.getKeys()) keys.add(keyOf(k));
    return [...keys];
  }

  /** Waits for the commits under way, then closes the file. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.writes]);
    await this.env.close();
  }

  private numberJournal(journal: string): number {
    let last = 0;
    for (const id of this.names.getKeys({ reverse: true, limit: 1 })) last = id;
    this.names.put(last + 1, journal);
    return last + 1;
  }

  private nameOf(id: number): string | undefined {
    let name = this.nameCache.get(id);
    if (name === undefined) {
      name = this.names.get(id);
      if (name !== undefined) this.nameCache.set(id, name);
    }
    return name;
  }
}

/** One cache's use of the index in `file`: opened on first use, let go by release() (a later use opens it again).
 *  A file that cannot be opened fails that use with one StorageError saying what to check; the next use tries again. */
export class IndexUse {
  private index?: Promise<JournalIndex>;

  constructor(readonly file: string) {}

  get(): Promise<JournalIndex> {
    if (!this.index) {
      const opening = acquire(this.file);
      this.index = opening;
      opening.catch(() => {
        if (this.index === opening) this.index = undefined;
      });
    }
    return this.index;
  }

  async release(): Promise<void> {
    const index = this.index;
    this.index = undefined;
    if (index)
      await index.then(
        () => release(this.file),
        () => {},
      );
  }
}

/** The indexes this process has open: one per file however many caches use it (LMDB must not be opened twice by one
 *  process), closed when the last one lets go. */
const open = new Map<string, { index: Promise<JournalIndex>; users: number }>();
const closing = new Map<string, Promise<void>>();

async function acquire(file: string): Promise<JournalIndex> {
  await closing.get(file);
  let entry = open.get(file);
  if (!entry) {
    const opening = { index: openIndex(file), users: 0 };
    opening.index.catch(() => open.get(file) === opening && open.delete(file));
    open.set(file, (entry = opening));
  }
  entry.users++;
  return entry.index;
}

async function release(file: string): Promise<void> {
  const entry = open.get(file);
  if (!entry || --entry.users > 0) return;
  open.delete(file);
  const closed = entry.index.then(
    (index) => index.close(),
    () => {},
  );
  closing.set(file, closed);
  await closed.finally(() => closing.delete(file));
}

async function openIndex(file: string): Promise<JournalIndex> {
  // Loaded on first use: what imports the caches without using them (a simulator's request keys) pays nothing.
  let lmdb: typeof import('lmdb');
  try {
    lmdb = await import('lmdb');
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new StorageError(
      `the request cache index needs the lmdb package and its native binary for ${process.platform}-${process.arch}, which did not load (${why}): run \`node bin/setup.js\``,
    );
  }
  try {
    return new JournalIndex(lmdb.open({ path: file, maxDbs: 3, mapSize: MAP_SIZE }));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new StorageError(
      `request cache index ${file} cannot be opened (${why}): its directory must be writable and on a local filesystem ` +
        '(LMDB maps and locks the file). Deleting the file is safe: it is rebuilt from the journals',
    );
  }
}
