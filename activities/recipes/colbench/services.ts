// The side-effecting services ColBench needs, as plain function types. Two other parts of the project implement
// them (a Python sandbox and a Chromium renderer); this folder never imports them, so its logic stays pure and its
// tests can pass honest fakes. activities/generation/services.ts builds the real ones for the activities.

import type { ColbenchCompat } from './compat';

export type { ColbenchCompat };

// The code-test types are the sandbox's own (one definition); a type-only import keeps this folder free of the
// sandbox at run time. The vocabulary of failure reasons is plain data beside it, imported as such.
import type { CodeTestOutcome, CodeTestsInput as CodeTestInput, CodeTestsResult as CodeTestResult } from '../../sandbox/code-tests';

export type { CodeTestInput, CodeTestOutcome, CodeTestResult };
export {
  type AnswerFailureReason,
  countFailures,
  type TestFailureCounts,
  type TestFailureReason,
} from '../../sandbox/code-test-reasons';

/** A test passes iff the reference's value is not None and the candidate returns an equal value (sweet_rl scripts/evaluate_code.py, utils/code_utils.py). */
export type RunCodeTests = (input: CodeTestInput) => Promise<CodeTestResult>;

/** Renders one self-contained HTML page to a full-page PNG. Errors are infrastructure failures: they propagate. */
export type RenderHtml = (html: string) => Promise<Buffer>;

/** Similarity of two PNG screenshots in [0, 1] (the seed: CLIP image-embedding cosine). */
export type ImageSimilarity = (pngA: Buffer, pngB: Buffer) => number | Promise<number>;

/** Stores a PNG in the artifact store; returns a reference (uri or path) that `LoadImage` reads back. */
export type SaveImage = (png: Buffer) => Promise<string>;
export type LoadImage = (ref: string) => Promise<Buffer>;
