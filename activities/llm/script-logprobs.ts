// A log-prob Chat over a local checkpoint (./mean_logprobs.py), for serving kinds whose server gives
// no prompt log-probs (`transformers serve`): the same answer as logprob-api.ts, texts [String(mean)]. Calls made
// in the same tick go to one run of the script (the model loads once per batch, not once per candidate). The
// numbers are a pure function of the weights, so nothing is cached: a retried stage recomputes them.
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { venvExecutable } from '../subprocess/venv';
import { checkLogProbCall } from './logprob-api';
import type { Chat, ChatCall, ChatOutput } from './types';

const SCRIPT = fileURLToPath(new URL('./mean_logprobs.py', import.meta.url));

export interface ScriptLogProbOptions {
  /** Python with torch and transformers (default: the project's .venv). */
  python?: string;
  signal?: AbortSignal;
}

export function scriptLogProbChat(checkpoint: string, o: ScriptLogProbOptions = {}): Chat {
  let batch: Array<{ call: ChatCall; resolve: (v: ChatOutput) => void; reject: (e: unknown) => void }> = [];

  const flush = async () => {
    const items = batch;
    batch = [];
    try {
      const r = await execa(o.python ?? venvExecutable('python'), [SCRIPT, '--model', checkpoint], {
        input: `${items.map(({ call }) => JSON.stringify({ messages: call.messages })).join('\n')}\n`,
        reject: false,
        cancelSignal: o.signal,
      });
      if (r.exitCode !== 0)
        throw new Error(`mean_logprobs.py on ${checkpoint} failed (exit ${r.exitCode}): ${r.stderr.trim().split('\n').at(-1) ?? ''}`);
      const lines = r.stdout.trim().split('\n').filter(Boolean);
      if (lines.length !== items.length)
        throw new Error(`mean_logprobs.py on ${checkpoint}: ${lines.length} answers for ${items.length} items`);
      lines.forEach((line, i) => {
        const { mean, tokens } = JSON.parse(line) as { mean: number; tokens: number };
        items[i].resolve({
          texts: [String(mean)],
          finishReasons: ['stop'],
          usage: { promptTokens: tokens, completionTokens: 0 },
          cached: false,
        });
      });
    } catch (err) {
      for (const it of items) it.reject(err);
    }
  };

  const chat = (call: ChatCall): Promise<ChatOutput> => {
    checkLogProbCall(call, `${checkpoint} (mean_logprobs.py)`);
    return new Promise((resolve, reject) => {
      if (batch.length === 0) setImmediate(() => void flush());
      batch.push({ call, resolve, reject });
    });
  };
  return Object.assign(chat, { api: 'logprob' as const });
}
