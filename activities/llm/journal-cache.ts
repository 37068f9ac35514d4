// The request cache on this machine's disk: each process appends the answers it receives to its own journal
// (journal-<host>-<pid>-<random>.jsonl), one write() per batch of answers, before any caller sees them. A file per
// answer cost a create + write + rename in the kernel on every call (0.3–0.8 ms of CPU on ext4, against a few µs
// for an append: `npm run bench -- llm-cpu`). Where each answer is, is in the index every process of the machine
// shares (index.sqlite beside the journals: journal-index.ts): a retried shard on a restarted worker finds what a killed
// one paid for without reading the journals again; a miss reads only what the journals hold past their indexed
// offsets. Same durability as before: an answer is in the page cache (it survives the process being killed) before
// it is returned, whether or not its index entry is; a torn line (power loss) is skipped.
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { IndexUse, type JournalIndex, type Location } from './journal-index';
import { answerOf, type JournalLine, journalLine, linesOf } from './journal-format';
import type { CachedAnswer, RequestCache } from './types';

const JOURNAL = /^journal-.*\.jsonl$/;
const CHUNK = 16 * 1024 * 1024;
/** The index's file in the cache's directory. */
const INDEX_FILE = 'index.sqlite';

export class JournalRequestCache implements RequestCache {
  private own: string;
  private ownSize = 0;
  /** Journals open for reading hits, one handle each. */
  private readonly readers = new Map<string, Promise<FileHandle>>();
  private handle?: Promise<FileHandle>;
  private pending: Array<{ key: string; line: Buffer; done: (err?: unknown) => void }> = [];
  private writing?: Promise<void>;
  private refreshing?: Promise<void>;
  /** Set once the directory holds answers cached one file per answer (runs started before the journals). */
  private legacy = false;
  /** The directory's index, shared by every process of the machine. An index that cannot be opened fails the lookup
   *  with a StorageError saying why (journal-index.ts), rather than reading every journal into memory again: the
   *  activity's retry tries again, and the answers stay safe in the journals meanwhile. */
  private readonly index: IndexUse;

  /** @param older the cache that reads those per-answer files, asked on a miss when there are any */
  constructor(
    readonly dir: string,
    private readonly older?: RequestCache,
  ) {
    this.own = this.newJournal();
    this.index = new IndexUse(path.join(dir, INDEX_FILE));
  }

  private newJournal(): string {
    return path.join(this.dir, `journal-${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}.jsonl`);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    const at = await (await this.index.get()).findCaughtUp(key, (index) => this.refresh(index));
    if (at) return this.read(at, key);
    return this.legacy && this.older ? this.older.get(key).catch(() => undefined) : undefined;
  }

  /** Every key in the directory's journals (this process's and the others' as far as they are written). */
  async keys(): Promise<string[]> {
    const index = await this.index.get();
    await this.refresh(index);
    return index.keys();
  }

  /** Resolves once the answer is written: callers hand the answer on only after this. */
  put(key: string, answer: CachedAnswer): Promise<void> {
    const line = Buffer.from(journalLine(key, answer));
    return new Promise((resolve, reject) => {
      this.pending.push({ key, line, done: (err) => (err ? reject(err) : resolve()) });
      this.writing ??= this.flush();
    });
  }

  /** Waits for the writes under way, closes the journal and releases the index (a later call opens them again). */
  async close(): Promise<void> {
    await Promise.all([this.writing, this.refreshing?.catch(() => {})]);
    const handles = [this.handle, ...this.readers.values()];
    this.handle = undefined;
    this.readers.clear();
    await Promise.all(handles.map((h) => h?.then((fh) => fh.close()).catch(() => {})));
    await this.index.release();
  }

