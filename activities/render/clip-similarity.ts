// ColBench's screenshot score (facebookresearch/sweet_rl scripts/evaluate_html.py): the cosine of two CLIP image
// embeddings, here from a CLIP checkpoint in a local directory (`recipe.similarity: {kind: clip, model: DIR}`).
// One long-lived Python process per worker process and model directory (./clip_embed.py in .venv,
// which does the seed's preprocessing) embeds every image, so torch and the weights load once, not per image; the
// two images of a pair go in one request (one forward pass, as the seed batches). Requests from concurrent scoring
// lanes are answered in order, matched by id. A process that dies fails its pending requests with an error naming
// the model directory, and the next request starts a fresh one.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { clipCheckpointProblem } from './clip-checkpoint';
import { venvExecutable } from '../subprocess/venv';

/** Importing torch and transformers and loading the weights (a real CLIP: a few seconds; a busy machine: more). */
const STARTUP_MS = 300_000;
/** A ViT-B/32 pair takes about half a second on one busy core; this only catches a hung process. */
const REQUEST_MS = 120_000;
const SCRIPT = fileURLToPath(new URL('./clip_embed.py', import.meta.url));

interface Pending {
  resolve: (embeddings: number[][]) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** What a scorer process reports about itself (tests and `npm run bench` read it). */
export interface ClipEmbedderStats {
  /** The Python process's own pid, as it reported it. */
  pid: number;
  /** Images it has embedded (its own count). */
  served: number;
  /** Embedding size. */
  dim: number;
}

let starts = 0;

class ClipEmbedder {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = '';
  private dead: Error | undefined;
  private report: ClipEmbedderStats = { pid: 0, served: 0, dim: 0 };
  private readonly startTimer: NodeJS.Timeout;
  private started!: { resolve: () => void; reject: (err: Error) => void };
  /** Resolves on the process's ready line; rejects if it dies first. */
  readonly ready = new Promise<void>((resolve, reject) => {
    this.started = { resolve, reject };
  });

  private constructor(
    readonly model: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    this.ready.catch(() => {}); // whoever awaits it sees the failure; nobody waiting must not be an unhandled rejection
    this.startTimer = setTimeout(() => this.die(`did not start within ${STARTUP_MS / 1000} s`), STARTUP_MS);
    child.stderr.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-2000);
    });
    child.stdin.on('error', () => {}); // a dead process is reported by 'exit'
    child.on('error', (err) => this.die(`cannot start ${venvExecutable('python')} (run node bin/setup.js): ${err.message}`));
    child.on('exit', (code, sig) =>
      this.die(`exited (${sig ?? `code ${code}`})${this.stderr.trim() ? `: ${this.stderr.trim().slice(-500)}` : ''}`),
    );
    createInterface({ input: child.stdout }).on('line', (line) => this.receive(line));
  }

  private receive(line: string): void {
    let msg: { ready?: boolean; pid?: number; dim?: number; id?: number; embeddings?: unknown; served?: number; error?: string };
    try {
      msg = JSON.parse(line);
    } catch {
      this.die(`wrote a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (msg.ready) {
      clearTimeout(this.startTimer);
      this.report = { pid: msg.pid ?? 0, served: 0, dim: msg.dim ?? 0 };
      this.started.resolve();
      this.idleUnlessBusy();
      return;
    }
    const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
    if (!p || msg.id === undefined) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    this.idleUnlessBusy();
    if (typeof msg.error === 'string') p.reject(new Error(`CLIP scorer (model ${this.model}): ${msg.error}`));
    else if (!Array.isArray(msg.embeddings)) p.reject(new Error(`CLIP scorer (model ${this.model}): an answer without embeddings`));
    else {
      this.report.served = msg.served ?? this.report.served;
      p.resolve(msg.embeddings as number[][]);
    }
  }

  static start(model: string): ClipEmbedder {
    const child = spawn(venvExecutable('python'), [SCRIPT, '--model', model], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    starts++;
    return new ClipEmbedder(model, child);
  }

  stats(): ClipEmbedderStats {
    return { ...this.report };
  }

  get failed(): boolean {
    return this.dead !== undefined;
  }

  /** The process keeps the worker alive only while it has work: an idle scorer never holds a process open. */
  private idleUnlessBusy(): void {
    const handles = [this.child, this.child.stdout, this.child.stderr, this.child.stdin] as Array<{ ref(): void; unref(): void }>;
    for (const h of handles) this.pending.size > 0 ? h.ref() : h.unref();
  }

  private die(why: string): void {
    if (this.dead) return;
    this.dead = new Error(`CLIP scorer (activities/render/clip_embed.py, model ${this.model}) ${why}`);
    clearTimeout(this.startTimer);
    this.started.reject(this.dead);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(this.dead);
    }
    this.pending.clear();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    this.idleUnlessBusy();
  }

  async embed(pngs: Buffer[]): Promise<number[][]> {
    await this.ready;
    if (this.dead) throw this.dead;
    const id = this.nextId++;
    const answer = new Promise<number[][]>((resolve, reject) => {
      const timer = setTimeout(() => this.die(`did not answer within ${REQUEST_MS / 1000} s`), REQUEST_MS);
      this.pending.set(id, { resolve, reject, timer });
    });
    this.idleUnlessBusy();
    this.child.stdin.write(`${JSON.stringify({ id, images: pngs.map((p) => p.toString('base64')) })}\n`);
    return answer;
  }

  close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.ref(); // whoever awaits the exit keeps the process alive until it comes
    this.child.stdin.end(); // the script ends at the end of its input
    return exited;
  }
}

const embedders = new Map<string, ClipEmbedder>();

function embedderFor(model: string): ClipEmbedder {
  const known = embedders.get(model);
  if (known && !known.failed) return known;
  const problem = clipCheckpointProblem(model);
  if (problem) throw new Error(`CLIP scorer: ${problem}`);
  const e = ClipEmbedder.start(model);
  embedders.set(model, e);
  return e;
}

/** Cosine of two vectors (of the L2-normalised vectors: the same thing). */
export function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new Error(`embedding sizes differ: ${a.length} vs ${b.length}`);
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na === 0 || nb === 0) throw new Error('zero embedding vector: cosine undefined');
  return dot / (Math.sqrt(na) * Math.sqrt(nb));
}

/** ColBench's score for two PNG screenshots: the cosine of their CLIP image embeddings, in [-1, 1]. */
export async function clipSimilarity(model: string, pngA: Buffer, pngB: Buffer): Promise<number> {
  const [a, b] = await embedderFor(model).embed([pngA, pngB]);
  return cosine(a, b);
}

/** The scorer process for `model` in this worker process, and how many processes this worker has started. */
export function clipScorerStats(model: string): (ClipEmbedderStats & { starts: number }) | undefined {
  const e = embedders.get(model);
  return e && { ...e.stats(), starts };
}

/** Ends every scorer process (tests, the bench; a worker's exit ends them anyway: their input closes). */
export async function closeClipScorers(): Promise<void> {
  const all = [...embedders.values()];
  embedders.clear();
  await Promise.all(all.map((e) => e.close()));
}
