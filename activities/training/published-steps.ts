// Intermediate checkpoints in the run's store, so a train stage retried on any host resumes where the last one got
// to. While a trainer runs, each new complete checkpoint it saves is published (../storage/checkpoints.ts: resumable,
// content-addressed) under checkpoints/<name>.partial/step-<N>, and only then the pointer
// checkpoints/<name>.partial/latest.json names it: a reader never sees a half-published step. A new attempt fetches
// the pointed step into its own work dir when it is newer than what this host's disk holds.
// With local storage (one host) nothing is published: the trainer's own directory is the resume point.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fetchCheckpoint, publishCheckpoint } from '../storage/checkpoints';
import { isLocalStorage, objectStoreFor, type StorageOf } from '../storage/run-storage';

/** What the pointer records: the step, where it is published, where it goes under the trainer's directory, and the
 *  dataset it was trained on (a step of other data is no resume point). */
export interface PublishedStep {
  step: number;
  uri: string;
  rel: string;
  dataset: string;
}

/** A complete checkpoint the trainer saved on this host: its directory, step, and path under the trainer's dir. */
export interface SavedStep {
  dir: string;
  step: number;
  rel: string;
}

/** How often the publisher looks for a new checkpoint besides the trainer's own announcements (and retries a
 *  failed upload). */
export const PUBLISH_POLL_MS = 5_000;

const pointerKey = (name: string) => `checkpoints/${name}.partial/latest.json`;

/** The newest step published for the checkpoint `name` (`<run>/iter-<k+1>[/<role>]`) trained on `dataset`. */
export async function newestPublishedStep(config: StorageOf, name: string, dataset: string): Promise<PublishedStep | undefined> {
  if (isLocalStorage(config)) return undefined;
  const bytes = await objectStoreFor(config).get(pointerKey(name));
  const p = bytes && (JSON.parse(bytes.toString('utf8')) as PublishedStep);
  return p && p.dataset === dataset ? p : undefined;
}

/**
 * The newest published step fetched to `<into>/<rel>` when it is newer than the step this host can resume from
 * (`localStep`; undefined: none, as on a new host); undefined when the local one is as new.
 */
export async function fetchNewerStep(
  config: StorageOf,
  name: string,
  dataset: string,
  localStep: number | undefined,
  into: string,
): Promise<{ path: string; step: number } | undefined> {
  const p = await newestPublishedStep(config, name, dataset);
  if (!p || (localStep !== undefined && p.step <= localStep)) return undefined;
  const dest = path.join(into, ...p.rel.split('/'));
  await rm(dest, { recursive: true, force: true }); // an incomplete copy of that step (findResumePoint skipped it)
  await mkdir(path.dirname(dest), { recursive: true });
  return { path: await fetchCheckpoint(config, p.uri, dest, 'step'), step: p.step };
}

export interface StepPublisher {
  /** A checkpoint the trainer saved: published unless a newer one is (or is already being) published. */
  offer(saved: SavedStep | undefined): void;
  /** Waits for the upload under way (and a newer one offered meanwhile). */
  close(): Promise<void>;
}

/**
 * Publishes saved steps one at a time beside the trainer, newest wins: a step offered while another uploads
 * replaces any older one still waiting. A failed upload (the store down beyond its tolerance) is logged, never
 * thrown: training goes on and the step is offered again (PUBLISH_POLL_MS) or superseded.
 */
export function startStepPublisher(
  config: StorageOf,
  name: string,
  dataset: string,
  opts: { after?: number; log: (line: string) => void; onPublished: (p: PublishedStep) => void },
): StepPublisher {
  if (isLocalStorage(config)) return { offer() {}, close: async () => {} };
  let newest = opts.after ?? -1;
  let waiting: SavedStep | undefined;
  let running: Promise<void> | undefined;
  const drain = async () => {
    while (waiting) {
      const s = waiting;
      waiting = undefined;
      if (s.step <= newest) continue;
      try {
        const uri = await publishCheckpoint(config, s.dir, `${name}.partial/step-${s.step}`, { heartbeat: false, kind: 'step' });
        const p: PublishedStep = { step: s.step, uri, rel: s.rel, dataset };
        await objectStoreFor(config).put(pointerKey(name), JSON.stringify(p));
        newest = s.step;
        opts.log(`published checkpoint step ${s.step}: ${uri}`);
        opts.onPublished(p);
      } catch (err) {
        opts.log(`could not publish checkpoint ${s.dir} (step ${s.step}), will try again: ${(err as Error).message}`);
        return;
      }
    }
  };
  return {
    offer(saved) {
      if (saved && saved.step > newest && !(waiting && saved.step <= waiting.step)) waiting = saved;
      // (Re)started here, also after a failed upload left a newer step waiting.
      if (waiting && !running)
        running = drain().finally(() => {
          running = undefined;
        });
    },
    close: async () => {
      while (running) await running;
    },
  };
}
