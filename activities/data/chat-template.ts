// fairseq2 0.4 applies no chat template: `src` must be the prompt already rendered as text (fairseq2 0.4 docs, recipe
// option `source_encode_mode: as_is`). This renders the Llama-3.1-Instruct template the way its tokenizer does
// without tools: special tokens as text, the default knowledge/today date lines in the system header, each
// message trimmed, and the assistant header appended as the generation prompt.
import type { ChatMessage } from '../llm/types';

const textOf = (c: ChatMessage['content']) => (typeof c === 'string' ? c : c.map((p) => (p.type === 'text' ? p.text : '')).join(''));
const block = (role: string, content: string) => `<|start_header_id|>${role}<|end_header_id|>\n\n${content}<|eot_id|>`;

export function renderLlama31(messages: readonly ChatMessage[], addGenerationPrompt = true): string {
  const [first, ...rest] = messages;
  const hasSystem = first?.role === 'system';
  const system = hasSystem ? textOf(first.content).trim() : '';
  let out = `<|begin_of_text|>${block('system', `Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n${system}`)}`;
  for (const m of hasSystem ? rest : messages) out += block(m.role, textOf(m.content).trim());
  if (addGenerationPrompt) out += '<|start_header_id|>assistant<|end_header_id|>\n\n';
  return out;
}
