// CollabLLM's online RL reward (verl GRPO, as verl's recipe/collabllm, now in verl-recipe, trains it): verl samples
// responses and its agent loop plays `num_repeat_rollouts` futures after each — the policy being trained answers, and
// the user turns come from here (POST /user-turn, the same simulator protocol as the data loop); its reward manager
// then sends each response's futures here (POST /score), where they are judged and combined exactly as a candidate of
// the data-building loop is (scorePlayedFutures). So the simulator, the metrics and the missing-score rule exist
// once. Bodies are validated here; the Python side (activities/training/adapters/verl_collab_loop.py) only relays.
import { z } from 'zod';
import type { Chat, ChatMessage } from '../../llm/types';
import { sha256Hex } from '../../storage/content-hash';
import { BadRequest } from '../../serving/json-service';
import type { OnlineRewardHandlers } from '../types';
import type { CollabSettings } from './conversation';
import { scoreContextFor, scorePlayedFutures, simulateUserFor } from './conversation';
import type { RunTaskTests } from './score-conversation';
import { parseCollabTasks, TaskFileError, type CollabTask, type CollabTaskKind } from './tasks';

/** What a future's user turn says when the simulator gave no readable reply: the future is then left unscored. */
export const SIMULATOR_FAILED = '[[collab-loop: the user simulator failed]]';

const message = z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
/** verl's interaction_kwargs as ./collabllm_to_verl.py writes them (extra keys are verl's or ours). */
const interaction = z.looseObject({
  single_turn_prompt: z.string().min(1),
  single_turn_completion: z.string().min(1),
  task_kind: z.string().nullish(),
  task_id: z.string().nullish(),
  task_desc: z.string().nullish(),
});
const userTurnBody = z.strictObject({ key: z.string().min(1), interaction, messages: z.array(message) });
const scoreBody = z.strictObject({
  key: z.string().min(1),
  interaction,
  /** Messages before the response in every future (verl's raw prompt, system prompt included). */
  prompt_length: z.number().int().min(1),
  futures: z.array(z.array(message)),
});

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  throw new BadRequest(`${what}: field "${i.path.join('.') || '(body)'}" ${i.message}`);
}

export interface CollabRewardDeps {
  kind: CollabTaskKind;
  chats: { user: Chat; judge: Chat; extractor: Chat };
  settings: CollabSettings;
  runTests?: RunTaskTests;
}

/** The task a verl row stands for: its single-turn fields, read as the task loader reads the seed's rows. */
function taskOf(d: CollabRewardDeps, i: z.infer<typeof interaction>): CollabTask {
  const kind = (i.task_kind ?? d.kind) as CollabTaskKind;
  const row = {
    ...(i.task_id ? { id: i.task_id } : {}),
    single_turn_prompt: i.single_turn_prompt,
    single_turn_completion: i.single_turn_completion,
  };
  try {
    const [task] = parseCollabTasks(JSON.stringify(row), 'interaction_kwargs', kind);
    return i.task_desc ? { ...task, description: i.task_desc } : task;
  } catch (err) {
    if (err instanceof TaskFileError) throw new BadRequest(err.message);
    throw err;
  }
}

export function collabRewardHandlers(d: CollabRewardDeps): OnlineRewardHandlers {
  const runTests = d.runTests;
  return {
    async userTurn(body) {
      const b = parse(userTurnBody, body, '/user-turn');
      const history: ChatMessage[] = b.messages.filter((m) => m.role !== 'system');
      const t = await simulateUserFor(taskOf(d, b.interaction), d.chats.user, d.settings, history, b.key);
      if (t.kind === 'failed') return { text: SIMULATOR_FAILED, terminate: true };
      return { text: t.text, terminate: t.kind === 'terminate' };
    },
    async score(body) {
      const b = parse(scoreBody, body, '/score');
      const task = taskOf(d, b.interaction);
      for (const [i, f] of b.futures.entries())
        if (f.length <= b.prompt_length || f[b.prompt_length].role !== 'assistant')
          throw new BadRequest(`/score: futures[${i}] has no assistant response at prompt_length ${b.prompt_length}`);
      if (b.futures.length === 0) return { score: null, used: 0, missing: 0, per_metric: {} };
      // The judges see the conversation as in the data loop: without the policy's system prompt.
      const withResponse = b.futures[0].slice(0, b.prompt_length + 1).filter((m) => m.role !== 'system');
      const prefix = JSON.stringify(b.futures[0].slice(0, b.prompt_length + 1));
      for (const [i, f] of b.futures.entries())
        if (JSON.stringify(f.slice(0, b.prompt_length + 1)) !== prefix)
          throw new BadRequest(`/score: futures[${i}] does not start with the same prompt and response as futures[0]`);
      const played = b.futures.map((f) => {
        // verl appends the simulator's closing words even when empty; a trailing empty user turn says nothing.
        const after = f.slice(b.prompt_length + 1).filter((m, k, all) => !(k === all.length - 1 && m.role === 'user' && !m.content.trim()));
        const failed = after.some((m) => m.role === 'user' && m.content === SIMULATOR_FAILED);
        return failed ? { messages: [], terminated: false, failed: 'the user simulator failed' } : { messages: after, terminated: false };
      });
      const key = `${b.key}/${sha256Hex(JSON.stringify(b.futures)).slice(0, 16)}`;
      const r = await scorePlayedFutures(task, withResponse, played, d.settings, scoreContextFor(d.settings, task, d.chats, runTests), key);
      return { score: r.score ?? null, used: r.usedFutures, missing: r.missingFutures, per_metric: r.perMetric };
    },
  };
}
