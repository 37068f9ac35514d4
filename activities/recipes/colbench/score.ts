// `collab-loop score --recipe colbench-code --input trajectories.jsonl`: scores saved answers on their own (no model,
// no simulator), so the evaluator can be checked against known results. One result per record, in file order.
// A record is either
//  - the seed's trajectory format: `task` (a backend task row: problem_description, ground_truth, test_cases, …),
//    `dialogue_history`, `answer` (the code, or the seed's "No answer"); or
//  - our own trajectory (episode.ts): `taskId`, `answer`, resolved against `opts.tasks` (the task file).
// A bad record is one TaskFileError naming file, line and field.
import { scoreCodeAnswer, type CodeScore, type CodeScoreOptions } from './scoring';
import type { AnswerFailureReason, RunCodeTests, TestFailureCounts } from './services';
import { parseColbenchRow, TaskFileError, type ColbenchCodeTask } from './tasks';
import { readTaskFile, rowId } from '../task-file';

/** One line of `collab-loop score --recipe colbench-code` (docs/recipes/colbench.md). */
export interface ScoredCodeRecord {
  /** The record's own `id` as written (a number stays a number), else its task's. */
  id: string | number;
  success: boolean;
  fraction: number;
  passed: number;
  /** Tests that count: `fixed` leaves out those the reference failed on (they are in `reasons.reference_error`). */
  total: number;
  /** Failed tests per reason; present when some test ran and did not pass. */
  reasons?: TestFailureCounts;
  /** Why nothing of the answer could be scored: no_answer, blocklist, syntax_error, reference_failed. */
  reason?: AnswerFailureReason;
}

/** A record's line of output: every record not fully passed says why, with `reasons`, `reason` or both. */
export function scoredCodeRecord(id: string | number, s: CodeScore): ScoredCodeRecord {
  const out: ScoredCodeRecord = { id, success: s.success, fraction: s.fraction, passed: s.passed, total: s.total };
  if (Object.values(s.reasons).some((n) => n > 0)) out.reasons = s.reasons;
  if (s.reason) out.reason = s.reason;
  return out;
}

export interface ScoreFileOptions extends CodeScoreOptions {
  /** Tasks for records in our own format (they carry only `taskId`). */
  tasks?: readonly ColbenchCodeTask[];
}

type Row = Record<string, unknown>;

function recordTask(r: Row, file: string, line: number, tasks: Map<string, ColbenchCodeTask>): ColbenchCodeTask {
  if (r.task !== undefined) {
    if (!r.task || typeof r.task !== 'object' || Array.isArray(r.task))
      throw new TaskFileError(file, line, 'task', 'must be an object (a backend task row)');
    // The seed's rows have no id: the result is then named after the line ("code-<line>").
    return parseColbenchRow(r.task as Row, 'code', file, line, 'task.') as ColbenchCodeTask;
  }
  if (typeof r.taskId !== 'string' || r.taskId === '')
    throw new TaskFileError(
      file,
      line,
      'task',
      'is missing: give the task row under "task" (the seed\'s format) or a "taskId" from the task file',
    );
  const task = tasks.get(r.taskId);
  if (!task)
    throw new TaskFileError(
      file,
      line,
      'taskId',
      tasks.size ? `"${r.taskId}" is not in the task file` : 'needs a task file (--tasks) to be resolved',
    );
  return task;
}

export function parseScoreRecord(
  row: unknown,
  file: string,
  line: number,
  tasks: Map<string, ColbenchCodeTask> = new Map(),
): { task: ColbenchCodeTask; answer: string | null; id?: string | number } {
  if (!row || typeof row !== 'object' || Array.isArray(row)) throw new TaskFileError(file, line, '', 'the record must be a JSON object');
  const r = row as Row;
  const task = recordTask(r, file, line, tasks);
  if (r.answer !== null && typeof r.answer !== 'string')
    throw new TaskFileError(file, line, 'answer', 'must be a string (the agent\'s code, or "No answer") or null');
  if (r.dialogue_history !== undefined && !Array.isArray(r.dialogue_history))
    throw new TaskFileError(file, line, 'dialogue_history', 'must be a list of messages');
  // The record's own id, else its task row's, as written; else (undefined) the id the task got from its line.
  const id = rowId(r, file, line) ?? (r.task !== undefined ? rowId(r.task as Row, file, line, 'task.id') : undefined);
  return { task, answer: r.answer as string | null, id };
}

/** Parses every record first (a bad file fails before any sandbox run), then scores them one by one. */
export async function scoreColbenchCodeFile(
  file: string,
  runCodeTests: RunCodeTests,
  opts: ScoreFileOptions = {},
): Promise<ScoredCodeRecord[]> {
  const content = readTaskFile(file);
  const tasks = new Map((opts.tasks ?? []).map((t) => [t.id, t]));
  const records: ReturnType<typeof parseScoreRecord>[] = [];
  content
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch (err) {
        throw new TaskFileError(file, i + 1, '', `the record is not valid JSON (${(err as Error).message})`);
      }
      records.push(parseScoreRecord(row, file, i + 1, tasks));
    });
  if (records.length === 0) throw new TaskFileError(file, 0, '', 'contains no records');
  const out: ScoredCodeRecord[] = [];
  for (const { task, answer, id } of records) {
    out.push(scoredCodeRecord(id ?? task.id, await scoreCodeAnswer(answer, task, runCodeTests, opts)));
  }
  return out;
}
