// CollabLLM task files (Wuyxin/collabllm; arXiv 2502.00640): JSONL rows normalised to one CollabTask per task. A row may
// be in any of these shapes (each row is recognised by its fields, so one file may mix them):
//   (a) ours:  {"id"?, "prompt", "answer"} — code rows add "entry_point" and "test" (unittest source, class TestCases)
//   (b) the seed's single-turn rows (collabllm/datasets/single_turn.py, to_hf_dataset):
//       {"single_turn_prompt", "single_turn_completion", "single_turn_metadata"?}; for code the completion is a JSON
//       string {dataset, task_id, test, entry_point, answer} (examples/single_turn_ds/bigcodebench.py)
//   (c) the published flat multi-turn rows (collabllm/datasets/multiturn.py), one per candidate turn: {"prompt": [messages],
//       "completion", "conv_id", "turn_id", "score", "single_turn_prompt", "single_turn_completion",
//       "single_turn_metadata", ...}; only the conv_id and single_turn_* fields are read, one task per conv_id
//       ("conv-<conv_id>"), and later rows of a conversation must repeat its single_turn_prompt.
//   (d) kind abg-coqa only: an Abg-CoQA story entry, one per line — the `data` entries of the dataset's
//       coqa_abg_<split>.json (`jq -c '.data[]'` writes them): {"story", "target_turn": {"question"}, "ambiguity",
//       "id"?, ...}. The prompt asks for help with the target question about the story (in our words; the seed's
//       examples/single_turn_ds/abg_coqa.py, add_history off by default, leaves the earlier turns out too) and the
//       answer is the label, "ambiguous" or "non_ambiguous". Rows of shape (b) exported with the seed's adaptor
//       keep its exact prompt.
// Published data (Hugging Face, parquet; export to JSONL with `datasets`): collabllm/collabllm-multiturn-math-hard,
// -medium, -bigcodebench, and the paper-scale -math-hard-large, -medium-large, -bigcodebench-large. Their single-turn
// sources: lighteval/MATH-Hard (math), Kamaljp/medium_articles (document), bigcode/bigcodebench v0.1.2 (code).
// Without an id a row is named by its task_id (code) or `<kind>-<line>`. A bad row is one TaskFileError naming file,
// line and field.
import { parseTaskRows, readTaskFile, type Row, splitTaskReader, TaskFileError } from '../task-file';

export { TaskFileError };

export const COLLAB_TASK_KINDS = ['math', 'document', 'code', 'abg-coqa'] as const;
export type CollabTaskKind = (typeof COLLAB_TASK_KINDS)[number];
export const isCollabTaskKind = (k: string): k is CollabTaskKind => (COLLAB_TASK_KINDS as readonly string[]).includes(k);

/** What the user simulator is told the task is about, per kind (examples/single_turn_ds/__init__.py, datasets_info). */
export const COLLAB_TASK_DESCRIPTIONS: Readonly<Record<CollabTaskKind, string>> = Object.freeze({
  math: 'question answering',
  document: 'document editing',
  code: 'code generation',
  'abg-coqa': 'question answering',
});

export interface CollabTask {
  id: string;
  kind: CollabTaskKind;
  /** The task description the user simulator is told, e.g. "question answering". */
  description: string;
  /** The single-turn prompt: the user's hidden goal. Only the simulator sees it. */
  prompt: string;
  /** Ground truth: the answer (math), the reference document, or the reference solution (code). */
  answer: string;
  /** Code tasks only: what the unit-test runner needs. */
  code?: {
    /** The function the candidate must define (BigCodeBench: task_func). */
    entryPoint: string;
    /** Python unittest source defining class TestCases. */
    test: string;
  };
}

interface At {
  file: string;
  line: number;
}

const fail = (at: At, field: string, detail: string): never => {
  throw new TaskFileError(at.file, at.line, field, detail);
};

function text(row: Row, field: string, at: At, prefix = ''): string {
  const v = row[field];
  if (typeof v !== 'string' || v.trim() === '') fail(at, `${prefix}${field}`, 'must be a non-empty string');
  return v as string;
}

function codeSpec(row: Row, at: At, prefix = ''): { entryPoint: string; test: string } {
  const entryPoint = text(row, 'entry_point', at, prefix);
  if (!/^[A-Za-z_]\w*$/.test(entryPoint)) fail(at, `${prefix}entry_point`, 'must be a Python identifier');
  const test = text(row, 'test', at, prefix);
  // BigCodeBench's checker loads exactly this class from the test source.
  if (!/^class\s+TestCases\b/m.test(test)) fail(at, `${prefix}test`, 'must define class TestCases (a unittest.TestCase)');
  return { entryPoint, test };
}

function explicitId(row: Row, at: At): string | undefined {
  const v = row.id;
  if (v === undefined) return undefined;
  if ((typeof v !== 'string' && typeof v !== 'number') || String(v) === '') fail(at, 'id', 'must be a non-empty string or a number');
  return String(v);
}

function task(kind: CollabTaskKind, id: string, prompt: string, answer: string, code?: CollabTask['code']): CollabTask {
  const t: CollabTask = { id, kind, description: COLLAB_TASK_DESCRIPTIONS[kind], prompt, answer };
  if (code) t.code = code;
  return t;
}

