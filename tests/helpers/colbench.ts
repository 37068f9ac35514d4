// Shared test helpers: the shipped task files, a `Chat` backed by the SIMULATED ColBench policy (stand-in for model
// servers, which need a GPU and weights), a scripted `Chat` for exact protocol checks, and fakes of the injected
// services. The fakes are honest about what they are: they check this folder's plumbing, not Python or Chromium.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatCall } from '../../activities/llm/types';
import type { RecordingChat } from './simulated-chat';
import { stripPythonFence } from '../../activities/sandbox/code-tests';
import {
  countFailures,
  loadColbenchTasks,
  type CodeTestInput,
  type CodeTestResult,
  type ColbenchCodeTask,
  type ColbenchHtmlTask,
} from '../../activities/recipes/colbench';

export type { RecordingChat };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TASK_DIR = path.join(ROOT, 'configs/tasks/colbench');
export const backendTasks = (): ColbenchCodeTask[] => loadColbenchTasks(path.join(TASK_DIR, 'backend.jsonl'), 'code');
export const htmlTasks = (): ColbenchHtmlTask[] => loadColbenchTasks(path.join(TASK_DIR, 'html.jsonl'), 'html');

export { simulatedChat } from './simulated-chat';

/** A Chat that replies from a list (one entry per call; an array = n texts; an Error is thrown), recording calls. */
export function scriptedChat(replies: Array<string | string[] | Error>, usage = { promptTokens: 10, completionTokens: 5 }): RecordingChat {
  const calls: ChatCall[] = [];
  const chat = async (call: ChatCall) => {
    calls.push(call);
    const next = replies[calls.length - 1];
    if (next === undefined) throw new Error(`scriptedChat: no reply scripted for call ${calls.length}`);
    if (next instanceof Error) throw next;
    const texts = Array.isArray(next) ? next : [next];
    return { texts, finishReasons: texts.map(() => 'stop'), usage, cached: false };
  };
  return Object.assign(chat, { calls });
}

/** Always replies with the same text (n copies). */
export function constantChat(text: string): RecordingChat {
  const calls: ChatCall[] = [];
  const chat = async (call: ChatCall) => {
    calls.push(call);
    const texts = Array(call.n ?? 1).fill(text);
    return { texts, finishReasons: texts.map(() => 'stop'), usage: { promptTokens: 3, completionTokens: 2 }, cached: false };
  };
  return Object.assign(chat, { calls });
}

/** Shaped like the ApplicationFailure activities/llm/client.ts throws for an HTTP 400. */
export const badRequest = () =>
  Object.assign(new Error('http://sim/v1: HTTP 400: context too long'), { type: 'LlmBadRequest', nonRetryable: true });
export const rateLimited = () => Object.assign(new Error('http://sim/v1: HTTP 429'), { type: 'LlmRateLimited', nonRetryable: false });
export const unauthorized = () => Object.assign(new Error('http://sim/v1: HTTP 401'), { type: 'LlmAuthentication', nonRetryable: true });

/** FAKE renderer: a PNG-signature buffer plus a hash of the trimmed page — equal pages give equal "images". */
export const fakeRender = async (html: string) =>
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(createHash('sha256').update(html.trim()).digest('hex'))]);

/** FAKE similarity: 1 for identical buffers, else 0.25. */
export const fakeSimilarity = (a: Buffer, b: Buffer) => (a.equals(b) ? 1 : 0.25);

/** An in-memory image store. */
export function memoryImages() {
  const store = new Map<string, Buffer>();
  return {
    store,
    saveImage: async (png: Buffer) => {
      const ref = `mem://${createHash('sha256').update(png).digest('hex').slice(0, 16)}.png`;
      store.set(ref, png);
      return ref;
    },
    loadImage: async (ref: string) => {
      const png = store.get(ref);
      if (!png) throw new Error(`no image ${ref}`);
      return png;
    },
  };
}

/**
 * FAKE sandbox: a candidate passes every test iff its text equals the reference (after trimming), else none —
 * enough to check which answers reach the scorer and how results are read; the real sandbox runs Python.
 */
export function textualRunCodeTests(): ((input: CodeTestInput) => Promise<CodeTestResult>) & { inputs: CodeTestInput[] } {
  const inputs: CodeTestInput[] = [];
  const run = async (input: CodeTestInput): Promise<CodeTestResult> => {
    inputs.push(input);
    const names = Object.keys(input.testCases);
    // The answer arrives as the agent wrote it; the real runner reads the code out of its fence the same way.
    const same = stripPythonFence(input.candidate) === input.reference.trim();
    const tests = names.map((name) => ({ name, passed: same, ...(same ? {} : { reason: 'wrong_value' as const, error: 'wrong value' }) }));
    return {
      passed: same ? names.length : 0,
      total: names.length,
      fraction: same ? 1 : 0,
      success: same,
      tests,
      reasons: countFailures(tests),
    };
  };
  return Object.assign(run, { inputs });
}

export const codeDecoding = { temperature: 1, maxTokens: 256 };
export const humanDecoding = { temperature: 0, maxTokens: 128 };
