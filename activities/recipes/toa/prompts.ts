// TOA's prompts, re-authored in our own words: the seed's prompts/ directory (refinement, aggregator and translation
// templates, named by its bash/*/run_generate.api.*.sh scripts) is missing from oceanypt/TOA, so only their roles are
// known.
//   generate  — the question alone, as the user message (translation: a request to translate `src` into English);
//   refine    — question + one earlier response → a better response, output alone. No critique or feedback step: the
//               seed's templates are named refinement_wo_feedback;
//   aggregate — mixture-of-agents (oceanypt/TOA code/ensemble_methods.py aggregate_responses): system = aggregator instructions + "## Response i:" list, user = the
//               original question;
//   judge     — an LLM-judge reward role: one JSON object {"score": 1..10}; parseJudgeScore reads it leniently.
// rewardQuestion is what a reward model or scoring service scores a response against: the ORIGINAL question, never
// the refine or aggregate prompt (the seed's RM call); for translation the source text (KIWI scores (src, mt)).
// The refine and judge prompts put the question and the responses in <tag>…</tag> blocks, so markdown headings
// inside a question cannot be mistaken for the prompt's own structure. All are keyed templates a `prompts:` file may
// replace (activities/recipes/prompt-texts.ts).
import { z } from 'zod';
import type { ChatMessage } from '../../llm/types';
import { defaultPrompts, type PromptCatalog, type Prompts } from '../prompt-texts';
import type { ToaTask } from './tasks';

/** English names of the WMT source languages (and a few more); other codes are shown as they are. */
const LANGUAGES: Readonly<Record<string, string>> = Object.freeze({
  cs: 'Czech',
  de: 'German',
  es: 'Spanish',
  fr: 'French',
  hr: 'Croatian',
  is: 'Icelandic',
  it: 'Italian',
  ja: 'Japanese',
  liv: 'Livonian',
  pl: 'Polish',
  ru: 'Russian',
  uk: 'Ukrainian',
  zh: 'Chinese',
});

/** "German text", "text in the language xx", or just "text" when the row names no language. */
function sourceText(task: ToaTask): string {
  if (!task.srcLang) return 'text';
  const name = LANGUAGES[task.srcLang];
  return name ? `${name} text` : `text (language code "${task.srcLang}")`;
}

function sourceOf(task: ToaTask): string {
  if (task.kind !== 'translation') throw new Error(`toa prompts: task "${task.id}" is not a translation task`);
  if (!task.src) throw new Error(`toa prompts: translation task "${task.id}" has no source text`);
  return task.src;
}

/** The original question as the policy sees it in a generate call (and as the user message of an aggregate call). */
function question(p: Prompts, task: ToaTask): string {
  if (task.kind === 'instruction') return task.instruction;
  return p.render('generate.translation', { source_name: sourceText(task), source: sourceOf(task) });
}

/** What a reward model or scoring service scores a response against: the question (instruction) or the source (translation). */
export function rewardQuestion(task: ToaTask): string {
  return task.kind === 'translation' ? sourceOf(task) : task.instruction;
}

/** A fresh response: the question as the only message. */
export function generatePrompt(p: Prompts, task: ToaTask): ChatMessage[] {
  return [{ role: 'user', content: question(p, task) }];
}

/** An improved response from the question and one earlier response (any model's); no critique step. */
export function refinePrompt(p: Prompts, task: ToaTask, previous: string): ChatMessage[] {
  const content =
    task.kind === 'translation'
      ? p.render('refine.translation', { source_name: sourceText(task), source: sourceOf(task), previous })
      : p.render('refine.instruction', { instruction: task.instruction, previous });
  return [{ role: 'user', content }];
}

