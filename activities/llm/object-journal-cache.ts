// The request cache in an object store (S3), shared by every host of the runs on that bucket + prefix: answers go
// out in batches, one object per batch (llm-cache/journal/<host>-<pid>-<random>/<seq>.jsonl, one JSON line per
// answer), not a GET and a PUT per call. Group commit as in journal-cache.ts: the answers of one tick go out in one
// PUT at once; the answers that arrive while it runs go out together in the next. An answer is returned to its caller
// only once the object holding it is in the store, so after a worker is killed — on any host — at most the calls in
// flight are paid again (a host-local journal uploaded later would lose the unsent answers to a host that never comes
// back). While the store cannot be reached, answers wait on this host instead (unsaved-answers.ts) and go out as one
// batch once it answers again. Writes and reads serve several stages at once, so they run outside the stage that
// started them (heartbeat.ts outsideActivity): cancelling one stage never fails another's answers.
// Where each answer is, is in an index on this host's disk shared by its processes (objects.sqlite in the cache's local
// directory: journal-index.ts), so a process that starts reads no journal object the host has indexed already; a miss
// lists the journal objects and reads only those not indexed yet — at most every REFRESH_MS, so a run of misses (a
// fresh run: every call is one) costs a LIST now and then, not a request per call. The last few objects' bytes are
// kept for hits; an older one is read again on a hit. Per-answer objects (llm-cache/<ab>/<key>.json, written before
// the journals) are still read on a miss while the store holds any (looked for until journals are there without
// them: readNew).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { ObjectStore } from '../storage/object-store';
import { isTransientStorageError } from '../storage/outage-retry';
import { outsideActivity } from '../heartbeat';
import type { CachedAnswer, RequestCache } from './types';
import { answerOf, journalLine, linesOf } from './journal-format';
import { IndexUse, type JournalIndex, type Location } from './journal-index';
import { UnsavedAnswers } from './unsaved-answers';

export const JOURNAL_PREFIX = 'llm-cache/journal/';
/** Answers per object at most: a batch that fills goes out, the rest wait for the next PUT (unsaved answers go
 *  out in batches of this size too). */
const MAX_BATCH = 1000;
/** PUTs in flight at once. One: measured with `npm run bench -- s3-overhead`, four in flight made more, smaller
 *  objects and each PUT slower (SeaweedFS on a busy host), 1.9× local against 1.3× with one. */
const MAX_WRITES = 1;
/** How often misses may look for journal objects other processes wrote since the last look. */
const REFRESH_MS = 2_000;
/** Journal objects whose bytes are kept for hits (the most recently used): the index holds where an answer is, not
 *  the answer, so a long run's cache costs a worker a few MB, not its size. */
const KEPT_OBJECTS = 16;
/** Journal objects read at once when catching up. */
const READ_CONCURRENCY = 8;
/** The index's file in the cache's local directory (index.sqlite there is the unsaved answers' journal cache's). */
const OBJECTS_INDEX_FILE = 'objects.sqlite';

interface Pending {
  key: string;
  answer: CachedAnswer;
  done: (err?: unknown) => void;
}

