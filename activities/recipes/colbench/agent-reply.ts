// Reading one agent completion (sweet_rl environments, HumanInteractionEnv): the `OUTPUT:` split, the final-answer marker, and html extraction.
import { ANSWER_MARKER, OUTPUT_MARKER } from './prompts';

export interface AgentReply {
  /** What the human sees and what later agent prompts show: the text after the first `OUTPUT:` (up to a second
   *  one), or the whole completion when there is none. */
  visible: string;
  /** The completion as kept for training: cut before a second `OUTPUT:`, like the seed's `output`. */
  raw: string;
  /** The visible message contains the final-answer marker. */
  marker: boolean;
  /** Text after the marker (up to a second marker), trimmed; null without the marker. */
  afterMarker: string | null;
}

export function readAgentReply(completion: string): AgentReply {
  let visible = completion;
  let raw = completion;
  const parts = completion.split(OUTPUT_MARKER);
  if (parts.length > 1) {
    visible = parts[1];
    raw = parts.slice(0, 2).join(OUTPUT_MARKER);
  }
  visible = visible.trim();
  const at = visible.split(ANSWER_MARKER);
  return { visible, raw, marker: at.length > 1, afterMarker: at.length > 1 ? at[1].trim() : null };
}

/**
 * One page per agent turn: the first `<html>…</html>` (with the `<!DOCTYPE>` right before it, which keeps the browser
 * out of quirks mode), else the first `<body>…</body>`, else null.
 */
export function extractHtml(text: string): string | null {
  const html = /(?:<!DOCTYPE[^>]*>\s*)?<html(?:\s[^>]*)?>[\s\S]*?<\/html\s*>/i.exec(text);
  if (html) return html[0];
  const body = /<body(?:\s[^>]*)?>[\s\S]*?<\/body\s*>/i.exec(text);
  return body ? body[0] : null;
}

/** The seed's placeholder when an episode produced no answer. */
export const NO_ANSWER = 'No answer';

export function isEmptyAnswer(answer: string | null | undefined): boolean {
  return answer === null || answer === undefined || answer.trim() === '' || answer.trim() === NO_ANSWER;
}
