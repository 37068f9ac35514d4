// The MATH grader's symbolic step: are two normalised answers equal under sympy? (the seeds' grader,
// vsubramaniam851/multiagent-ft multiagent-ft/grader.py `are_equal_under_sympy`, which CoRal's evaluator calls).
// One long-lived Python process per worker process (./sympy_equal.py, sympy from requirements.txt)
// answers it; a worker thread (symbolic-worker.mjs) owns that process and the caller blocks on Atomics.wait, so the
// graders stay synchronous functions every recipe can call (CoRal's agreement and match, debate's vote) — the
// price is that the calling thread waits for sympy, a few milliseconds per new pair (`npm run bench` measures it)
// and at most SYMPY_ITEM_SECONDS for a pathological one. Answers are memoised per pair.
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { venvExecutable } from '../../subprocess/venv';

/** Per-item limit: an item sympy cannot settle in this time is "not equal" (reason timeout). */
export const SYMPY_ITEM_SECONDS = 5;
/** Starting Python and importing sympy. */
const STARTUP_MS = 120_000;
const MEMO_LIMIT = 50_000;

export interface SympyAnswer {
  equal: boolean;
  /** Why a pair is not equal when sympy did not decide it: "timeout", "error: TokenError", … */
  reason?: string;
}

class SympyProcess {
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly channel = new MessageChannel();
  private readonly worker: Worker;
  readonly version: string;

  constructor() {
    this.worker = new Worker(new URL('./symbolic-worker.mjs', import.meta.url), {
      workerData: {
        python: venvExecutable('python'),
        script: fileURLToPath(new URL('./sympy_equal.py', import.meta.url)),
        itemSeconds: SYMPY_ITEM_SECONDS,
        signal: this.signal,
        port: this.channel.port2,
      },
      transferList: [this.channel.port2],
    });
    this.worker.unref(); // the helper lives as long as the process that grades, and never keeps it alive
    this.channel.port1.unref();
    const ready = this.receive(STARTUP_MS, 'start') as { ready?: boolean; sympy?: string };
    this.version = ready.sympy ?? '?';
  }

  private receive(timeoutMs: number, what: string): Record<string, unknown> {
    if (Atomics.wait(this.signal, 0, 0, timeoutMs) === 'timed-out') throw this.fail(`did not ${what} within ${timeoutMs / 1000} s`);
    Atomics.store(this.signal, 0, 0);
    const got = receiveMessageOnPort(this.channel.port1)?.message as Record<string, unknown> | undefined;
    if (!got) throw this.fail(`signalled an answer to ${what} but posted none`);
    if (typeof got.fatal === 'string') throw this.fail(got.fatal);
    return got;
  }

  private fail(why: string): Error {
    void this.worker.terminate();
    return new Error(`MATH grading: the sympy helper (activities/recipes/shared/sympy_equal.py in .venv; run node bin/setup.js) ${why}`);
  }

  ask(a: string, b: string): SympyAnswer {
    this.worker.postMessage({ a, b });
    const got = this.receive((SYMPY_ITEM_SECONDS + 30) * 1000, `answer (${a}) vs (${b})`);
    return { equal: got.equal === true, ...(typeof got.reason === 'string' ? { reason: got.reason } : {}) };
  }
}

let helper: SympyProcess | undefined;
const memo = new Map<string, SympyAnswer>();
const stats = { asked: 0, memoHits: 0 };

/** Pairs sent to sympy and pairs answered from the memo, in this process (for `npm run bench`). */
export const sympyStats = () => ({ ...stats });

/** Does sympy simplify (a) − (b) to 0? Both sides already normalised (math-normalize.ts graderNormalize). */
export function equalUnderSympy(a: string, b: string): SympyAnswer {
  const key = `${a}\u0000${b}`;
  const known = memo.get(key);
  if (known) {
    stats.memoHits++;
    return known;
  }
  try {
    helper ??= new SympyProcess();
  } catch (err) {
    helper = undefined;
    throw err;
  }
  let answer: SympyAnswer;
  try {
    answer = helper.ask(a, b);
    stats.asked++;
  } catch (err) {
    helper = undefined; // the next pair starts a fresh helper
    throw err;
  }
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, answer);
  return answer;
}