/** Mixture-of-agents: the responses to synthesise in the system message, the original question as the user's. */
export function aggregatePrompt(p: Prompts, task: ToaTask, responses: readonly string[]): ChatMessage[] {
  if (responses.length === 0) throw new Error(`toa prompts: aggregatePrompt for task "${task.id}" got no responses`);
  const listed = responses.map((r, i) => `## Response ${i + 1}:\n${r}`).join('\n\n');
  return [
    { role: 'system', content: p.render(`aggregate.${task.kind}`, { responses: listed }) },
    { role: 'user', content: question(p, task) },
  ];
}

/** An LLM judge's request: rate one response to the original question from 1 to 10, as one JSON object. */
export function judgePrompt(p: Prompts, task: ToaTask, response: string): ChatMessage[] {
  const request =
    task.kind === 'translation'
      ? p.render('judge.translation', { source_name: sourceText(task), source: sourceOf(task), response })
      : p.render('judge.instruction', { instruction: task.instruction, response });
  return [
    { role: 'system', content: p.render(`judge.${task.kind}_system`) },
    { role: 'user', content: request },
  ];
}

/** An AlpacaEval-style judgement of two answers (A first), the question as the policy saw it. */
export function alpacaJudgePrompt(p: Prompts, task: ToaTask, a: string, b: string): ChatMessage[] {
  return [
    { role: 'system', content: p.render('pairwise.alpaca_system') },
    { role: 'user', content: p.render('pairwise.alpaca', { instruction: question(p, task), output_a: a, output_b: b }) },
  ];
}

/** An Arena-Hard-style judgement of two answers (A first). */
export function arenaJudgePrompt(p: Prompts, task: ToaTask, a: string, b: string): ChatMessage[] {
  return [
    { role: 'system', content: p.render('pairwise.arena_system') },
    { role: 'user', content: p.render('pairwise.arena', { instruction: question(p, task), answer_a: a, answer_b: b }) },
  ];
}

/** The AlpacaEval-style judge's pick: a lone "A" / "B" (optionally bracketed or followed by a full stop). */
export function parseAlpacaChoice(text: string): 'A' | 'B' | undefined {
  const m = /^\W*?(?:answer\s*)?\[{0,2}\(?([AB])\)?\]{0,2}\W*$/i.exec(text.trim());
  return m ? (m[1].toUpperCase() as 'A' | 'B') : undefined;
}

export const ARENA_VERDICTS = ['A>>B', 'A>B', 'A=B', 'B>A', 'B>>A'] as const;
export type ArenaLabel = (typeof ARENA_VERDICTS)[number];

/** The Arena-Hard-style verdict: the [[…]] labels in the reply must all agree (arena-hard-auto gen_judgment.py reads
 *  them the same way: none, or two different ones, is no verdict). */
export function parseArenaVerdict(text: string): ArenaLabel | undefined {
  const found = new Set([...text.matchAll(/\[\[(A>>B|A>B|A=B|B>A|B>>A)\]\]/g)].map((m) => m[1] as ArenaLabel));
  return found.size === 1 ? [...found][0] : undefined;
}

// ---- the keys a `prompts:` file may replace -------------------------------------------------------------------------

const JUDGE_REPLY = 'Reply with one JSON object and nothing else: {"score": <a number from 1 (useless) to 10 (excellent)>}';
const SOURCE = { source_name: 'what the source is, e.g. "German text"', source: 'the text to translate' };

