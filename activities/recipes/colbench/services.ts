// The side-effecting services ColBench needs, as plain function types. Two other parts of the project implement
// them (a Python sandbox and a Chromium renderer); this folder never imports them, so its logic stays pure and its
// tests can pass honest fakes. activities/generation/services.ts builds the real ones for the activities.

import type { ColbenchCompat } from './compat';

export type { ColbenchCompat };

// The code-test and screenshot-similarity types are the sandbox's and the renderer's own (one definition each); a
// type-only import keeps this folder free of both at run time. The vocabulary of failure reasons is plain data beside it, imported as such.
import type {
  CodeTestOutcome,
  CodeTestsInput as CodeTestInput,
  CodeTestsResult as CodeTestResult,
  RunCodeTests,
} from '../../sandbox/code-tests';
import type { ImageSimilarity } from '../../render/image-similarity';

export type { CodeTestInput, CodeTestOutcome, CodeTestResult, ImageSimilarity, RunCodeTests };
export {
  type AnswerFailureReason,
  countFailures,
  type TestFailureCounts,
  type TestFailureReason,
} from '../../sandbox/code-test-reasons';

/** Renders one self-contained HTML page to a full-page PNG. Errors are infrastructure failures: they propagate. */
export type RenderHtml = (html: string) => Promise<Buffer>;

/** Stores a PNG in the artifact store; returns a reference (uri or path) that `LoadImage` reads back. */
export type SaveImage = (png: Buffer) => Promise<string>;
export type LoadImage = (ref: string) => Promise<Buffer>;
