// The side-effecting services ColBench needs, as plain function types. Two other parts of the project implement
// them (a Python sandbox and a Chromium renderer); this folder never imports them, so its logic stays pure and its
// tests can pass honest fakes. The lead wires the real ones in the activities.

import type { ColbenchCompat } from './compat';

export type { ColbenchCompat };

export interface CodeTestInput {
  /** The agent's Python source (one function, fences already stripped). */
  candidate: string;
  /** The task's hidden reference function. */
  reference: string;
  /** Test name → Python call expression, evaluated against both sources. */
  testCases: Record<string, string>;
  /** Per-call limit on the candidate (the seed used 1 s). */
  functionTimeoutSeconds: number;
  /** Which sandbox slot (non-root user / cgroup) runs it; the caller bounds concurrency with it. */
  slot: number;
  compat: ColbenchCompat;
}

export interface CodeTestOutcome { name: string; passed: boolean; error?: string }

export interface CodeTestResult {
  passed: number;
  total: number;
  /** passed / total, in [0, 1]. */
  fraction: number;
  /** Every test passed. */
  success: boolean;
  tests: CodeTestOutcome[];
  /** Set when the candidate was refused before running (forbidden text such as `import os`); it scores 0. */
  rejected?: string;
}

/** A test passes iff the reference's value is not None and the candidate returns an equal value (brief A.5). */
export type RunCodeTests = (input: CodeTestInput) => Promise<CodeTestResult>;

/** Renders one self-contained HTML page to a full-page PNG. Errors are infrastructure failures: they propagate. */
export type RenderHtml = (html: string) => Promise<Buffer>;

/** Similarity of two PNG screenshots in [0, 1] (the seed: CLIP image-embedding cosine). */
export type ImageSimilarity = (pngA: Buffer, pngB: Buffer) => number | Promise<number>;

/** Stores a PNG in the artifact store; returns a reference (uri or path) that `LoadImage` reads back. */
export type SaveImage = (png: Buffer) => Promise<string>;
export type LoadImage = (ref: string) => Promise<Buffer>;
