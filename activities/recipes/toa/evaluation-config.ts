// `recipe.evaluation`: judging the student's answer and each compared method's best response against a reference
// output per evaluation prompt (evaluation.ts), as AlpacaEval 2.0 and Arena-Hard do, and/or (translation) scoring it
// with a reference-free KIWI service, as the TOA paper's WMT table does with KIWI-XXL.
import { z } from 'zod';
import { existingPath, positiveInt } from '../../../contracts/config-fields';

export const toaEvaluationSchema = z.strictObject({
  references: existingPath('file').optional().meta({
    description:
      "The baseline's outputs, one per evaluation prompt (references.ts lists the accepted shapes); needed by alpacaEval and arenaHard.",
  }),
  alpacaEval: z
    .boolean()
    .default(true)
    .meta({ description: 'AlpacaEval 2.0-style: one judgement per text, order shuffled; win rate and length-controlled win rate.' }),
  arenaHard: z.boolean().default(true).meta({
    description: 'Arena-Hard-style: two judgements per text (both orders), five-way verdicts; win rate with a bootstrap interval.',
  }),
  kiwi: z.boolean().default(false).meta({
    description:
      "Translation: each text scored by the `kiwi` role, a COMET-KIWI service (`api: score`; the paper's evaluation: Unbabel/wmt23-cometkiwi-da-xxl), on (source, translation).",
  }),
  maxTokens: positiveInt
    .default(2048)
    .meta({ description: "The judge's reply budget (Arena-Hard's judge writes its own answer before its verdict)." }),
  parseRetries: z
    .number()
    .int()
    .min(0)
    .default(2)
    .meta({ description: 'Re-asks when a verdict cannot be read; still unreadable = failed, left out of every rate.' }),
  bootstrap: positiveInt.default(100).meta({ description: 'Bootstrap rounds of the Arena-Hard interval (arena-hard-auto: 100).' }),
});

export type ToaEvaluationConfig = z.infer<typeof toaEvaluationSchema>;

/** The pairwise judgements (and so the judge role and the references) are on. */
export const judgesPairs = (ev: ToaEvaluationConfig | undefined) => !!ev && (ev.alpacaEval || ev.arenaHard);
