// Where each cached answer is — key → its journal, the line's start and length — for both request caches
// (journal-cache.ts, object-journal-cache.ts), in an SQLite file beside their journals that every process of the host
// shares (@photostructure/sqlite: Node 22's node:sqlite API for Node 20, its binaries inside the npm package). A lookup
// is a B-tree read through SQLite's page cache, 2 MiB per process whatever the file's size: nothing is loaded
// when a process starts or held per key in its heap, where an in-memory map cost every worker ~200 bytes per key and
// a read of every journal. SQLite rather than LMDB: LMDB maps the file, and the kernel maps the cached pages around
// each page a lookup touches, so after 40k random lookups a worker's RSS held nearly all of a 10 M-entry index
// (~900 MiB); SQLite read()s its pages, which stay in the kernel's page cache (`npm run bench -- cache-index`).
// The journals stay the durable store of answers; the index may lag them. Each journal's row says how far it is
// indexed, written in the same transaction as its lines, so lines past that offset — of a process killed between its
// journal write and its index commit, of journals written before the index — are read and indexed by the next miss
// (the caches' catch-up), and only those. Lines recorded here are found at once by this process, and committed
// together once per event-loop turn. WAL with synchronous=NORMAL: a commit is not fsynced (a power loss may take the
// last ones back, which the catch-up reads again) and never leaves a torn file; readers do not wait for the writer.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseSyncInstance, StatementSyncInstance } from '@photostructure/sqlite';
import { StorageError } from '../storage/storage-error';
import type { JournalLine } from './journal-format';

type Database = DatabaseSyncInstance;
type Statement = StatementSyncInstance;

/** Where an answer's line is: its journal (a file name in the cache's directory, or an object name) and bytes. */
export interface Location {
  journal: string;
  start: number;
  length: number;
}

