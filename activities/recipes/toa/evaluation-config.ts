// `recipe.evaluation`: judging the student's answer and each compared method's best response against a reference
// output per evaluation prompt (evaluation.ts), as AlpacaEval 2.0 and Arena-Hard do.
import { z } from 'zod';
import { existingPath, positiveInt } from '../../../contracts/config-fields';

export const toaEvaluationSchema = z.strictObject({
  /** The baseline's outputs, one per evaluation prompt (references.ts lists the accepted shapes). */
  references: existingPath('file'),
  /** AlpacaEval 2.0-style: one judgement per text, order shuffled; win rate and length-controlled win rate. */
  alpacaEval: z.boolean().default(true),
  /** Arena-Hard-style: two judgements per text (both orders), five-way verdicts; win rate with a bootstrap interval. */
  arenaHard: z.boolean().default(true),
  /** The judge's reply budget (Arena-Hard's judge writes its own answer before its verdict). */
  maxTokens: positiveInt.default(2048),
  /** Re-asks when a verdict cannot be read; still unreadable = failed, left out of every rate. */
  parseRetries: z.number().int().min(0).default(2),
  /** Bootstrap rounds of the Arena-Hard interval (arena-hard-auto: 100). */
  bootstrap: positiveInt.default(100),
});

export type ToaEvaluationConfig = z.infer<typeof toaEvaluationSchema>;