export class ObjectJournalCache implements RequestCache {
  /** Answers the store could not take when they arrived. */
  readonly unsaved: UnsavedAnswers;
  /** Key → its line in a journal object, for every object this host has read or written. */
  private readonly index: IndexUse;
  /** The bytes of the journal objects used last (a Map keeps insertion order: the first is the least recent). */
  private readonly kept = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer | undefined>>();
  private readonly writer = `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private seq = 0;
  private pending: Pending[] = [];
  /** PUTs in flight (and their flushes, for close()), and whether a look for pending answers is queued. */
  private writes = 0;
  private readonly flushes = new Set<Promise<void>>();
  private scheduled = false;
  private refreshing?: Promise<void>;
  private lastRefresh = Number.NEGATIVE_INFINITY;
  /** Whether the store holds per-answer objects (runs cached before the journals): 'yes', a miss also asks there;
   *  'unknown', each look checks again; 'no', looked once journals were there and found none (readNew). */
  private legacy: 'yes' | 'no' | 'unknown' = 'unknown';

  /** @param dir this host's directory for the store's cache: the index, and the answers the store cannot take for now
   *  (unsaved-answers.ts)
   *  @param older reads the per-answer objects (cache.ts ObjectRequestCache) */
  constructor(
    readonly objects: ObjectStore,
    dir: string,
    private readonly older?: RequestCache,
  ) {
    this.unsaved = new UnsavedAnswers(dir, (answers) => this.writeBatch(answers), MAX_BATCH);
    this.index = new IndexUse(path.join(dir, OBJECTS_INDEX_FILE));
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    const kept = await this.unsaved.get(key);
    if (kept) return kept;
    const at = await (await this.index.get()).findCaughtUp(key, (index) => this.refresh(index));
    if (at) return this.read(at, key);
    // A failed read fails the call here, unlike journal-cache.ts (a miss on local disk): as every read of this store
    // does (the journal LIST and GETs above), once the store stays unreachable past its outage tolerance
    // (s3-object-store.ts patient). The activity retries; a miss would pay again for an answer the store holds.
    return this.legacy === 'yes' && this.older ? this.older.get(key) : undefined;
  }

  /** Waits for the PUTs and looks under way, then lets go of the index (once its commits are in) and of the unsaved
   *  answers' journal. */
  async close(): Promise<void> {
    await Promise.all([...this.flushes, this.refreshing?.catch(() => {})]);
    await Promise.all([this.index.release(), this.unsaved.close()]);
  }

  private async read(at: Location, key: string): Promise<CachedAnswer | undefined> {
    const name = at.journal;
    let bytes = this.kept.get(name);
    if (bytes)
      this.kept.delete(name); // moved to the most recent end below
    else {
      // Hits on one object that is no longer kept share its GET.
      let load = this.loading.get(name);
      if (!load) {
        load = outsideActivity(() => this.objects.get(name)).finally(() => this.loading.delete(name));
        this.loading.set(name, load);
      }
      bytes = await load;
    }
    if (!bytes) return undefined; // removed (someone cleared the cache): a miss
    this.keep(name, bytes);
    return answerOf(bytes.subarray(at.start, at.start + at.length), key);
  }

  private keep(name: string, bytes: Buffer): void {
    this.kept.set(name, bytes);
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= KEPT_OBJECTS) break;
      this.kept.delete(oldest);
    }
  }

  /** Indexes every whole line of a journal object (a line that does not parse is left out: a miss is safe); found by
   *  this process at once, committed in the background (a failed commit leaves the object to the next look). */
  private indexObject(index: JournalIndex, name: string, bytes: Buffer): void {
    index.record(name, linesOf(bytes).lines, 0, bytes.length).catch(() => {});
    this.keep(name, bytes);
  }

  /** Resolves once the batch holding the answer is in the store (or, while it is unreachable, on this host). */
  put(key: string, answer: CachedAnswer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ key, answer, done: (err) => (err ? reject(err) : resolve()) });
      this.schedule();
    });
  }

  /** Starts a PUT of what waits while fewer than MAX_WRITES are in flight; answers that arrive while all are busy
   *  go out together in the next one. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false; // the answers of this tick join the batch
      while (this.pending.length && this.writes < MAX_WRITES) {
        const batch = this.pending.splice(0, MAX_BATCH);
        const flush = outsideActivity(() => this.flush(batch)); // a batch of several stages' answers
        this.flushes.add(flush);
        void flush.finally(() => this.flushes.delete(flush));
      }
    });
  }

  private async flush(batch: Pending[]): Promise<void> {
    this.writes++;
    try {
      await this.writeBatch(
        batch.map((b) => [b.key, b.answer]),
        { failFast: true },
      );
      for (const b of batch) b.done();
      this.unsaved.saveSoon(); // the store takes writes again: what waited goes now
    } catch (e) {
      if (!isTransientStorageError(e)) for (const b of batch) b.done(e);
      else {
        // Paid for already: kept on this host, and the callers go on rather than wait out the outage.
        const unsaved = this.unsaved;
        await Promise.all(batch.map((b) => unsaved.keep(b.key, b.answer).then(() => b.done(), b.done)));
      }
    } finally {
      this.writes--;
      if (this.pending.length) this.schedule();
    }
  }

  /** One journal object holding `answers`; waits out an outage unless `failFast`. */
  private async writeBatch(answers: Array<[string, CachedAnswer]>, opts?: { failFast: boolean }): Promise<void> {
    const name = `${JOURNAL_PREFIX}${this.writer}/${String(this.seq++).padStart(8, '0')}.jsonl`;
    const bytes = Buffer.from(answers.map(([k, a]) => journalLine(k, a)).join(''));
    await this.objects.put(name, bytes, opts);
    // In the store now, whether or not the index takes it: another look finds it there.
    const index = await this.index.get().catch(() => undefined);
    if (index) this.indexObject(index, name, bytes);
  }

  /** Reads the journal objects written since the last look, unless that look was under REFRESH_MS ago; concurrent
   *  misses share one look. */
  private refresh(index: JournalIndex): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (Date.now() - this.lastRefresh < REFRESH_MS) return Promise.resolve();
    this.refreshing = outsideActivity(() => this.readNew(index)).finally(() => {
      this.lastRefresh = Date.now();
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async readNew(index: JournalIndex): Promise<void> {
    const probe = this.legacy === 'unknown';
    const [names, first] = await Promise.all([
      this.objects.list(JOURNAL_PREFIX),
      probe ? this.objects.list('llm-cache/', { limit: 1 }) : [],
    ]);
    // Keys list in order: per-answer objects (llm-cache/<hex>/…) before llm-cache/journal/, so the first key says
    // whether there are any. Nothing yet: look again next time (during a rolling upgrade a worker of the previous
    // release may be about to write some). Journals and none: stop looking — an older worker running since before the
    // journals appeared has written some by then; one starting to write only later costs a call paid again, never a
    // wrong answer. (Asking per key on every miss instead would cost a GET per fresh call.)
    if (probe && first[0] !== undefined) this.legacy = first[0].startsWith(JOURNAL_PREFIX) ? 'no' : 'yes';
    const fresh = names.filter((n) => index.indexedTo(n) === 0);
    for (let i = 0; i < fresh.length; i += READ_CONCURRENCY)
      await Promise.all(fresh.slice(i, i + READ_CONCURRENCY).map((n) => this.readJournal(index, n)));
  }

  private async readJournal(index: JournalIndex, name: string): Promise<void> {
    const bytes = await this.objects.get(name);
    if (bytes) this.indexObject(index, name, bytes);
  }
}
