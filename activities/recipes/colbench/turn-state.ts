// One SWEET-RL state: an agent turn of an offline trajectory, with what the agent saw before it and what only the
// critic may see. Built by sweet-rl.ts, ranked by critic.ts.
import type { ChatMessage } from '../../llm/types';
import type { DialogueTurn } from './prompts';
import type { ColbenchKind } from './tasks';

export interface TurnState {
  /** `<taskId>/s<sampleIndex>/t<turn>`: stable, used in seeds and sample keys. */
  id: string;
  taskId: string;
  sampleIndex: number;
  /** 1-based index of the agent turn this state precedes. */
  turn: number;
  kind: ColbenchKind;
  problem: string;
  /** The dialogue before this turn (visible messages), for the critic's transcript. */
  dialogue: DialogueTurn[];
  /** What the agent saw: system, problem, then the dialogue. The DPO prompt. Never contains the reference. */
  messages: ChatMessage[];
  /** Training-time information: the hidden reference. Only the critic sees it. */
  reference: string;
  /** The turn the agent actually took here (its raw completion). */
  original: string;
}
