// The request cache on this machine's disk: each process appends the answers it receives to its own journal
// (journal-<host>-<pid>-<random>.jsonl), one write() per batch of answers, before any caller sees them. A file per
// answer cost a create + write + rename in the kernel on every call (0.3–0.8 ms of CPU on ext4, against a few µs
// for an append: `npm run bench -- llm-cpu`). Every process reads every journal in the directory: a retried shard
// on a restarted worker finds what a killed one paid for. Same durability as before: an answer is in the page cache
// (it survives the process being killed) before it is returned; a torn line (power loss) is skipped.
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CachedAnswer, RequestCache } from './types';

const JOURNAL = /^journal-.*\.jsonl$/;
const CHUNK = 16 * 1024 * 1024;

interface Location {
  file: string;
  start: number;
  length: number;
}

export class JournalRequestCache implements RequestCache {
  private readonly index = new Map<string, Location>();
  /** How far each other process's journal has been read (only whole lines). */
  private readonly readTo = new Map<string, number>();
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

  /** @param older the cache that reads those per-answer files, asked on a miss when there are any */
  constructor(
    readonly dir: string,
    private readonly older?: RequestCache,
  ) {
    this.own = this.newJournal();
  }

  private newJournal(): string {
    return path.join(this.dir, `journal-${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}.jsonl`);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    if (!this.index.has(key)) await this.refresh();
    const at = this.index.get(key);
    if (at) return this.read(at);
    return this.legacy && this.older ? this.older.get(key).catch(() => undefined) : undefined;
  }

  /** Every key in the directory's journals (this process's and the others' as far as they are written). */
  async keys(): Promise<string[]> {
    await this.refresh();
    return [...this.index.keys()];
  }

  /** Resolves once the answer is written: callers hand the answer on only after this. */
  put(key: string, answer: CachedAnswer): Promise<void> {
    const line = Buffer.from(journalLine(key, answer));
    return new Promise((resolve, reject) => {
      this.pending.push({ key, line, done: (err) => (err ? reject(err) : resolve()) });
      this.writing ??= this.flush();
    });
  }

  /** Group commit: the answers that arrived while the previous write ran go out in one write(). */
  private async flush(): Promise<void> {
    await Promise.resolve(); // let the answers of this tick join the batch
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      try {
        const fh = await (this.handle ??= mkdir(this.dir, { recursive: true }).then(() => open(this.own, 'a')));
        const bytes = Buffer.concat(batch.map((b) => b.line));
        await fh.write(bytes, 0, bytes.length);
        for (const b of batch) {
          this.index.set(b.key, { file: this.own, start: this.ownSize, length: b.line.length - 1 });
          this.ownSize += b.line.length;
        }
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

  private async read(at: Location): Promise<CachedAnswer | undefined> {
    let reader = this.readers.get(at.file);
    if (!reader) this.readers.set(at.file, (reader = open(at.file, 'r')));
    try {
      const buf = Buffer.alloc(at.length);
      await (await reader).read(buf, 0, at.length, at.start);
      return answerOf(buf);
    } catch {
      // A journal removed under us (someone cleared the cache): a miss, and the next hit there opens it again.
      this.readers.delete(at.file);
      return undefined;
    }
  }

  /** Reads what other processes appended since the last look; concurrent misses share one look. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.readOthers().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async readOthers(): Promise<void> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    this.legacy ||= entries.some((e) => e.isDirectory() && e.name.length === 2);
    for (const e of entries) {
      const file = path.join(this.dir, e.name);
      if (!e.isFile() || !JOURNAL.test(e.name) || file === this.own) continue;
      const from = this.readTo.get(file) ?? 0;
      const { size } = await stat(file);
      if (size <= from) continue;
      const fh = await open(file, 'r');
      try {
        // In chunks: a long run's journal can be far larger than what is worth holding at once.
        let at = from;
        let chunk = CHUNK;
        while (at < size) {
          const buf = Buffer.alloc(Math.min(size - at, chunk));
          const { bytesRead } = await fh.read(buf, 0, buf.length, at);
          const lineStart = indexLines(buf.subarray(0, bytesRead), (key, start, length) =>
            this.index.set(key, { file, start: at + start, length }),
          );
          if (lineStart === 0) {
            if (buf.length < size - at)
              chunk *= 2; // a line longer than the chunk
            else break; // a line still being written: read next time
            continue;
          }
          at += lineStart;
        }
        this.readTo.set(file, at); // a last line still being written is read next time
      } finally {
        await fh.close();
      }
    }
  }
}

// The journal format, shared with object-journal-cache.ts: one JSON line {k: key, a: answer} per answer.

/** The journal line holding `answer` under `key`, newline included. */
export function journalLine(key: string, answer: CachedAnswer): string {
  return `${JSON.stringify({ k: key, a: answer })}\n`;
}

/** The answer of a journal line (without its newline), as indexed by indexLines. */
export function answerOf(line: Buffer): CachedAnswer {
  return (JSON.parse(line.toString('utf8')) as { a: CachedAnswer }).a;
}

/** Calls `found` for every whole line of `bytes` (a line that does not parse — a torn one — is left out: a miss is
 *  safe); returns where the part after the last newline starts (a line still being written, or none). */
export function indexLines(bytes: Buffer, found: (key: string, start: number, length: number) => void): number {
  let start = 0;
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
    const key = keyOf(bytes.subarray(start, nl));
    if (key) found(key, start, nl - start);
    start = nl + 1;
  }
  return start;
}

/** The key of a journal line, or undefined for a torn one. */
function keyOf(line: Buffer): string | undefined {
  try {
    const k = (JSON.parse(line.toString('utf8')) as { k?: unknown }).k;
    return typeof k === 'string' ? k : undefined;
  } catch {
    return undefined;
  }
}
