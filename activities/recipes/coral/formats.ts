// Dataset files in the formats trainers read (seed brief A.8, trainers brief B):
//  fairseq2 (0.4 instruction / preference finetuning): {"src","tgt"} / {"src","tgt_chosen","tgt_rejected"}, src =
//    the chat-templated prompt as text (recipe option `source_encode_mode: as_is`).
//  trl (sft / dpo, conversational): {"messages":[...]} / {"prompt":[...],"chosen":[assistant],"rejected":[assistant]}.
//  openrlhf (train_sft / train_dpo with --apply_chat_template): SFT {"messages":[...]} with --input_key messages
//    (the last message is the target); DPO {"prompt":[...],"chosen":[...],"rejected":[...]} with
//    --prompt_key prompt --chosen_key chosen --rejected_key rejected.
import { renderLlama3 } from './chat-template';
import type { PreferencePair, SftExample } from './training-data';

export type DataFormat = 'fairseq2' | 'trl' | 'openrlhf';

export function formatSft(examples: SftExample[], format: DataFormat): string[] {
  return examples.map((e) =>
    JSON.stringify(
      format === 'fairseq2'
        ? { src: renderLlama3(e.messages), tgt: e.completion, id: e.taskId }
        : { messages: [...e.messages, { role: 'assistant', content: e.completion }] },
    ),
  );
}

export function formatPreferences(pairs: PreferencePair[], format: DataFormat): string[] {
  return pairs.map((p) =>
    JSON.stringify(
      format === 'fairseq2'
        ? { src: renderLlama3(p.messages), tgt_chosen: p.chosen, tgt_rejected: p.rejected, id: `${p.taskId}#${p.turn}` }
        : { prompt: p.messages, chosen: [{ role: 'assistant', content: p.chosen }], rejected: [{ role: 'assistant', content: p.rejected }] },
    ),
  );
}
