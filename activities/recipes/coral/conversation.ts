// One CoRal conversation (collaborative-reasoner lightning_modules/, the conversation loop). Turn 0 is the scripted question from the "student"; the "teacher"
// answers first and the roles alternate. After every generated turn, in order: a belief-extraction call on that
// turn alone (extract.ts), a local gold match (match.ts), and the agreement check (agree.ts) that ends the
// conversation. CoT mode: one agent turn, simple_cot prompt.
// Tree sampling (beamSize d > 1, collaborative-reasoner finetuning/): one request with n = d; every candidate is extracted and matched; one,
// picked by a seeded PRNG, continues the conversation and the others are kept as its `siblings` (DPO material).
import type { Chat, Decoding, TokenUsage } from '../../llm/types';
import { agentView, type CoralRole } from './agent-view';
import { agreementReached, type RoleBelief } from './agree';
import type { Compat } from './compat';
import { parseExtractorReply, type Belief } from './extract';
import { matchesGold } from './match';
import type { Prompts } from '../prompt-texts';
import {
  defaultSystemPromptStyle,
  extractorUserPrompt,
  openingMessage,
  seedOverwrite,
  systemPrompt,
  type SystemPromptStyle,
} from './prompts';
import { hashSeed, seededRandom } from '../../seeded-random';
import type { CoralDataset, CoralTask } from './tasks';
import { addUsage } from '../../llm/usage';

export interface CoralTurn {
  role: CoralRole;
  content: string;
  /** The normalised belief ('' when unsure or unusable). Absent on turn 0. */
  extracted?: string;
  /** The extractor's raw reply, kept for debugging extraction. */
  extractorReply?: string;
  valid?: boolean;
  unsure?: boolean;
  correct?: boolean;
  /** Present (true) when this turn's belief agrees with the partner's latest: the last turn of an agreed
   *  conversation, and any sibling that would have ended it. */
  agreement?: boolean;
  /** Agent tokens of this turn; with tree sampling the request's completion tokens are split evenly over candidates. */
  usage?: TokenUsage;
  /** Tree sampling: the candidates not chosen at this turn, annotated like the chosen one. */
  siblings?: CoralTurn[];
}

export interface CoralConversation {
  taskId: string;
  dataset: CoralDataset;
  sampleIndex: number;
  mode: 'coral' | 'cot';
  /** The agents' system prompt as sent (both roles share it), so data builders rebuild exactly what was seen. */
  system: string;
  /** The user message sent before the student's view ('' = none: compat seed); absent in records written before it
   *  was kept, which all sent STUDENT_VIEW_PREAMBLE. */
  studentPreamble?: string;
  maxTurns: number;
  turns: CoralTurn[];
  agreed: boolean;
  /** The agreed answer; without agreement the last valid belief; null if no turn committed to an answer. */
  finalAnswer: string | null;
  /** Whether finalAnswer matches the gold answer. */
  correct: boolean;
  /** All calls: agent turns and extractions. */
  usage: TokenUsage;
  calls: number;
}

export interface CoralConversationOptions {
  task: CoralTask;
  /** The recipe's texts (prompts.ts CORAL_PROMPTS, replaced by the config's `prompts:` file). */
  prompts: Prompts;
  agent: Chat;
  extractor: Chat;
  sampleIndex: number;
  mode: 'coral' | 'cot';
  /** Generated turns at most (turn 0 not counted); CoT always uses 1. */
  maxTurns: number;
  /** `seed` is set per request by this module (see below); a caller's value is ignored. */
  agentDecoding: Decoding;
  extractorDecoding: Decoding;
  /** Tree sampling width d: candidates per turn (1 = off). */
  beamSize: number;
  seed: number;
  compat: Compat;
  systemPromptStyle?: SystemPromptStyle;
}

/** The vLLM-style per-request seed of agent turn `turn` of sample `sampleIndex`. */
export function agentRequestSeed(seed: number, sampleIndex: number, turn: number, compat: Compat): number {
  // SEED-COMPAT: the MATRIX client CoRal pins sent seed=42 on every request, so with a server that honours it
  // the repeated samples of one question come out identical.
  return compat === 'seed' ? 42 : hashSeed('agent', seed, sampleIndex, turn) % 2 ** 31;
}

const beliefOf = (t: CoralTurn): Belief => ({ answer: t.extracted ?? '', valid: !!t.valid, unsure: !!t.unsure });
const withoutSeed = ({ seed: _ignored, ...rest }: Decoding): Decoding => rest;