  /** Group commit: the answers that arrived while the previous write ran go out in one write(). */
  private async flush(): Promise<void> {
    await Promise.resolve(); // let the answers of this tick join the batch
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      // The answers do not wait for the index: a batch it cannot take is indexed by the next miss's catch-up.
      const index = await this.index.get().catch(() => undefined);
      try {
        const fh = await (this.handle ??= mkdir(this.dir, { recursive: true }).then(() => open(this.own, 'a')));
        const bytes = Buffer.concat(batch.map((b) => b.line));
        const { bytesWritten } = await fh.write(bytes, 0, bytes.length);
        // A short write (a full disk) left part of the batch out: the answers are not durable, so the batch fails.
        if (bytesWritten !== bytes.length) throw new Error(`request cache ${this.own}: wrote ${bytesWritten} of ${bytes.length} bytes`);
        const from = this.ownSize;
        const lines: JournalLine[] = [];
        for (const b of batch) {
          lines.push([b.key, this.ownSize, b.line.length - 1]);
          this.ownSize += b.line.length;
        }
        index?.record(path.basename(this.own), lines, from, this.ownSize).catch(() => {});
        for (const b of batch) b.done();
      } catch (err) {
        // Go on in a new journal: this one may now end in part of a line (others read it as they read any journal).
        const failed = this.handle;
        this.handle = undefined;
        this.own = this.newJournal();
        this.ownSize = 0;
        await failed?.then((fh) => fh.close()).catch(() => {});
        for (const b of batch) b.done(err);
      }
    }
    this.writing = undefined;
  }

  private async read(at: Location, key: string): Promise<CachedAnswer | undefined> {
    const file = path.join(this.dir, at.journal);
    let reader = this.readers.get(file);
    if (!reader) this.readers.set(file, (reader = open(file, 'r')));
    try {
      const buf = Buffer.alloc(at.length);
      await (await reader).read(buf, 0, at.length, at.start);
      return answerOf(buf, key);
    } catch {
      // A journal removed under us (someone cleared the cache): a miss, and the next hit there opens it again.
      this.readers.delete(file);
      return undefined;
    }
  }

  /** Indexes what the journals hold past their indexed offsets; concurrent misses share one look. */
  private refresh(index: JournalIndex): Promise<void> {
    this.refreshing ??= this.catchUp(index).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Past a journal's indexed offset are the lines of another process's batch whose index commit has not landed yet,
   *  of a process killed before its commit, or of a journal written before the index: only those are read. */
  private async catchUp(index: JournalIndex): Promise<void> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    this.legacy ||= entries.some((e) => e.isDirectory() && e.name.length === 2);
    const own = path.basename(this.own);
    for (const e of entries) {
      if (!e.isFile() || !JOURNAL.test(e.name)) continue;
      const from = index.indexedTo(e.name);
      // This process's journal is as long as it wrote it (no stat on every miss of a fresh run).
      const size =
        e.name === own
          ? this.ownSize
          : await stat(path.join(this.dir, e.name)).then(
              (s) => s.size,
              () => 0, // removed under us: nothing to index
            );
      if (size > from) await this.indexTail(index, e.name, from, size);
    }
  }

  private async indexTail(index: JournalIndex, journal: string, from: number, size: number): Promise<void> {
    const fh = await open(path.join(this.dir, journal), 'r').catch(() => undefined);
    if (!fh) return;
    try {
      // In chunks: a journal written before the index can be far larger than what is worth holding at once.
      let at = from;
      let chunk = CHUNK;
      while (at < size) {
        const buf = Buffer.alloc(Math.min(size - at, chunk));
        const { bytesRead } = await fh.read(buf, 0, buf.length, at);
        const { lines, end } = linesOf(buf.subarray(0, bytesRead), at);
        if (end === 0) {
          if (buf.length < size - at)
            chunk *= 2; // a line longer than the chunk
          else break; // a line still being written: read next time
          continue;
        }
        const chunkFrom = at;
        at += end;
        // Found by this process at once; a commit that fails leaves the tail to the next miss. Each chunk's commit is
        // waited for, so a large journal written before the index is never held in memory as pending entries.
        await index.record(journal, lines, chunkFrom, at).catch(() => {});
      }
    } finally {
      await fh.close();
    }
  }
}