/** Every TOA text a `prompts:` file may replace (an instruction task's question is its instruction, no template). */
export const TOA_PROMPTS: PromptCatalog = {
  'generate.translation': {
    about: 'a translation task as the policy gets it (generate calls, and the user message of aggregate calls)',
    placeholders: SOURCE,
    required: ['source'],
    text: [
      'Translate the {source_name} below into English.',
      'Reply with the English translation only: no quotation marks around it, no notes, no alternatives, no explanation.',
      '',
      '{source}',
    ].join('\n'),
  },
  'refine.instruction': {
    about: 'a refine call on an instruction task: a better answer from the question and an earlier one',
    placeholders: { instruction: 'the question', previous: 'the earlier answer' },
    required: ['instruction', 'previous'],
    text: [
      'Below are a question and an earlier answer to it. Write a new answer to the question that is better than the earlier one.',
      'Keep what the earlier answer gets right; correct its mistakes, add what is missing and make unclear parts clear. Your answer must stand on its own: the reader will not see the earlier one.',
      'Reply with the new answer only: no preamble, and no remarks about the earlier answer or about what you changed.',
      '',
      '<question>\n{instruction}\n</question>',
      '',
      '<earlier_answer>\n{previous}\n</earlier_answer>',
    ].join('\n'),
  },
  'refine.translation': {
    about: 'a refine call on a translation task: a better translation from the source and an earlier one',
    placeholders: { ...SOURCE, previous: 'the earlier translation' },
    required: ['source', 'previous'],
    text: [
      'Below are a {source_name} and an earlier English translation of it. Write a better English translation.',
      'Keep what the earlier translation renders well; fix mistranslations, anything left out or added, and wording that does not read naturally in English.',
      'Reply with the new English translation only: no notes, no explanation, no comments on the earlier translation.',
      '',
      '<source>\n{source}\n</source>',
      '',
      '<earlier_translation>\n{previous}\n</earlier_translation>',
    ].join('\n'),
  },
  'aggregate.instruction': {
    about: "an aggregate call's system message on an instruction task (the user message is the question)",
    placeholders: { responses: 'the responses to synthesise, each under "## Response <n>:"' },
    required: ['responses'],
    text: [
      "Several AI assistants have each answered the user's message. Their responses are listed below.",
      'Read them critically: some may be wrong, incomplete or biased. Then write one response of your own that is better than each of them: keep their strongest points, correct their errors, and answer the user directly and completely.',
      'Do not mention the other responses or that you were given them.',
      '',
      '{responses}',
    ].join('\n'),
  },
  'aggregate.translation': {
    about: "an aggregate call's system message on a translation task (the user message is generate.translation)",
    placeholders: { responses: 'the translations to synthesise, each under "## Response <n>:"' },
    required: ['responses'],
    text: [
      "Several translation systems have each translated the source text in the user's message into English. Their translations are listed below.",
      'Compare them critically: some may misread the source, leave parts out or sound unnatural. Then write the single best English translation of the source, taking the best choices from each.',
      'Reply with that translation only: no notes, and no mention of the translations you were given.',
      '',
      '{responses}',
    ].join('\n'),
  },
  'judge.instruction_system': {
    about: "the LLM judge's system prompt on an instruction task",
    text: "You are a careful, impartial evaluator of AI assistants' answers.",
  },
  'judge.instruction': {
    about: 'the LLM judge\'s request on an instruction task (it answers {"score": 1..10})',
    placeholders: { instruction: 'the question', response: 'the response to rate' },
    required: ['response'],
    text: [
      'Rate how well the response below answers the question.',
      'Consider whether it is correct, helpful, complete and clear, and whether it follows every instruction in the question. Do not reward length for its own sake.',
      '',
      '<question>\n{instruction}\n</question>',
      '',
      '<response>\n{response}\n</response>',
      '',
      JUDGE_REPLY,
    ].join('\n'),
  },
  'judge.translation_system': {
    about: "the LLM judge's system prompt on a translation task",
    text: 'You are a careful, impartial evaluator of translations into English.',
  },
  'judge.translation': {
    about: 'the LLM judge\'s request on a translation task (it answers {"score": 1..10})',
    placeholders: { ...SOURCE, response: 'the translation to rate' },
    required: ['response'],
    text: [
      'Rate the English translation below of the {source_name}.',
      'Judge adequacy first (is every part of the meaning carried over, with nothing added?), then fluency (does it read as natural English?). Ignore differences of style that do not change the meaning.',
      '',
      '<source>\n{source}\n</source>',
      '',
      '<translation>\n{response}\n</translation>',
      '',
      JUDGE_REPLY,
    ].join('\n'),
  },
  'pairwise.alpaca_system': {
    about: "the AlpacaEval-style pairwise judge's system prompt (evaluation.ts)",
    text: "You compare two AI assistants' answers to the same request and say which one a careful human reader would prefer.",
  },
  'pairwise.alpaca': {
    about: 'an AlpacaEval-style judgement: which of two answers is better (it answers A or B; the order is shuffled)',
    placeholders: { instruction: 'the request', output_a: 'the first answer', output_b: 'the second answer' },
    required: ['instruction', 'output_a', 'output_b'],
    text: [
      'Decide which answer serves the request better: consider correctness, helpfulness, completeness and clarity, and whether it does what was asked. The order of the answers means nothing, and a longer answer is not better for being longer.',
      '',
      '<request>\n{instruction}\n</request>',
      '',
      '<answer_A>\n{output_a}\n</answer_A>',
      '',
      '<answer_B>\n{output_b}\n</answer_B>',
      '',
      'Reply with the single letter A or B and nothing else.',
    ].join('\n'),
  },
  'pairwise.arena_system': {
    about: "the Arena-Hard-style pairwise judge's system prompt (evaluation.ts)",
    text: "You are an impartial referee of two AI assistants' answers to a user's request.",
  },
  'pairwise.arena': {
    about: 'an Arena-Hard-style judgement: a five-way verdict between two answers (asked in both orders)',
    placeholders: { instruction: 'the request', answer_a: "assistant A's answer", answer_b: "assistant B's answer" },
    required: ['instruction', 'answer_a', 'answer_b'],
    text: [
      "First work out your own answer to the request. Then check both assistants' answers against it: point out mistakes and missing information, and weigh how helpful, relevant and concise each is. Do not let the order of the answers or their length sway you.",
      '',
      '<request>\n{instruction}\n</request>',
      '',
      '<assistant_A>\n{answer_a}\n</assistant_A>',
      '',
      '<assistant_B>\n{answer_b}\n</assistant_B>',
      '',
      'End your reply with exactly one verdict: [[A>>B]] (A is much better), [[A>B]] (A is better), [[A=B]] (a tie), [[B>A]] (B is better) or [[B>>A]] (B is much better).',
    ].join('\n'),
  },
};

