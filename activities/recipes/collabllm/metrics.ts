// The metrics scored on each simulated future (the seed's examples/metrics/*.py; the metric files of verl's CollabLLM recipe).
// A judge or extraction whose reply cannot be read after its re-asks is MISSING, never 0: both seed codebases let
// such failures turn into a score (or an exception), which biases the reward toward whatever failed to be judged.
import type { Chat, ChatMessage, TokenUsage } from '../../llm/types';
import type { z } from 'zod';
import { accuracyReply, extractionReply, interactivityReply, jsonReplyReader } from './reply-schemas';
import {
  accuracyJudgePrompt,
  type ArtefactKind,
  extractionPrompt,
  interactivityJudgePrompt,
  messageText,
  renderConversation,
  stripThink,
  unreadableReplyNotice,
} from './prompts';
import { addUsage } from '../../llm/usage';
import type { Prompts } from '../prompt-texts';
import type { CollabCompat } from './seed-settings';
import { cl100kTokens } from './tokens';

export type MetricOutcome = { score: number } | { missing: string };

/** LLM-computed outcomes also report what they cost. */
export type JudgedOutcome = MetricOutcome & { usage: TokenUsage };
export type Extraction = ({ text: string } | { missing: string }) & { usage: TokenUsage };

export interface JudgeOptions {
  /** The recipe's texts (the judges', the extractor's, judge.reask). */
  prompts: Prompts;
  /** Re-asks after an unreadable reply. */
  parseRetries: number;
  /** Prefix of every sampleKey of this future's judge calls; each judge appends its own name. */
  key: string;
  /** verl's llm_judge_kwargs use 2048. */
  maxTokens?: number;
}

export const isMissing = (o: MetricOutcome): o is { missing: string } => 'missing' in o;

/**
 * One judge call at temperature 0 (judges must be repeatable), re-asked up to parseRetries times while `read`
 * rejects the reply. A re-ask shows the model its unreadable reply and a notice: at temperature 0 the identical
 * prompt would most likely produce the identical reply.
 */
async function askJudge<T>(
  chat: Chat,
  prompt: string,
  name: string,
  schema: z.ZodObject,
  o: JudgeOptions,
  read: (reply: Record<string, unknown>) => T | undefined,
): Promise<({ value: T } | { missing: string }) & { usage: TokenUsage }> {
  if (!Number.isInteger(o.parseRetries) || o.parseRetries < 0)
    throw new Error(`${name}: parseRetries must be a non-negative integer, got ${o.parseRetries}`);
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const messages: ChatMessage[] = [{ role: 'user', content: prompt }];
  const reader = jsonReplyReader(chat, schema, name);
  let last = '';
  for (let i = 0; i <= o.parseRetries; i++) {
    if (i > 0)
      messages.push({ role: 'assistant', content: last }, { role: 'user', content: unreadableReplyNotice(o.prompts, reader.fields) });
    const out = await chat({
      messages: [...messages],
      decoding: { temperature: 0, maxTokens: o.maxTokens ?? 2048 },
      sampleKey: i === 0 ? `${o.key}/${name}` : `${o.key}/${name}/retry-${i}`,
      responseFormat: reader.responseFormat,
    });
    addUsage(usage, out.usage);
    last = out.texts[0] ?? '';
    const parsed = reader.read(last);
    const value = parsed && read(parsed);
    if (value !== undefined) return { value, usage };
  }
  const excerpt = last.length > 200 ? `${last.slice(0, 200)}…` : last;
  return { missing: `${name}: unreadable reply after ${o.parseRetries + 1} attempts; last: ${JSON.stringify(excerpt)}`, usage };
}

const toOutcome = (r: ({ value: number } | { missing: string }) & { usage: TokenUsage }): JudgedOutcome =>
  'value' in r ? { score: r.value, usage: r.usage } : r;