export async function runCoralConversation(o: CoralConversationOptions): Promise<CoralConversation> {
  const { task, compat, prompts } = o;
  const maxTurns = o.mode === 'cot' ? 1 : o.maxTurns;
  const width = o.beamSize;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new Error(`maxTurns must be a positive integer, got ${o.maxTurns}`);
  if (!Number.isInteger(width) || width < 1) throw new Error(`beamSize must be a positive integer, got ${o.beamSize}`);

  const style = o.systemPromptStyle ?? (o.mode === 'cot' ? 'simple_cot' : defaultSystemPromptStyle(task.dataset));
  const system = systemPrompt(prompts, task.dataset, style);
  // SEED-COMPAT: the seed sends the student's view as it is, opening with its own turn 0 as an assistant message
  // (collaborative-reasoner utils/chat_utils.py apply_chat_template); fixed puts a user message first.
  const studentPreamble = compat === 'seed' ? '' : prompts.render('student_preamble');
  const turns: CoralTurn[] = [{ role: 'student', content: openingMessage(prompts, task) }];
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  let calls = 0;

  // Extraction is deterministic (temperature 0, no per-sample key), so identical replies share one cached call.
  // Its seed only matters for SEED-COMPAT fidelity (the pinned client sent 42 here too).
  const extractorDecoding: Decoding = { ...withoutSeed(o.extractorDecoding), ...(compat === 'seed' ? { seed: 42 } : {}) };
  const extractorSystem = prompts.render('extractor.system');
  const extractorRequest = (content: string) => {
    const request = extractorUserPrompt(prompts, task, content);
    return compat === 'seed' ? seedOverwrite(extractorSystem, request) : request;
  };
  const annotate = async (role: CoralRole, content: string, turnUsage: TokenUsage, history: RoleBelief[]): Promise<CoralTurn> => {
    const out = await o.extractor({
      messages: [
        { role: 'system', content: extractorSystem },
        { role: 'user', content: extractorRequest(content) },
      ],
      decoding: extractorDecoding,
      sampleKey: 'extract',
    });
    calls++;
    addUsage(usage, out.usage);
    const reply = out.texts[0] ?? '';
    const belief = parseExtractorReply(task.dataset, reply, compat);
    const turn: CoralTurn = {
      role,
      content,
      extracted: belief.answer,
      extractorReply: reply,
      valid: belief.valid,
      unsure: belief.unsure,
      correct: matchesGold(task, belief, compat),
      usage: turnUsage,
    };
    if (o.mode === 'coral' && agreementReached(task.dataset, [...history, { role, belief }], compat)) turn.agreement = true;
    return turn;
  };

  let agreed = false;
  for (let k = 1; k <= maxTurns; k++) {
    const role: CoralRole = k % 2 === 1 ? 'teacher' : 'student';
    const out = await o.agent({
      messages: agentView(system, turns, role, studentPreamble),
      decoding: { ...withoutSeed(o.agentDecoding), seed: agentRequestSeed(o.seed, o.sampleIndex, k, compat) },
      n: width,
      sampleKey: `s${o.sampleIndex}`,
    });
    calls++;
    addUsage(usage, out.usage);
    if (out.texts.length === 0) throw new Error(`CoRal task ${task.id} sample ${o.sampleIndex} turn ${k}: the agent returned no text`);

    const perCandidate = {
      promptTokens: out.usage.promptTokens,
      completionTokens: Math.round(out.usage.completionTokens / out.texts.length),
    };
    const history = turns.slice(1).map((t) => ({ role: t.role, belief: beliefOf(t) }));
    const candidates = await Promise.all(out.texts.map((text) => annotate(role, text, perCandidate, history)));
    // The seed picks uniformly at random; we do the same from a PRNG seeded by the input, so a retried or resumed
    // shard follows the same branch.
    const pick =
      candidates.length > 1 ? Math.floor(seededRandom(hashSeed('tree', o.seed, task.id, o.sampleIndex, k))() * candidates.length) : 0;
    const chosen = candidates[pick];
    if (candidates.length > 1) chosen.siblings = candidates.filter((_, i) => i !== pick);
    turns.push(chosen);
    if (chosen.agreement) {
      agreed = true;
      break;
    }
  }

  const generated = turns.slice(1);
  const final = agreed ? generated[generated.length - 1] : [...generated].reverse().find((t) => t.valid);
  return {
    taskId: task.id,
    dataset: task.dataset,
    sampleIndex: o.sampleIndex,
    mode: o.mode,
    system,
    studentPreamble,
    maxTurns,
    turns,
    agreed,
    finalAnswer: final ? (final.extracted ?? '') : null,
    correct: !!final?.correct,
    usage,
    calls,
  };
}
