// The two kinds of training example every recipe produces, before a trainer's row format (formats.ts) is applied.
import type { ChatMessage } from '../llm/types';

/** One target turn and the speaker's view of the conversation before it. */
export interface SftExample {
  taskId: string;
  sampleIndex: number;
  /** Index of the target turn in the conversation (recipes number their turns or rounds). */
  turn: number;
  messages: ChatMessage[];
  completion: string;
}

/** Two candidate turns for the same view: `chosen` preferred over `rejected`. */
export interface PreferencePair {
  taskId: string;
  sampleIndex: number;
  turn: number;
  /** The speaker's view before the turn: identical for chosen and rejected. */
  messages: ChatMessage[];
  chosen: string;
  rejected: string;
}