/** Shapes (b) and (c): the single_turn_* fields; the code ground truth is the JSON package inside the completion. */
function fromSingleTurn(row: Row, kind: CollabTaskKind, at: At, id: string | undefined): CollabTask {
  const prompt = text(row, 'single_turn_prompt', at);
  const meta = row.single_turn_metadata;
  if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta)))
    fail(at, 'single_turn_metadata', 'must be an object');
  if (kind !== 'code') return task(kind, id ?? `${kind}-${at.line}`, prompt, text(row, 'single_turn_completion', at));
  const raw = row.single_turn_completion;
  let pkg: unknown = raw;
  if (typeof raw === 'string') {
    try {
      pkg = JSON.parse(raw);
    } catch {
      pkg = undefined;
    }
  }
  if (!pkg || typeof pkg !== 'object' || Array.isArray(pkg))
    return fail(at, 'single_turn_completion', 'must be a JSON object string {dataset, task_id, test, entry_point, answer}');
  const p = pkg as Row;
  const prefix = 'single_turn_completion.';
  const answer = text(p, 'answer', at, prefix);
  const code = codeSpec(p, at, prefix);
  const taskId = typeof p.task_id === 'string' && p.task_id.trim() ? p.task_id : undefined;
  return task(kind, id ?? taskId ?? `${kind}-${at.line}`, prompt, answer, code);
}

/** Abg-CoQA's two labels (the seed's completion for the kind). */
export const ABG_COQA_LABELS = ['ambiguous', 'non_ambiguous'] as const;

function label(v: string, at: At, field: string): string {
  if (!(ABG_COQA_LABELS as readonly string[]).includes(v)) fail(at, field, `must be one of ${ABG_COQA_LABELS.join(', ')}`);
  return v;
}

/** Shape (d): an Abg-CoQA story entry. */
function fromAbgCoqa(row: Row, at: At): CollabTask {
  const story = text(row, 'story', at);
  const target = row.target_turn;
  if (!target || typeof target !== 'object' || Array.isArray(target)) return fail(at, 'target_turn', 'must be an object with a "question"');
  const question = text(target as Row, 'question', at, 'target_turn.');
  const answer = label(text(row, 'ambiguity', at), at, 'ambiguity');
  const prompt = `Can you help me answer this question about the story below? ${question.trim()}\n\n${story.trim()}`;
  return task('abg-coqa', explicitId(row, at) ?? `abg-coqa-${at.line}`, prompt, answer);
}

function parseRow(row: Row, kind: CollabTaskKind, at: At): CollabTask {
  if (kind === 'abg-coqa') {
    if (row.story !== undefined) return fromAbgCoqa(row, at);
    const t = parseSharedShapes(row, kind, at);
    label(t.answer, at, row.single_turn_prompt !== undefined ? 'single_turn_completion' : 'answer');
    return t;
  }
  return parseSharedShapes(row, kind, at);
}

/** Shapes (a), (b) and (c). */
function parseSharedShapes(row: Row, kind: CollabTaskKind, at: At): CollabTask {
  if (row.conv_id !== undefined) {
    const c = row.conv_id;
    if (!((typeof c === 'number' && Number.isInteger(c)) || (typeof c === 'string' && c.trim() !== '')))
      fail(at, 'conv_id', 'must be an integer or a non-empty string');
    return fromSingleTurn(row, kind, at, `conv-${c}`);
  }
  const id = explicitId(row, at);
  if (row.single_turn_prompt !== undefined) return fromSingleTurn(row, kind, at, id);
  const prompt = text(row, 'prompt', at);
  const answer = text(row, 'answer', at);
  return task(kind, id ?? `${kind}-${at.line}`, prompt, answer, kind === 'code' ? codeSpec(row, at) : undefined);
}

export function parseCollabTasks(content: string, file: string, kind: CollabTaskKind): CollabTask[] {
  if (!isCollabTaskKind(kind))
    throw new TaskFileError(file, 0, '', `kind "${kind as string}" is not one of ${COLLAB_TASK_KINDS.join(', ')}`);
  // Shape (c) repeats a conversation on many rows: keep its first, and give the repeats a private id so that the
  // shared duplicate-id check still catches a real clash.
  const firstOfConv = new Map<string, { line: number; prompt: string }>();
  const rows = parseTaskRows<{ id: string; task?: CollabTask }>(content, file, (row, line) => {
    const t = parseRow(row, kind, { file, line });
    if (row.conv_id === undefined) return { id: t.id, task: t };
    const first = firstOfConv.get(t.id);
    if (!first) {
      firstOfConv.set(t.id, { line, prompt: t.prompt });
      return { id: t.id, task: t };
    }
    if (first.prompt !== t.prompt)
      fail({ file, line }, 'single_turn_prompt', `differs from line ${first.line}, which has the same conv_id`);
    return { id: `\0${t.id}#${line}` };
  });
  return rows.flatMap((r) => (r.task ? [r.task] : []));
}

export function loadCollabTasks(file: string, kind: CollabTaskKind): CollabTask[] {
  const content = readTaskFile(file);
  return parseCollabTasks(content, file, kind);
}

/** A recipe section's tasks per split, each file read once per process and kind. */
export const readCollabSplit = splitTaskReader(loadCollabTasks);
