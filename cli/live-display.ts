// Draws a run's live view (cli/live-view.ts). On a terminal, cli-progress (a maintained, dependency-light
// multi-bar library) keeps a block of rows redrawn in place under the log lines: the run's header, one bar for the
// stage's units done of total, one bar per trainer, and text rows for LLM calls, tokens, spend and the iteration's
// ETA — the words are contracts/progress-text.ts's, as in `status` and the Temporal UI. Off a terminal (a pipe, CI
// logs) the same view becomes plain lines: one per event, and the progress at most every `progressEveryMs`.
import cliProgress from 'cli-progress';
import { durationOfSeconds } from '../contracts/duration';
import { countLine, llmLine, progressLines, trainerLine } from '../contracts/progress-text';
import type { LiveFrame } from './live-view';

export interface LiveDisplay {
  show(f: LiveFrame): void;
  /** Prints what is pending and leaves the terminal as it was (cursor shown, no live rows). */
  close(): void;
}

/** One live row: a bar (units done of total) with its words, or words alone. */
interface Row {
  line: string;
  bar?: { value: number; total: number };
}

/** The rows under the log: header, the stage's count (or its trainers), LLM calls, the iteration's ETA. */
export function liveRows(f: LiveFrame): Row[] {
  const rows: Row[] = [{ line: f.header }];
  const p = f.progress;
  if (!p) return rows;
  if (p.unit === 'steps')
    for (const t of p.trainers ?? [])
      rows.push({ line: trainerLine(t), ...(t.total ? { bar: { value: Math.min(t.step, t.total), total: t.total } } : {}) });
  else
    rows.push({ line: `${p.stage}: ${countLine(p)}`, ...(p.total ? { bar: { value: Math.min(p.done, p.total), total: p.total } } : {}) });
  const llm = llmLine(p);
  if (llm) rows.push({ line: llm });
  if (f.iterationEta !== undefined) rows.push({ line: `iteration ETA ${durationOfSeconds(f.iterationEta)}` });
  return rows;
}

const BAR_FORMAT = '  {bar} {line}';
const TEXT_FORMAT = '  {line}';

class TerminalDisplay implements LiveDisplay {
  private multi?: cliProgress.MultiBar;
  private bars: cliProgress.SingleBar[] = [];
  /** The shape of the drawn rows (bar or text per row): rows are made anew when it changes. */
  private shape = '';

  constructor(private readonly stream: NodeJS.WriteStream) {}

  show(f: LiveFrame): void {
    const rows = liveRows(f);
    const shape = rows.map((r) => (r.bar ? 'b' : 't')).join('');
    if (shape !== this.shape || !this.multi) this.restart(rows, shape);
    for (const line of f.log) this.multi!.log(`${line}\n`);
    rows.forEach((r, i) => {
      if (r.bar) this.bars[i].setTotal(r.bar.total);
      this.bars[i].update(r.bar?.value ?? 0, { line: r.line });
    });
    this.multi!.update();
  }

  private restart(rows: Row[], shape: string): void {
    this.stop();
    this.multi = new cliProgress.MultiBar(
      // linewrap: the terminal keeps wrapping, so a long log line (an iteration's metrics, an error) is shown whole;
      // cli-progress then cuts each live row at the terminal's width itself, which keeps its redraw in place.
      { stream: this.stream, hideCursor: true, clearOnComplete: true, linewrap: true, barsize: 24, format: TEXT_FORMAT },
      cliProgress.Presets.shades_classic,
    );
    this.bars = rows.map((r) =>
      this.multi!.create(r.bar?.total ?? 1, r.bar?.value ?? 0, { line: r.line }, { format: r.bar ? BAR_FORMAT : TEXT_FORMAT }),
    );
    this.shape = shape;
  }

  /** Flushes the log lines (cli-progress writes them at its next redraw) and clears the live rows. */
  private stop(): void {
    if (!this.multi) return;
    this.multi.update();
    this.multi.stop();
    this.multi = undefined;
  }

  close(): void {
    this.stop();
  }
}

class PlainDisplay implements LiveDisplay {
  private lastAt = 0;
  private stageKey?: string;
  private lastLines = '';

  constructor(
    private readonly write: (line: string) => void,
    private readonly progressEveryMs: number,
    private readonly now: () => number,
  ) {}

  show(f: LiveFrame): void {
    for (const line of f.log) this.write(line);
    // A stage's progress is worth a line once it has worked a while: not at its start, not more often than this.
    if (f.stageKey !== this.stageKey) {
      this.stageKey = f.stageKey;
      this.lastAt = this.now();
      this.lastLines = '';
    }
    if (!f.progress || this.now() - this.lastAt < this.progressEveryMs) return;
    const lines = progressLines(f.progress, f.iterationEta);
    if (lines.join('\n') === this.lastLines) return;
    for (const line of lines) this.write(`  ${line}`);
    this.lastLines = lines.join('\n');
    this.lastAt = this.now();
  }

  close(): void {}
}

/** The display for this output: live rows on a terminal, plain lines elsewhere. */
export function liveDisplay(
  o: { stream?: NodeJS.WriteStream; write?: (line: string) => void; progressEveryMs?: number; now?: () => number } = {},
): LiveDisplay {
  const stream = o.stream ?? process.stdout;
  if (stream.isTTY && !o.write) return new TerminalDisplay(stream);
  return new PlainDisplay(o.write ?? ((l) => stream.write(`${l}\n`)), o.progressEveryMs ?? 10_000, o.now ?? Date.now);
}
