// What the report's conversation browser shows of one record, whatever the recipe. Each recipe builds it from its
// own record type in its folder (`report-view.ts`), so the report never needs to know a recipe's record shape.

/** The browser's filters. `disagreed`: two agents ended without an agreed answer (CoRal). `partial`: graded between
 *  right and wrong (some hidden tests passed, a page close to the reference but not the same). `scored`: graded on a
 *  scale with no right answer (TOA's reward model; the summary gives the reward). `unscored`: its score could not be
 *  computed (a judge's unreadable reply, a failed reward, an episode never scored) — never filed as wrong. */
export const OUTCOMES = ['correct', 'wrong', 'disagreed', 'partial', 'scored', 'unscored'] as const;
/** Outcomes of records graded right or wrong: where a recipe has any, correct and wrong are always offered. */
export const GRADED: readonly Outcome[] = ['correct', 'wrong', 'disagreed', 'partial'];
export type Outcome = (typeof OUTCOMES)[number];

export interface ViewTurn {
  speaker: string;
  text: string;
  /** What the recipe read from the turn (CoRal: the extracted belief and whether it is right). */
  note?: string;
}

export interface ConversationView {
  /** Task id and sample, unique within an iteration's evaluation. */
  id: string;
  outcome: Outcome;
  /** One line: the answer against the gold one, agreement, score. */
  summary: string;
  /** The task as the agent got it, where it is not a turn of the conversation. */
  task?: string;
  turns: ViewTurn[];
  /** Rendered pages side by side (ColBench html: the agent's final page and the reference), as artifact refs. */
  images?: Array<{ label: string; ref: string }>;
  /** Hidden tests the answer failed (ColBench code): the call and what went wrong. */
  failures?: Array<{ name: string; call: string; error?: string }>;
}
