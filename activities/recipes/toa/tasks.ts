// TOA task files (oceanypt/TOA; arXiv 2412.17061): JSONL prompt sets normalised to one ToaTask per row, for two kinds.
// A row may be in any of these shapes (each row is recognised by its fields, so one file may mix them):
//   (a) ours, instruction:  {"id"?, "instruction"}
//       ours, translation:  {"id"?, "instruction", "src", "ref"?, "src_lang"?} — src: the text to translate into English;
//                           ref: a reference translation (optional: the search's KIWI-style scorer is reference-free);
//                           src_lang: the source's language code ("de"), which the prompts name
//   (b) the seed's WMT'22 rows (data/wmt22_test/test.<lang>_to_en.*.jsonl), translation only:
//       {"id", "instruction", "<src_lang>": source, "en": reference, "dataset"?}, e.g. {"id": 219, "instruction": …,
//       "de": "…", "en": "…", "dataset": "WMT22-Test_de_en"}: the one lower-case 2–3-letter key other than "en" (and
//       "id") is the source language → srcLang, its text → src, "en" → ref. The seed's "instruction" embeds the source
//       in its own prompt wording; it is kept as the row's text, but the calls are built from src (prompts.ts).
//   (c) AlpacaEval (tatsu-lab/alpaca_eval, alpaca_eval.json): {"instruction", "dataset", "output"?, "generator"?} — no
//       id, so the row is named `<kind>-<line>`; the seed's own AlpacaEval / Arena-Hard subsets add an "id" (shape a).
//   (d) UltraFeedback prompts (princeton-nlp/llama3-ultrafeedback-armorm, the seed's SFT/DPO prompt set):
//       {"prompt_id", "prompt", "all_generated_responses"?, "all_rm_scores"?, "chosen"?, "rejected"?} → id = prompt_id,
//       instruction = prompt.
//   (e) Arena-Hard questions (lmarena arena-hard v0.1, question.jsonl): {"question_id", "category"?, "cluster"?,
//       "turns": [{"content"}, …]} → id = question_id, instruction = the first turn's content (v0.1 has one turn).
// The instruction is the question every response is scored against (never a refine prompt). Any shape works for the
// instruction kind; the translation kind needs a source, (a) or (b). An explicit "id" wins over prompt_id and
// question_id; without any, a row is `<kind>-<line>`. Fields not named here are ignored. A bad row is one
// TaskFileError naming file, line and field.
import { parseTaskRows, readTaskFile, type Row, splitTaskReader, TaskFileError } from '../task-file';

export { TaskFileError };

export const TOA_TASK_KINDS = ['instruction', 'translation'] as const;
export type ToaTaskKind = (typeof TOA_TASK_KINDS)[number];
export const isToaTaskKind = (k: string): k is ToaTaskKind => (TOA_TASK_KINDS as readonly string[]).includes(k);

export interface ToaTask {
  id: string;
  kind: ToaTaskKind;
  /** The prompt as the row gives it: the question (instruction) or the row's own translation request. */
  instruction: string;
  /** translation: the text to translate into English. */
  src?: string;
  /** translation: the source's language code, e.g. "de" (the WMT key, or our row's src_lang). */
  srcLang?: string;
  /** translation: a reference English translation, when the row has one. */
  ref?: string;
}

interface At {
  file: string;
  line: number;
}

const fail = (at: At, field: string, detail: string): never => {
  throw new TaskFileError(at.file, at.line, field, detail);
};

function text(row: Row, field: string, at: At, shown = field): string {
  const v = row[field];
  if (typeof v !== 'string' || v.trim() === '') fail(at, shown, 'must be a non-empty string');
  return v as string;
}

function idField(row: Row, field: string, at: At): string | undefined {
  const v = row[field];
  if (v === undefined) return undefined;
  if ((typeof v !== 'string' && typeof v !== 'number') || String(v).trim() === '')
    fail(at, field, 'must be a non-empty string or a number');
  return String(v);
}

/** A WMT row's language keys: lower-case 2–3 letters ("de", "cs", "zh", "liv"); "id" is the row's id, not Indonesian. */
const LANG_KEY = /^[a-z]{2,3}$/;
const isLangKey = (k: string) => LANG_KEY.test(k) && k !== 'id' && k !== 'en';

/** Shapes (c)–(e) name the question differently; (a) and (b) call it "instruction". */
function instructionOf(row: Row, at: At): string {
  if (row.instruction !== undefined) return text(row, 'instruction', at);
  if (row.turns !== undefined) {
    const turns = row.turns;
    if (!Array.isArray(turns) || turns.length === 0) return fail(at, 'turns', 'must be a non-empty list of {"content"} turns');
    const first = turns[0];
    if (!first || typeof first !== 'object' || Array.isArray(first)) return fail(at, 'turns[0]', 'must be an object {"content"}');
    return text(first as Row, 'content', at, 'turns[0].content');
  }
  if (row.prompt !== undefined) return text(row, 'prompt', at);
  return fail(at, 'instruction', 'must be a non-empty string (or the question as "prompt" or Arena-Hard "turns")');
}

/** Shapes (a) and (b): the source, its language and the reference. */
function translationOf(row: Row, at: At): Pick<ToaTask, 'src' | 'srcLang' | 'ref'> {
  const out: Pick<ToaTask, 'src' | 'srcLang' | 'ref'> = {};
  if (row.src !== undefined) {
    out.src = text(row, 'src', at);
    if (row.src_lang !== undefined) {
      const lang = row.src_lang;
      if (typeof lang !== 'string' || !LANG_KEY.test(lang)) fail(at, 'src_lang', 'must be a lower-case language code such as "de"');
      out.srcLang = lang as string;
    }
    if (row.ref !== undefined) out.ref = text(row, 'ref', at);
    return out;
  }
  const langs = Object.keys(row).filter(isLangKey);
  if (langs.length === 0)
    fail(at, 'src', 'must be a non-empty string (or, in a WMT row, the source under its language code and the reference under "en")');
  if (langs.length > 1) fail(at, langs[1], `is a second source language beside "${langs[0]}" (a WMT row has exactly one)`);
  out.src = text(row, langs[0], at);
  out.srcLang = langs[0];
  if (row.en !== undefined) out.ref = text(row, 'en', at);
  return out;
}

function parseRow(row: Row, kind: ToaTaskKind, at: At): ToaTask {
  const id = idField(row, 'id', at) ?? idField(row, 'prompt_id', at) ?? idField(row, 'question_id', at) ?? `${kind}-${at.line}`;
  const instruction = instructionOf(row, at);
  if (kind === 'instruction') return { id, kind, instruction };
  return { id, kind, instruction, ...translationOf(row, at) };
}

export function parseToaTasks(content: string, file: string, kind: ToaTaskKind): ToaTask[] {
  if (!isToaTaskKind(kind)) throw new TaskFileError(file, 0, '', `kind "${kind as string}" is not one of ${TOA_TASK_KINDS.join(', ')}`);
  return parseTaskRows(content, file, (row, line) => parseRow(row, kind, { file, line }));
}

export function loadToaTasks(file: string, kind: ToaTaskKind): ToaTask[] {
  const content = readTaskFile(file);
  return parseToaTasks(content, file, kind);
}

/** A recipe section's tasks per split, each file read once per process and kind. */
export const readToaSplit = splitTaskReader(loadToaTasks);
