// ★ THE EVALUATION's judge calls: a text (the student's answer, or a compared method's best response) judged against
// the prompt's reference output by the `judge` role, as two public benchmarks judge — the TOA paper reports both
// (arXiv 2412.17061 §4: AlpacaEval 2.0 LC / WR and Arena-Hard for its best-of-160 texts and trained students).
//   AlpacaEval 2.0 (Dubois et al. 2024, arXiv 2404.04475): one judgement, the two outputs in a seeded random order
//     (alpaca_eval shuffles them), the judge names the better one → preference 1 (the text) or 0 (the reference).
//     Rates and the length correction: win-rates.ts.
//   Arena-Hard (Li et al. 2024, arXiv 2406.11939; arena-hard-auto): two judgements, the reference as assistant A and
//     then as B, each a five-way verdict [[A>>B]] … [[B>>A]]; stored from the text's side as +2 … −2. Rates and the
//     bootstrap interval: arena-hard.ts.
// Every call goes through the project's client (createChat: the request cache, limits, retries) under a key naming
// (prompt, sample, text, game), at temperature 0 (both benchmarks' judges decode greedily). A verdict that stays
// unreadable after `parseRetries` re-asks is failed and left out of the rates.
import type { Chat, TokenUsage } from '../../llm/types';
import { hashSeed } from '../../seeded-random';
import type { Prompts } from '../prompt-texts';
import type { ToaEvaluationConfig } from './evaluation-config';
import { askUntilReadable } from './judge-call';
import { type ArenaLabel, alpacaJudgePrompt, arenaJudgePrompt, parseAlpacaChoice, parseArenaVerdict } from './prompts';
import type { Reference } from './references';
import type { ToaTask } from './tasks';

/** The text's side of an Arena-Hard verdict: +2 much better than the reference … −2 much worse. */
export type ArenaScore = -2 | -1 | 0 | 1 | 2;

export type Judged<T> = { value: T } | { failed: string };

export interface PairJudgement {
  /** Lengths in characters, as alpaca_eval measures them (`str.len()`), of the text and of the reference. */
  chars: number;
  referenceChars: number;
  /** The prompt's instruction difficulty γ_x, when the reference file gives it (win-rates.ts). */
  difficulty?: number;
  /** AlpacaEval game: 1 = the text preferred, 0 = the reference. */
  alpaca?: Judged<number>;
  /** Arena-Hard games: [reference as A, text as A]. */
  arena?: [Judged<ArenaScore>, Judged<ArenaScore>];
  usage: TokenUsage;
}

const AS_A: Record<ArenaLabel, ArenaScore> = { 'A>>B': 2, 'A>B': 1, 'A=B': 0, 'B>A': -1, 'B>>A': -2 };

/** A verdict from the text's side: `textIsA` says which assistant the text was shown as. */
export const arenaScore = (label: ArenaLabel, textIsA: boolean): ArenaScore => (textIsA ? AS_A[label] : -AS_A[label] || 0) as ArenaScore;

export async function judgeAgainstReference(o: {
  judge: Chat;
  task: ToaTask;
  text: string;
  reference: Reference;
  cfg: ToaEvaluationConfig;
  prompts: Prompts;
  seed: number;
  /** Names the prompt, the sample and the judged text: `<task>/s<sample>/judge/<who>`. */
  key: string;
}): Promise<PairJudgement> {
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const ask = { maxTokens: o.cfg.maxTokens, parseRetries: o.cfg.parseRetries, usage };
  const reference = o.reference.output;
  const out: PairJudgement = {
    chars: o.text.length,
    referenceChars: reference.length,
    ...(o.reference.difficulty === undefined ? {} : { difficulty: o.reference.difficulty }),
    usage,
  };
  const games: Array<Promise<void>> = [];
  if (o.cfg.alpacaEval) {
    const textFirst = (hashSeed(o.seed, o.key, 'alpaca-order') & 1) === 1;
    const [a, b] = textFirst ? [o.text, reference] : [reference, o.text];
    games.push(
      askUntilReadable(o.judge, alpacaJudgePrompt(o.prompts, o.task, a, b), parseAlpacaChoice, {
        ...ask,
        key: `${o.key}/alpaca`,
        what: 'choice',
      }).then((r) => {
        out.alpaca = 'value' in r ? { value: (r.value === 'A') === textFirst ? 1 : 0 } : r;
      }),
    );
  }
  if (o.cfg.arenaHard) {
    const game = (textIsA: boolean) =>
      askUntilReadable(
        o.judge,
        textIsA ? arenaJudgePrompt(o.prompts, o.task, o.text, reference) : arenaJudgePrompt(o.prompts, o.task, reference, o.text),
        parseArenaVerdict,
        { ...ask, key: `${o.key}/arena-${textIsA ? 2 : 1}`, what: 'verdict' },
      ).then((r): Judged<ArenaScore> => ('value' in r ? { value: arenaScore(r.value, textIsA) } : r));
    games.push(
      Promise.all([game(false), game(true)]).then((g) => {
        out.arena = g;
      }),
    );
  }
  await Promise.all(games);
  return out;
}
