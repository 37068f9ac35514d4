// Answers that arrived while the run's object store could not take them (it was unreachable): an answer is paid for
// the moment it arrives, so it is never dropped for want of a place to write it. It is kept in this process's memory
// and appended to a journal on this host (<state dir>/llm-cache-unsaved/<store>/, journal-cache.ts: durable once
// the call returns, even if the worker is then killed), so a retry of the call on this host finds it; and it is
// written to the store once the store answers again — in the background, waiting the outage out like any store
// write (storage/outage-retry.ts), and again after the next answer the store takes. A process that starts on a
// host where an earlier one left unsaved answers reads them and saves them too.
import { outsideActivity } from '../heartbeat';
import { JournalRequestCache } from './journal-cache';
import type { CachedAnswer } from './types';

export class UnsavedAnswers {
  private readonly waiting = new Map<string, CachedAnswer>();
  private readonly journal: JournalRequestCache;
  private restored?: Promise<void>;
  private saving?: Promise<void>;

  /** @param save writes a batch of answers to the store, waiting out an outage (it throws when it gives up)
   *  @param maxBatch answers `save` takes at once (object-journal-cache.ts MAX_BATCH: answers per journal object) */
  constructor(
    readonly dir: string,
    private readonly save: (answers: Array<[string, CachedAnswer]>) => Promise<void>,
    private readonly maxBatch: number,
  ) {
    this.journal = new JournalRequestCache(dir);
  }

  /** How many answers wait for the store (tests, logs). */
  get size(): number {
    return this.waiting.size;
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    await this.restore();
    return this.waiting.get(key);
  }

  /** Resolves once the answer is on this host's disk; the store gets it later. */
  async keep(key: string, answer: CachedAnswer): Promise<void> {
    await this.restore();
    this.waiting.set(key, answer);
    await this.journal.put(key, answer);
    this.saveSoon();
  }

  /** Lets go of the journal's file handles and index (a later call opens them again). */
  close(): Promise<void> {
    return this.journal.close();
  }

  /** Starts writing what waits to the store, unless that is already under way. */
  saveSoon(): void {
    if (this.waiting.size === 0 || this.saving) return;
    this.saving = outsideActivity(() => this.saveAll()) // in the background, for every stage
      .catch(() => {
        /* still unreachable after the tolerance: the answers stay here until the next keep or successful write */
      })
      .finally(() => {
        this.saving = undefined;
      });
  }

  /** Resolves when what waited when it was called (and anything kept meanwhile) is in the store, or saving gave up. */
  async saved(): Promise<void> {
    this.saveSoon();
    while (this.saving) await this.saving;
  }

  private async saveAll(): Promise<void> {
    while (this.waiting.size) {
      const batch = [...this.waiting].slice(0, this.maxBatch);
      await this.save(batch);
      // In the store now: a later get for it goes there (the journal line stays; saving it again is harmless).
      for (const [key, answer] of batch) if (this.waiting.get(key) === answer) this.waiting.delete(key);
    }
  }

  /** Once per process: the answers earlier processes on this host left unsaved (or saved: saving again is harmless). */
  private restore(): Promise<void> {
    this.restored ??= (async () => {
      for (const key of await this.journal.keys()) {
        const answer = await this.journal.get(key);
        if (answer && !this.waiting.has(key)) this.waiting.set(key, answer);
      }
      this.saveSoon();
    })().catch(() => {
      /* an unreadable journal: nothing restored, as if it were not there */
    });
    return this.restored;
  }
}
