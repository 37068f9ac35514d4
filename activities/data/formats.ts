// Training files in the formats each trainer reads (one JSON object per line; collaborative-reasoner finetuning/, the fairseq2 configs).
//
// fairseq2 0.4 — `fairseq2 lm instruction_finetune` / `preference_finetune`, `dataset.path=<dir with the jsonl>`:
//   SFT {"src","tgt","id"}; DPO {"src","tgt_chosen","tgt_rejected","id"}; src = Llama-3.1 template text
//   (chat-template.ts), so set `source_encode_mode: as_is`.
// OpenRLHF — train_sft: {"messages":[...]} whose last message is the target, read with
//   `--apply_chat_template --input_key messages` (≥ 0.10.2: `--data.apply_chat_template --data.input_key messages`);
//   do NOT pass --multiturn, which would also train on the speaker's earlier turns.
//   train_dpo: {"prompt":[...],"chosen":[assistant],"rejected":[assistant]} read with `--apply_chat_template
//   --prompt_key prompt --chosen_key chosen --rejected_key rejected` (≥ 0.10.2: the same under `--data.`).
// TRL — `trl sft`: conversational prompt-completion {"prompt":[...],"completion":[assistant]}, so the loss covers
//   only the turn (completion_only_loss is on by default; a plain {"messages"} row would also train on the
//   partner's turns and the system prompt). `trl dpo`: conversational {"prompt","chosen","rejected"}.
import { renderLlama31 } from './chat-template';
import type { PreferencePair, SftExample } from './examples';

// verl — fsdp_sft_trainer with data.multiturn: {"messages":[...]} like OpenRLHF's SFT rows (converted to parquet
//   by the adapter's prepare step); verl trains SFT only. It has no per-message loss mask, so its loss also covers
//   the speaker's earlier (assistant) turns in a row — see adapters/verl.ts.
//
// A format is named after the tool whose rows it is; each trainer adapter says which it reads (its dataFormat), a
// `command` trainer says it in the config.
export const TRAINING_DATA_FORMATS = ['fairseq2', 'trl', 'openrlhf', 'verl'] as const;
export type TrainingDataFormat = (typeof TRAINING_DATA_FORMATS)[number];

const exampleId = (e: { taskId: string; sampleIndex: number; turn: number }) => `${e.taskId}/s${e.sampleIndex}/t${e.turn}`;
const assistant = (content: string) => [{ role: 'assistant' as const, content }];

export function formatSft(examples: readonly SftExample[], format: TrainingDataFormat): string[] {
  return examples.map((e) => {
    if (format === 'fairseq2') return JSON.stringify({ src: renderLlama31(e.messages), tgt: e.completion, id: exampleId(e) });
    if (format === 'openrlhf' || format === 'verl') return JSON.stringify({ messages: [...e.messages, ...assistant(e.completion)] });
    return JSON.stringify({ prompt: e.messages, completion: assistant(e.completion) });
  });
}

export function formatPreferences(pairs: readonly PreferencePair[], format: TrainingDataFormat): string[] {
  // Built every iteration whatever the method; verl has no preference trainer, so there is nothing to write.
  if (format === 'verl') return [];
  return pairs.map((p) =>
    format === 'fairseq2'
      ? JSON.stringify({ src: renderLlama31(p.messages), tgt_chosen: p.chosen, tgt_rejected: p.rejected, id: exampleId(p) })
      : JSON.stringify({ prompt: p.messages, chosen: assistant(p.chosen), rejected: assistant(p.rejected) }),
  );
}
