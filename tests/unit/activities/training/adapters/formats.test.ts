// The rows each GPU-trainer adapter reads (its `dataFormat`), as the CoRal data builders write them.
import { describe, expect, it } from 'vitest';
import { formatPreferences, formatSft } from '../../../../../activities/data/formats';
import type { PreferencePair } from '../../../../../activities/data/examples';
import type { SftExample } from '../../../../../activities/data/examples';
import { fairseq2Adapter } from '../../../../../activities/training/adapters/fairseq2';
import { openrlhfAdapter } from '../../../../../activities/training/adapters/openrlhf';
import { verlAdapter } from '../../../../../activities/training/adapters/verl';

// The student's view before its second turn: it "asked" turn 0, so that is an assistant message too.
const messages = [
  { role: 'system' as const, content: 'SYS' },
  { role: 'user' as const, content: 'Let us solve it together.' },
  { role: 'assistant' as const, content: 'Q' },
  { role: 'user' as const, content: 'T1 (C)' },
];
const sft: SftExample[] = [{ taskId: 'q', sampleIndex: 0, turn: 2, messages, completion: 'S2 (C)' }];
const pairs: PreferencePair[] = [{ taskId: 'q', sampleIndex: 0, turn: 2, messages, chosen: 'S2 (C)', rejected: 'S2 (A)' }];
const LLAMA_SRC =
  '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nSYS<|eot_id|>' +
  '<|start_header_id|>user<|end_header_id|>\n\nLet us solve it together.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nQ<|eot_id|>' +
  '<|start_header_id|>user<|end_header_id|>\n\nT1 (C)<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n';

describe('rows per adapter dataFormat', () => {
  it('fairseq2: {src, tgt, id} / {src, tgt_chosen, tgt_rejected, id}, src rendered with BOS and the assistant header', () => {
    expect(fairseq2Adapter.dataFormat).toBe('fairseq2');
    expect(formatSft(sft, 'fairseq2').map((l) => JSON.parse(l))).toEqual([{ src: LLAMA_SRC, tgt: 'S2 (C)', id: 'q/s0/t2' }]);
    expect(formatPreferences(pairs, 'fairseq2').map((l) => JSON.parse(l))).toEqual([
      { src: LLAMA_SRC, tgt_chosen: 'S2 (C)', tgt_rejected: 'S2 (A)', id: 'q/s0/t2' },
    ]);
  });

  it('openrlhf: {messages} ending in the target / {prompt, chosen, rejected} message lists', () => {
    expect(openrlhfAdapter.dataFormat).toBe('openrlhf');
    expect(formatSft(sft, 'openrlhf').map((l) => JSON.parse(l))).toEqual([
      { messages: [...messages, { role: 'assistant', content: 'S2 (C)' }] },
    ]);
    expect(formatPreferences(pairs, 'openrlhf').map((l) => JSON.parse(l))).toEqual([
      {
        prompt: messages,
        chosen: [{ role: 'assistant', content: 'S2 (C)' }],
        rejected: [{ role: 'assistant', content: 'S2 (A)' }],
      },
    ]);
  });

  it('verl: {messages} ending in the target; no preference rows (SFT only)', () => {
    expect(verlAdapter.dataFormat).toBe('verl');
    expect(formatSft(sft, 'verl')).toEqual(formatSft(sft, 'openrlhf'));
    expect(formatSft(sft, 'verl')[0]).toBe(JSON.stringify({ messages: [...messages, { role: 'assistant', content: 'S2 (C)' }] }));
    expect(formatPreferences(pairs, 'verl')).toEqual([]);
  });

  it('one JSON object per line', () => {
    for (const f of ['fairseq2', 'openrlhf', 'verl'] as const)
      for (const line of [...formatSft(sft, f), ...formatPreferences(pairs, f)]) expect(line).not.toContain('\n');
  });
});
