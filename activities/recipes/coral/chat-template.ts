// fairseq2 0.4 does not apply chat templates: `src` must already be the prompt rendered as text. This renders the
// Llama-3.1 instruct template (special tokens as text), which is what CoRal trained.
import type { ChatMessage } from '../../llm/types';

const text = (c: ChatMessage['content']) => (typeof c === 'string' ? c : c.map((p) => (p.type === 'text' ? p.text : '')).join(''));

export function renderLlama3(messages: ChatMessage[], addGenerationPrompt = true): string {
  let out = '<|begin_of_text|>';
  for (const m of messages) out += `<|start_header_id|>${m.role}<|end_header_id|>\n\n${text(m.content).trim()}<|eot_id|>`;
  if (addGenerationPrompt) out += '<|start_header_id|>assistant<|end_header_id|>\n\n';
  return out;
}