/** How long a commit waits for another process's (ms): SQLite lets one process write at a time. */
const BUSY_MS = 10_000;
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

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS journals (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, indexed INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS lines (
    key BLOB PRIMARY KEY, journal INTEGER NOT NULL, start INTEGER NOT NULL, length INTEGER NOT NULL
  ) WITHOUT ROWID;`;

interface Pending {
  journal: string;
  located: [string, Location][];
  from: number;
  to: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class JournalIndex {
  private readonly findLine: Statement;
  private readonly journalOf: Statement;
  private readonly addJournal: Statement;
  private readonly setIndexed: Statement;
  private readonly putLine: Statement;
  private readonly allKeys: Statement;
  /** Lines recorded by this process and not committed yet, and how far their journals are then indexed. */
  private readonly uncommitted = new Map<string, Location>();
  private readonly uncommittedTo = new Map<string, number>();
  /** Recorded since the last commit: committed together at the end of this event-loop turn. */
  private pending: Pending[] = [];
  private committing?: Promise<void>;

  constructor(private readonly db: Database) {
    this.findLine = db.prepare(
      'SELECT journals.name, lines.start, lines.length FROM lines JOIN journals ON journals.id = lines.journal WHERE lines.key = ?',
    );
    this.journalOf = db.prepare('SELECT id, indexed FROM journals WHERE name = ?');
    this.addJournal = db.prepare('INSERT INTO journals (name, indexed) VALUES (?, 0)');
    this.setIndexed = db.prepare('UPDATE journals SET indexed = ? WHERE id = ?');
    this.putLine = db.prepare('INSERT OR REPLACE INTO lines (key, journal, start, length) VALUES (?, ?, ?, ?)');
    this.allKeys = db.prepare('SELECT key FROM lines');
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
    const row = this.findLine.get(keyBytes(key)) as { name: string; start: number; length: number } | undefined;
    return row && { journal: row.name, start: row.start, length: row.length };
  }

  /** How far `journal` is indexed (0: not at all). */
  indexedTo(journal: string): number {
    const row = this.journalOf.get(journal) as { indexed: number } | undefined;
    return Math.max(this.uncommittedTo.get(journal) ?? 0, row?.indexed ?? 0);
  }

  /** Records `lines`, the bytes `from`…`to` of `journal`, committed at the end of this event-loop turn (resolves
   *  then; never throws at once). find() has them at once. The journal counts as indexed up to `to` only where the
   *  index already reached `from`: bytes before it that were never committed (an index that could not be opened, a
   *  commit that failed) stay past the indexed offset, so the next miss's catch-up reads them again. */
  record(journal: string, lines: JournalLine[], from: number, to: number): Promise<void> {
    const located = lines.map(([key, start, length]): [string, Location] => [key, { journal, start, length }]);
    for (const [key, at] of located) this.uncommitted.set(key, at);
    if (this.indexedTo(journal) >= from && to > (this.uncommittedTo.get(journal) ?? 0)) this.uncommittedTo.set(journal, to);
    return new Promise<void>((resolve, reject) => {
      if (!this.pending.length) this.committing = new Promise((done) => setImmediate(() => done(this.commit())));
      this.pending.push({ journal, located, from, to, resolve, reject });
    });
  }

  /** Every key indexed (committed or not). */
  keys(): string[] {
    const keys = new Set(this.uncommitted.keys());
    for (const row of this.allKeys.iterate() as Iterable<{ key: Uint8Array }>) keys.add(keyOf(row.key));
    return [...keys];
  }

  /** Waits for the commit under way, then closes the file. */
  async close(): Promise<void> {
    await this.committing;
    this.db.close();
  }

  private commit(): void {
    const batch = this.pending;
    this.pending = [];
    let failed: unknown;
    try {
      // IMMEDIATE: the write lock is taken before the journals' offsets are read, so another process's commit of the
      // same journal cannot come in between.
      this.db.exec('BEGIN IMMEDIATE');
      try {
        this.write(batch);
        this.db.exec('COMMIT');
      } catch (err) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } catch (err) {
      failed = err; // busy past BUSY_MS, a full disk: the next miss's catch-up indexes these lines
    }
    for (const p of batch) {
      for (const [key, at] of p.located) if (this.uncommitted.get(key) === at) this.uncommitted.delete(key);
      if (this.uncommittedTo.get(p.journal) === p.to) this.uncommittedTo.delete(p.journal);
      if (failed === undefined) p.resolve();
      else p.reject(failed);
    }
  }

  /** In the write transaction. */
  private write(batch: Pending[]): void {
    for (const { journal, located, from, to } of batch) {
      const known = this.journalOf.get(journal) as { id: number; indexed: number } | undefined;
      const id = known?.id ?? Number(this.addJournal.run(journal).lastInsertRowid);
      for (const [key, at] of located) this.putLine.run(keyBytes(key), id, at.start, at.length);
      const indexed = known?.indexed ?? 0;
      if (indexed >= from && to > indexed) this.setIndexed.run(to, id);
    }
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

/** The indexes this process has open: one connection per file however many caches use it (one batch of lines per
 *  commit, one writer the other processes wait for), closed when the last one lets go. */
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
  let sqlite: typeof import('@photostructure/sqlite');
  try {
    sqlite = await import('@photostructure/sqlite');
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new StorageError(
      `the request cache index needs the @photostructure/sqlite package and its native binary for ${process.platform}-${process.arch}, which did not load (${why}): run \`node bin/setup.js\``,
    );
  }
  let db: Database | undefined;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    // The busy timeout first: two processes opening a new file both write its schema.
    db = new sqlite.DatabaseSync(file, { timeout: BUSY_MS });
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; ${SCHEMA}`);
    return new JournalIndex(db);
  } catch (err) {
    db?.close();
    const why = err instanceof Error ? err.message : String(err);
    throw new StorageError(
      `request cache index ${file} cannot be opened (${why}): its directory must be writable and on a local filesystem ` +
        '(SQLite locks the file). Deleting the file (and its -wal and -shm files) is safe: it is rebuilt from the journals',
    );
  }
}