/** The project's own texts (tests'). */
export const DEFAULT_TOA_PROMPTS = defaultPrompts(TOA_PROMPTS);

/** Scores a judge may give: the scale the judge prompt asks for. */
export const JUDGE_SCALE = { min: 1, max: 10 } as const;

const inScale = (n: number) => Number.isFinite(n) && n >= JUDGE_SCALE.min && n <= JUDGE_SCALE.max;

function scoreOf(value: unknown): number | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const s = (value as Record<string, unknown>).score;
  const n = typeof s === 'number' ? s : typeof s === 'string' && s.trim() !== '' ? Number(s) : Number.NaN;
  return inScale(n) ? n : undefined;
}

/** Every balanced {…} span of the text, outermost first, skipping braces inside JSON strings. */
function* objectSpans(text: string): Generator<string> {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        yield text.slice(start, i + 1);
        break;
      }
    }
  }
}

/** The judge's reply as a schema, for an endpoint with structured outputs (../shared/structured-reply.ts). */
export const judgeScoreReply = z.object({ score: z.number().min(1).max(10) });

/**
 * The judge's score, leniently: the first JSON object (fenced or amid prose) with a numeric "score", else a
 * `score: 7` / `Score = 7.5` / `"score": "7"` mention. Undefined when unreadable or outside 1..10 — the caller records
 * a failed reward then, never 0.
 */
export function parseJudgeScore(text: string): number | undefined {
  for (const span of objectSpans(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(span);
    } catch {
      continue;
    }
    const n = scoreOf(parsed);
    if (n !== undefined) return n;
  }
  const m = /\bscore\b["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?)/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return inScale(n) ? n : undefined;
}