/** A number, or a numeric string (judges quote numbers now and then). */
function readNumber(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** 0/1: did the conversation (or its extracted answer, when given) reach the ground truth. */
export async function accuracyJudge(
  chat: Chat,
  t: { question: string; groundTruth: string; conversation: ChatMessage[]; answer?: string },
  o: JudgeOptions,
): Promise<JudgedOutcome> {
  const prompt = accuracyJudgePrompt(o.prompts, { ...t, conversation: renderConversation(t.conversation) });
  const r = await askJudge(chat, prompt, 'accuracy', accuracyReply, o, (reply) => {
    const v = reply.accuracy;
    const n = typeof v === 'boolean' ? Number(v) : readNumber(v);
    // Anything but 0 or 1 breaks the contract: re-ask rather than round.
    return n === 0 || n === 1 ? n : undefined;
  });
  return toOutcome(r);
}

/** 0..1 (clamped) for how actively the assistant collaborates. */
export async function interactivityJudge(chat: Chat, t: { conversation: ChatMessage[] }, o: JudgeOptions): Promise<JudgedOutcome> {
  const prompt = interactivityJudgePrompt(o.prompts, renderConversation(t.conversation));
  const r = await askJudge(chat, prompt, 'interactivity', interactivityReply, o, (reply) => {
    const n = readNumber(reply.interactivity);
    return n === undefined ? undefined : Math.min(1, Math.max(0, n));
  });
  return toOutcome(r);
}

/**
 * What the user had to read, in thousands of cl100k tokens (tokens.ts), as the seed's token_amount counts it
 * (CollabLLM examples/metrics/efficiency.py, "num_tokens_read(k)"). `fixed`: the assistant messages from
 * `conversation[fromIndex]` on — the prompt prefix before the candidate is not its doing — without reasoning blocks,
 * which the user does not read. SEED-COMPAT `seed`: every assistant message of the conversation, prompt prefix
 * included, joined with spaces and counted as written (the seed scores the whole session of a future).
 * (verl-recipe's collabllm/metrics/token_amount.py counts whitespace words of both roles after the prompt instead.)
 */
export function tokenAmount(conversation: readonly ChatMessage[], fromIndex: number, compat: CollabCompat = 'fixed'): MetricOutcome {
  if (compat === 'seed') {
    const read = conversation
      .filter((m) => m.role === 'assistant')
      .map(messageText)
      .join(' ');
    return { score: cl100kTokens(read) / 1000 };
  }
  const tokens = conversation
    .slice(fromIndex)
    .filter((m) => m.role === 'assistant')
    .reduce((n, m) => n + cl100kTokens(stripThink(messageText(m))), 0);
  return { score: tokens / 1000 };
}

/**
 * nltk's sentence_bleu(references=[reference], hypothesis) on raw strings, as the seed's examples/metrics/bleu.py
 * calls it: strings iterate as characters, so this is character-level BLEU-4 with uniform weights, clipped n-gram
 * precision and the brevity penalty, without smoothing (a zero precision makes nltk's result ~1e-77; we return 0).
 * Characters are code points, as in Python.
 */
export function bleu(reference: string, hypothesis: string): MetricOutcome {
  const ref = Array.from(reference);
  const hyp = Array.from(hypothesis);
  if (hyp.length === 0) return { score: 0 };
  let logSum = 0;
  for (let n = 1; n <= 4; n++) {
    const refCounts = ngramCounts(ref, n);
    const hypCounts = ngramCounts(hyp, n);
    let matched = 0;
    let total = 0;
    for (const [g, c] of hypCounts) {
      matched += Math.min(c, refCounts.get(g) ?? 0);
      total += c;
    }
    if (matched === 0) return { score: 0 };
    logSum += Math.log(matched / total) / 4;
  }
  const brevity = hyp.length > ref.length ? 1 : Math.exp(1 - ref.length / hyp.length);
  return { score: brevity * Math.exp(logSum) };
}

function ngramCounts(chars: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= chars.length; i++) {
    // n whole code points joined: distinct n-grams give distinct keys.
    const g = chars.slice(i, i + n).join('');
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return counts;
}

/** The final document / code / answer, integrated over the whole conversation ("extract_type->metric" in the seed). */
export async function extractFinal(
  chat: Chat,
  t: { conversation: ChatMessage[]; kind: ArtefactKind; requirement?: string },
  o: JudgeOptions,
): Promise<Extraction> {
  const prompt = extractionPrompt(o.prompts, {
    conversation: renderConversation(t.conversation),
    kind: t.kind,
    requirement: t.requirement,
  });
  // An empty string is a readable answer (the conversation produced nothing) and scores as such downstream.
  const r = await askJudge(chat, prompt, `extract-${t.kind}`, extractionReply, o, (reply) =>
    typeof reply.final_completion === 'string' ? reply.final_completion : undefined,
  );
  return 'value' in r ? { text: r.value, usage: r.usage } : r;
}

/** 1 iff the extracted code passes its tests. The sandboxed runner is injected; its errors propagate (retryable). */
export async function passRate(code: string, runTests: (code: string) => Promise<{ passed: boolean }>): Promise<MetricOutcome> {
  const { passed } = await runTests(code);
  return { score: passed ? 1 : 0 };
}
