// CoRal's conversation protocol (seed brief A.2). Turn 0 is the scripted question from the "student"; the
// "teacher" answers first; roles alternate. After every generated turn: a belief-extraction call on that turn
// alone, a local gold match, and the agreement check (agreement.ts) that ends the conversation.
// Tree sampling (beamSize d > 1): one request with n = d; every candidate is extracted and matched, one is
// chosen (seeded) to continue, the rest are kept as siblings — the raw material of DPO pairs.
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import { agreementReached } from './agreement';
import { parseExtractorReply, type Belief } from './beliefs';
import type { Compat } from './compat';
import { matchesGold } from './match';
import { defaultStyle, EXTRACTOR_SYSTEM_PROMPT, extractorUserPrompt, openingMessage, systemPrompt, type SystemPromptStyle } from './prompts';
import { hashSeed, seededRandom } from './seeded-random';
import type { CoralDataset, CoralTask } from './tasks';

export type Role = 'student' | 'teacher';

export interface CoralTurn {
  role: Role;
  content: string;
  /** The extractor's raw reply. */
  extracted?: string;
  answer?: string;
  valid?: boolean;
  unsure?: boolean;
  correct?: boolean;
  /** Set on the turn whose belief agreed with the partner's (the last turn of an agreed conversation). */
  agreement?: boolean;
  usage?: TokenUsage;
  /** Tree sampling: the candidates not chosen at this turn, fully annotated. */
  siblings?: CoralTurn[];
}

export interface CoralConversation {
  taskId: string;
  dataset: CoralDataset;
  sampleIndex: number;
  mode: 'coral' | 'cot';
  /** The agents' system prompt (identical for both roles), kept so data builders can rebuild each view. */
  system: string;
  turns: CoralTurn[];
  agreed: boolean;
  /** The agreed answer, or the last valid answer if the agents never agreed. */
  finalAnswer: string | null;
  /** Whether finalAnswer matches the gold answer. */
  correct: boolean;
  usage: TokenUsage;
  calls: number;
}

export interface ConversationOptions {
  task: CoralTask;
  agent: Chat;
  extractor: Chat;
  sampleIndex: number;
  mode: 'coral' | 'cot';
  maxTurns: number;
  agentDecoding: Omit<Decoding, 'seed'>;
  extractorDecoding: Omit<Decoding, 'seed'>;
  beamSize: number;
  seed: number;
  compat: Compat;
  systemPromptStyle?: SystemPromptStyle;
}

/** OpenAI-style servers require user/assistant alternation starting with a user turn after the system prompt. */
const GREETING = 'Hi! Let us work through a problem together.';

/** The transcript as `role` sees it: its own turns as assistant, the partner's as user. */
export function viewOf(system: string, turns: Array<Pick<CoralTurn, 'role' | 'content'>>, role: Role): ChatMessage[] {
  const msgs: ChatMessage[] = [{ role: 'system', content: system }];
  const body = turns.map((t): ChatMessage => ({ role: t.role === role ? 'assistant' : 'user', content: t.content }));
  // The student "asked" the question, so its view would open with an assistant turn: prefix a short user turn
  // (as the MATRIX port of CoRal does) instead of breaking alternation.
  if (body[0]?.role === 'assistant') msgs.push({ role: 'user', content: GREETING });
  return [...msgs, ...body];
}

function addUsage(into: TokenUsage, u: TokenUsage) {
  into.promptTokens += u.promptTokens;
  into.completionTokens += u.completionTokens;
}

export async function runCoralConversation(o: ConversationOptions): Promise<CoralConversation> {
  const { task, compat } = o;
  const style = o.mode === 'cot' ? 'simple_cot' : (o.systemPromptStyle ?? defaultStyle(task.dataset));
  const system = systemPrompt(task.dataset, style);
  const turns: CoralTurn[] = [{ role: 'student', content: openingMessage(task) }];
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  let calls = 0;
  const maxTurns = o.mode === 'cot' ? 1 : o.maxTurns;
  let agreed = false;

  const annotate = async (turn: CoralTurn): Promise<CoralTurn> => {
    const out = await o.extractor({
      messages: [{ role: 'system', content: EXTRACTOR_SYSTEM_PROMPT }, { role: 'user', content: extractorUserPrompt(task, turn.content) }],
      decoding: { ...o.extractorDecoding, seed: compat === 'seed' ? 42 : 0 },
      sampleKey: 'extract', // extraction is deterministic: the same response always gets the same answer
    });
    calls++;
    addUsage(usage, out.usage);
    const belief: Belief = parseExtractorReply(task.dataset, out.texts[0] ?? '', compat);
    return { ...turn, extracted: out.texts[0], answer: belief.answer, valid: belief.valid, unsure: belief.unsure, correct: matchesGold(task, belief, compat) };
  };

  for (let k = 1; k <= maxTurns; k++) {
    const role: Role = k % 2 === 1 ? 'teacher' : 'student';
    const n = Math.max(1, o.beamSize);
    // SEED-COMPAT: the pinned seed stack sent seed=42 on every request, so repeated samples were identical.
    const seed = compat === 'seed' ? 42 : hashSeed(o.seed, task.id, o.sampleIndex, k) % 2 ** 31;
    const out = await o.agent({
      messages: viewOf(system, turns, role),
      decoding: { ...o.agentDecoding, seed },
      n,
      sampleKey: `s${o.sampleIndex}`,
    });
    calls++;
    addUsage(usage, out.usage);
    const perCandidate = { promptTokens: Math.round(out.usage.promptTokens / n), completionTokens: Math.round(out.usage.completionTokens / n) };
    const candidates = await Promise.all(out.texts.map((content) => annotate({ role, content, usage: perCandidate })));
    const pick = candidates.length > 1 ? Math.floor(seededRandom(hashSeed('tree', o.seed, task.id, o.sampleIndex, k))() * candidates.length) : 0;
    const chosen = candidates[pick];
    if (candidates.length > 1) chosen.siblings = candidates.filter((_, i) => i !== pick);
    turns.push(chosen);
    if (o.mode === 'coral' && agreementReached(task.dataset, turns.slice(1).map((t) => ({ role: t.role, belief: t.answer !== undefined ? { answer: t.answer, valid: !!t.valid, unsure: !!t.unsure } : undefined })), compat)) {
      chosen.agreement = true;
      agreed = true;
      break;
    }
  }

  const generated = turns.slice(1);
  const lastValid = [...generated].reverse().find((t) => t.valid);
  const final = agreed ? generated[generated.length - 1] : lastValid;
  return {
    taskId: task.id,
    dataset: task.dataset,
    sampleIndex: o.sampleIndex,
    mode: o.mode,
    system,
    turns,
    agreed,
    finalAnswer: final?.answer ?? null,
    correct: !!final?.correct,
    usage,
    calls,
  };
}
