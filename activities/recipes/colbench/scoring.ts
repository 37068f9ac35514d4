// Scoring one finished episode (sweet_rl scripts/evaluate_code.py, utils/code_utils.py; sweet_rl scripts/evaluate_html.py). The side effects (sandboxed Python, rendering, similarity, image
// store) are injected, so this file only decides what is scored and what an absent answer means.
//  code: the answer runs against the hidden tests with the task's reference (the sandbox reads the code out of its
//    fence: SEED-COMPAT under `seed` by the seed's own split, over the answer as the agent wrote it, so a ```py or
//    ```Python tag line stays in the code and blocklisted text in the prose around the fence refuses it); a test
//    passes iff the reference's value is not None and the candidate's equals it. No answer ("No answer" / empty)
//    scores 0 without a sandbox run. `success` = every test that counts passed; every other test has a reason
//    (sandbox/code-test-reasons.ts), and a test the reference failed counts only under `compat: seed`.
//  html: similarity of the final render with a fresh render of the reference. No render: `fixed` scores 0;
//    SEED-COMPAT `seed` compares a black 224×224 image with the reference, as the seed's evaluator does.
import { isEmptyAnswer } from './agent-reply';
import type { ColbenchTrajectory } from './episode';
import { blackPng } from './png';
import {
  type AnswerFailureReason,
  type CodeTestOutcome,
  type ColbenchCompat,
  countFailures,
  type ImageSimilarity,
  type LoadImage,
  type RenderHtml,
  type RunCodeTests,
  type SaveImage,
  type TestFailureCounts,
} from './services';
import type { ColbenchCodeTask, ColbenchHtmlTask } from './tasks';

export interface CodeScore {
  success: boolean;
  /** Fraction of hidden tests passed, in [0, 1] (the seed's "average correctness" averages it). */
  fraction: number;
  passed: number;
  /** Tests that count (see CodeTestResult.total). */
  total: number;
  tests: CodeTestOutcome[];
  /** Failed tests per reason (all 0 when nothing ran). */
  reasons: TestFailureCounts;
  /** Why nothing of the answer could be scored. */
  reason?: AnswerFailureReason;
  /** Why the sandbox refused the candidate, or "no answer". */
  rejected?: string;
}

export interface CodeScoreOptions {
  functionTimeoutSeconds?: number;
  slot?: number;
  compat?: ColbenchCompat;
}

export async function scoreCodeAnswer(
  answer: string | null,
  task: ColbenchCodeTask,
  runCodeTests: RunCodeTests,
  opts: CodeScoreOptions = {},
): Promise<CodeScore> {
  const names = Object.keys(task.testCases);
  if (isEmptyAnswer(answer)) {
    return {
      success: false,
      fraction: 0,
      passed: 0,
      total: names.length,
      tests: names.map((name) => ({ name, passed: false, error: 'no answer' })),
      reasons: countFailures([]),
      reason: 'no_answer',
      rejected: 'no answer',
    };
  }
  const r = await runCodeTests({
    candidate: answer!,
    reference: task.reference,
    testCases: task.testCases,
    functionTimeoutSeconds: opts.functionTimeoutSeconds ?? 1,
    slot: opts.slot ?? 0,
    compat: opts.compat ?? 'fixed',
  });
  const score: CodeScore = {
    success: r.success && !r.rejected,
    fraction: r.rejected ? 0 : r.fraction,
    passed: r.rejected ? 0 : r.passed,
    total: r.total,
    tests: r.tests,
    reasons: r.reasons,
  };
  if (r.reason) score.reason = r.reason;
  if (r.rejected) score.rejected = r.rejected;
  return score;
}

export async function scoreCodeTrajectory(
  record: ColbenchTrajectory,
  task: ColbenchCodeTask,
  runCodeTests: RunCodeTests,
  opts: CodeScoreOptions = {},
): Promise<CodeScore> {
  if (record.taskId !== task.id) throw new Error(`scoreCodeTrajectory: the record is for task ${record.taskId}, not ${task.id}`);
  return scoreCodeAnswer(record.answer, task, runCodeTests, opts);
}

export interface HtmlScore {
  /** In [0, 1]. */
  similarity: number;
  /** The episode left a render to score. */
  answered: boolean;
  /** The reference page's render, kept (when the caller stores images) so the report shows both side by side. */
  referenceImage?: string;
}

export interface HtmlScoreDeps {
  render: RenderHtml;
  similarity: ImageSimilarity;
  loadImage: LoadImage;
  /** Keeps the reference render; without it the render is compared and dropped. */
  saveImage?: SaveImage;
  compat?: ColbenchCompat;
}

export async function scoreHtmlTrajectory(record: ColbenchTrajectory, task: ColbenchHtmlTask, deps: HtmlScoreDeps): Promise<HtmlScore> {
  if (record.taskId !== task.id) throw new Error(`scoreHtmlTrajectory: the record is for task ${record.taskId}, not ${task.id}`);
  const answered = !isEmptyAnswer(record.answer);
  // SEED-COMPAT: the seed scores a missing design as a black image against the reference (a small positive number).
  const compared = answered || deps.compat === 'seed';
  if (!compared && !deps.saveImage) return { similarity: 0, answered };
  const truth = await deps.render(task.reference);
  const referenceImage = deps.saveImage ? { referenceImage: await deps.saveImage(truth) } : {};
  if (!compared) return { similarity: 0, answered, ...referenceImage };
  const mine = answered ? await deps.loadImage(record.answer!) : blackPng(224, 224);
  const s = await deps.similarity(mine, truth);
  if (!Number.isFinite(s)) throw new Error(`scoreHtmlTrajectory: similarity for task ${task.id} is ${s}, not a number`);
  return { similarity: Math.min(1, Math.max(0, s)), answered, ...referenceImage };
}
