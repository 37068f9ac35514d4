// `collab-loop score --recipe colbench-code --input trajectories.jsonl`: scores saved answers on their own (no model,
// no simulator), so the evaluator can be checked against known results. One result per record, in file order.
// A record is either
//  - the seed's trajectory format: `task` (a backend task row: problem_description, ground_truth, test_cases, …),
//    `dialogue_history`, `answer` (the code, or the seed's "No answer"); or
//  - our own trajectory (episode.ts): `taskId`, `answer`, resolved against `opts.tasks` (the task file).
// A bad record is one TaskFileError naming file, line and field.
import { scoreCodeAnswer, type CodeScoreOptions } from './scoring';
import type { RunCodeTests } from './services';
import { parseColbenchRow, TaskFileError, type ColbenchCodeTask } from './tasks';
import { readTaskFile } from '../task-file';

export interface ScoredCodeRecord {
  id: string;
  success: boolean;
  fraction: number;
  passed: number;
  total: number;
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
): { task: ColbenchCodeTask; answer: string | null; id?: string } {
  if (!row || typeof row !== 'object' || Array.isArray(row)) throw new TaskFileError(file, line, '', 'the record must be a JSON object');
  const r = row as Row;
  const task = recordTask(r, file, line, tasks);
  if (r.answer !== null && typeof r.answer !== 'string')
    throw new TaskFileError(file, line, 'answer', 'must be a string (the agent\'s code, or "No answer") or null');
  if (r.dialogue_history !== undefined && !Array.isArray(r.dialogue_history))
    throw new TaskFileError(file, line, 'dialogue_history', 'must be a list of messages');
  return { task, answer: r.answer as string | null, id: typeof r.id === 'string' ? r.id : undefined };
}

/** Parses every record first (a bad file fails before any sandbox run), then scores them one by one. */
export async function scoreColbenchCodeFile(
  file: string,
  runCodeTests: RunCodeTests,
  opts: ScoreFileOptions = {},
): Promise<ScoredCodeRecord[]> {
  const content = readTaskFile(file);
  const tasks = new Map((opts.tasks ?? []).map((t) => [t.id, t]));
  const records: Array<{ task: ColbenchCodeTask; answer: string | null; id?: string }> = [];
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
    const s = await scoreCodeAnswer(answer, task, runCodeTests, opts);
    // A record's own id names its line of output; else the task's.
    out.push({ id: id ?? task.id, success: s.success, fraction: s.fraction, passed: s.passed, total: s.total });
  }
  return out;
}
