// One live view of a run, shared by `watch`, `start --wait`, `continue --wait` and `demo`: from successive
// statuses, the moments worth a line of their own (a stage begins, a stage needs attention, the user retried or
// paused, an iteration ends with its metrics, the run closes) and what the running stage is doing now. Plain
// data: cli/live-display.ts draws it on a terminal or as plain lines.
import { iterationLabel } from '../contracts/iteration-label';
import type { StageProgress } from '../contracts/progress';
import type { StageStats } from '../contracts/run';
import { STAGES, type Stage } from '../contracts/stages';
import { attentionLines, metricsLine, statusHeadline } from './format';
import { runIterationEta, runProgress } from './run-progress';
import type { RunStatus } from './loop-workflow';
import { busyLine } from './worker-busy';

export interface LiveFrame {
  /** Lines to print once, in order (on a terminal: above the live rows). */
  log: string[];
  /** Where the run is: "run demo (coral) · running · iteration 0 (of 0–1) · stage generate". */
  header: string;
  /** The running stage's work (absent between stages and in stages that report none). */
  progress?: StageProgress;
  iterationEta?: number;
  /** Which stage of which iteration `progress` belongs to: a display starts its rows anew when it changes. */
  stageKey?: string;
}

export class LiveView {
  private stageKey?: string;
  /** `iteration/stage` of every stage given its line: a stage that began and ended between two looks still gets one. */
  private announced = new Set<string>();
  private attention?: string;
  private paused = false;
  private doneCount?: number;
  /** What the stage's activities were seen waiting on (a worker, a retry, a heartbeat timeout), clocks left out. */
  private waits = new Set<string>();
  /** The last frame shown, its log left out, and when: what a busy worker's frames go on showing. */
  private shown?: { frame: LiveFrame; at: number };
  /** Since when no worker has answered (undefined while one does). */
  private busySince?: number;

  /** The frame of the run's latest status: log lines for what changed since the previous one. */
  next(s: RunStatus, now = Date.now()): LiveFrame {
    const { loop, iteration: it } = s;
    const running = s.workflowStatus === 'RUNNING';
    const log: string[] = [];
    if (this.busySince !== undefined) log.push(`worker answering again after ${Math.round((now - this.busySince) / 1000)} s`);
    this.busySince = undefined;
    const firstLook = this.doneCount === undefined;
    const stageLine = (i: number, stage: string) => `${iterationLabel({ iteration: i, iterations: loop.iterations })} · stage ${stage}`;
    // A line for each stage of iteration `i` that began since the last look, in the order stages run, up to `upTo`
    // (a later stage's stats may be left from before a `retry --stage` went back).
    const announce = (i: number, stages: Partial<Record<string, StageStats>>, upTo: number) => {
      for (const stage of STAGES.slice(0, upTo + 1)) {
        const key = `${i}/${stage}`;
        if (!stages[stage] || this.announced.has(key)) continue;
        this.announced.add(key);
        if (!firstLook) log.push(stageLine(i, stage)); // on the first look they began before anyone watched
      }
    };
    // Iterations that ended since the last look (none on the first: they ended before anyone watched).
    for (const d of loop.done.slice(this.doneCount ?? loop.done.length)) {
      announce(d.iteration, d.stages ?? {}, STAGES.length - 1);
      log.push(`iteration ${d.iteration} done${Object.keys(d.metrics).length ? `: ${metricsLine(d.metrics)}` : ''}`);
    }
    this.doneCount = loop.done.length;

    const stageKey = running && it && it.stage !== 'done' ? `${loop.iteration}/${it.stage}` : undefined;
    if (running && it) {
      const at = STAGES.indexOf(it.stage as Stage);
      announce(loop.iteration, it.stages, at < 0 ? STAGES.length - 1 : at - 1);
      // The running stage: on every change, a stage a retry went back to included.
      if (stageKey && stageKey !== this.stageKey) {
        this.announced.add(stageKey);
        log.push(stageLine(loop.iteration, it.stage));
      }
    }
    if (stageKey !== this.stageKey) this.waits.clear();
    if (stageKey) this.stageKey = stageKey;

    // Why a stage sits still with no error yet (no worker, a retry's backoff): once per kind of wait.
    for (const w of running ? (s.waits ?? []) : []) {
      const key = `${w.activity} ${w.waiting.replace(/\d+ s\b/g, '')}`;
      if (!this.waits.has(key)) log.push(`${it?.stage} (${w.activity}): ${w.waiting}`);
      this.waits.add(key);
    }

    const attention = running && it?.attention;
    const attentionKey = attention ? `${attention.stage}@${attention.since}` : undefined;
    if (attention && attentionKey !== this.attention) log.push(...attentionLines(loop.runName, attention));
    else if (!attention && this.attention && running) log.push(`stage ${it?.stage ?? ''} goes on after the retry`.trim());
    this.attention = attentionKey;

    const paused = running && loop.paused;
    if (paused !== this.paused && running)
      log.push(paused ? `paused at the next stage boundary (collab-loop resume ${loop.runName} goes on)` : 'resumed');
    this.paused = paused;

    const progress = runProgress(s);
    const stage = stageKey ? ` · stage ${it!.stage}` : '';
    const frame: LiveFrame = {
      log,
      header: `${statusHeadline(s)}${stage}`,
      ...(progress ? { progress, iterationEta: runIterationEta(s, progress) } : {}),
      ...(stageKey ? { stageKey } : {}),
    };
    this.shown = { frame: { ...frame, log: [] }, at: now };
    return frame;
  }

  /** The frame while no worker answers (`known`: what the server alone says): the last one shown, with a line saying
   *  so once per busy spell; before any, the run's headline. Its statuses are not taken as the run's: they lack
   *  what only the worker knows, and a stage or iteration end seen from them would be announced twice. */
  busy(reason: string, known: RunStatus, now = Date.now()): LiveFrame {
    const line = this.shown ? busyLine(reason, this.shown.at) : `${busyLine(reason)}, retrying`;
    const log = this.busySince === undefined ? [line] : [];
    this.busySince ??= now;
    return this.shown ? { ...this.shown.frame, log } : { log, header: statusHeadline(known) };
  }
}
