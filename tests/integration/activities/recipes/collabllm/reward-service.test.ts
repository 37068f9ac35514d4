// CollabLLM's online-RL reward service (activities/recipes/collabllm/reward-service.ts) over real HTTP, driven by the
// real Python plug-ins verl loads (activities/training/adapters/verl_collab_loop.py): the interaction's user turns are the data
// loop's simulator turns, a response's reward is the data loop's reward of the same futures, a failed judge or
// simulator leaves a future out (never 0), bad rows are refused with the field, and the reward manager (registered
// with the STAND-IN verl registry, tests/fixtures/stand-in-verl) gives an unscored response its group's mean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import path from 'node:path';
import type { Chat, ChatCall, ChatMessage } from '../../../../../activities/llm/types';
import { collabllmRecipeSchema } from '../../../../../activities/recipes/collabllm/config';
import { scorePlayedFutures, simulateUserFor } from '../../../../../activities/recipes/collabllm/conversation';
import { TERMINATE } from '../../../../../activities/recipes/collabllm/prompts';
import { collabllmRecipe } from '../../../../../activities/recipes/collabllm/recipe';
import { SIMULATOR_FAILED } from '../../../../../activities/recipes/collabllm/reward-service';
import { collabSettings } from '../../../../../activities/recipes/collabllm/runtime';
import { parseCollabTasks } from '../../../../../activities/recipes/collabllm/tasks';
import { startJsonService, type RunningJsonService } from '../../../../../activities/serving/json-service';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { VENV_PYTHON } from '../../../../helpers/tiny-model';

const STAND_IN_VERL = path.join(PROJECT_ROOT, 'tests', 'fixtures', 'stand-in-verl');

const text = (call: ChatCall) => call.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
function scripted(reply: (call: ChatCall) => string): Chat & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  const chat: Chat = async (call) => {
    calls.push(call);
    return { texts: [reply(call)], finishReasons: ['stop'], usage: { promptTokens: 10, completionTokens: 5 }, cached: false };
  };
  return Object.assign(chat, { calls });
}

// The simulator: fails on a "BROKEN" answer, ends the chat on a FINAL-ANSWER, else asks with its request key.
const user = scripted((call) => {
  const history = text(call);
  if (history.includes('BROKEN')) return 'no json here';
  if (history.includes('FINAL-ANSWER')) return JSON.stringify({ thought: 'done', response: `thanks ${TERMINATE}` });
  return JSON.stringify({ thought: 'ask', response: `tell me more (${call.sampleKey})` });
});
// The judges: unreadable on an "UNREADABLE" conversation; accuracy 1 on a RIGHT-ANSWER; interactivity 0.5.
const judge = scripted((call) => {
  if (text(call).includes('UNREADABLE')) return 'cannot say';
  return call.sampleKey?.endsWith('/accuracy')
    ? JSON.stringify({ thought: 'checked', accuracy: text(call).includes('RIGHT-ANSWER') ? 1 : 0 })
    : JSON.stringify({ thought: 'checked', interactivity: 0.5 });
});
const extractor = scripted(() => 'unused');

const cfg = collabllmRecipeSchema.parse({
  name: 'collabllm',
  task: 'math',
  evalTasks: 'unused.jsonl',
  weights: { accuracy: 1, interactivity: 1, token_amount: -0.1 },
  user: { parseRetries: 1 },
  judge: { parseRetries: 1 },
});
const SEED = 3;
const settings = collabSettings(cfg, SEED);
const KWARGS = {
  name: 'collabllm',
  single_turn_prompt: 'HIDDEN-GOAL: what is 12 squared?',
  single_turn_completion: 'Since 12 * 12 = 144, the answer is \\boxed{144}.',
  task_kind: 'math',
  task_id: 'sq',
  task_desc: null, // the converter leaves it out without --task-desc; parquet then holds null
};
const [TASK] = parseCollabTasks(JSON.stringify({ id: 'sq', ...KWARGS }), 'test', 'math');

let service: RunningJsonService;
beforeAll(async () => {
  const handlers = await collabllmRecipe.onlineRl!.rewardService(cfg, { chats: { user, judge, extractor }, services: {}, seed: SEED });
  service = await startJsonService({ routes: { '/user-turn': handlers.userTurn, '/score': handlers.score } });
});
afterAll(async () => {
  await service?.close();
});

/** Runs Python with the plug-ins importable (and the stand-in verl, for the reward manager); returns its JSON. */
async function py(code: string, o: { standInVerl?: boolean } = {}) {
  const r = await execa(VENV_PYTHON, ['-c', `import json, asyncio\nimport verl_collab_loop as v\n${code}`], {
    reject: false,
    env: {
      PYTHONPATH: [path.join(PROJECT_ROOT, 'activities/training/adapters'), ...(o.standInVerl ? [STAND_IN_VERL] : [])].join(path.delimiter),
      COLLAB_LOOP_REWARD_URL: service.url,
      COLLAB_LOOP_REWARD_RETRIES: '0',
    },
  });
  return {
    ok: r.exitCode === 0,
    out: r.exitCode === 0 ? JSON.parse(String(r.stdout).trim().split('\n').pop()!) : undefined,
    stderr: String(r.stderr),
  };
}

const SYSTEM: ChatMessage = { role: 'system', content: 'SYSTEM-PROMPT for the policy' };
const PROMPT: ChatMessage[] = [SYSTEM, { role: 'user', content: 'I need a number squared' }];
const m = (role: 'user' | 'assistant', content: string): ChatMessage => ({ role, content });
const extra = { prompt: PROMPT, index: 'row-1', interaction_kwargs: KWARGS };
const score = (futures: ChatMessage[][]) =>
  py(
    `print(json.dumps(v.score_futures("collabllm", ${JSON.stringify(futures)}, "gt", ${JSON.stringify(extra).replaceAll('null', 'None')})))`,
  );

describe('user turns (CollabLoopInteraction → /user-turn)', () => {
  it("are the data loop's simulator turns, one request key per turn, without the system prompt", async () => {
    const history = [...PROMPT, m('assistant', 'Which number?')];
    const r = await py(`
i = v.CollabLoopInteraction({})
async def go():
    await i.start_interaction("inst-1", **${JSON.stringify(KWARGS).replaceAll('null', 'None')})
    return [await i.generate_response("inst-1", ${JSON.stringify(history)}) for _ in range(2)]
print(json.dumps(asyncio.run(go())))`);
    expect(r.stderr).toBe('');
    const [first, second] = r.out as Array<[boolean, string, number, object]>;
    const direct = await simulateUserFor(TASK, user, settings, history.slice(1), 'inst-1/u1');
    expect(direct.kind).toBe('message');
    expect(first).toEqual([false, (direct as { text: string }).text, 0, {}]);
    expect(second[1]).toContain('inst-1/u2'); // the second future's turn is sampled apart from the first
    expect(user.calls.every((c) => !text(c).includes('SYSTEM-PROMPT'))).toBe(true);
  });

  it('end the future on [[TERMINATE CHAT]] (the token removed) and on a simulator failure (the marker)', async () => {
    const run = (answer: string) =>
      py(`
i = v.CollabLoopInteraction({})
print(json.dumps(asyncio.run(i.generate_response("inst-2", ${JSON.stringify([...PROMPT, m('assistant', answer)])}, **${JSON.stringify(KWARGS).replaceAll('null', 'None')}))))`);
    expect((await run('FINAL-ANSWER: 144.')).out).toEqual([true, 'thanks', 0, {}]);
    expect((await run('BROKEN reply')).out).toEqual([true, SIMULATOR_FAILED, 0, {}]);
  });
});

describe('rewards (score_futures → /score)', () => {
  const response = m('assistant', 'Which number do you mean?');
  const futureOf = (...after: ChatMessage[]) => [...PROMPT, response, ...after];
  it("equal the data loop's reward of the same futures; a future whose judge failed is left out, not scored 0", async () => {
    const futures = [
      futureOf(m('user', '12'), m('assistant', 'RIGHT-ANSWER: 144.')),
      futureOf(m('user', 'twelve'), m('assistant', 'I think \\boxed{145}.')),
      futureOf(m('user', 'UNREADABLE'), m('assistant', 'ok')),
    ];
    const r = await score(futures);
    expect(r.stderr).toBe('');
    const direct = await scorePlayedFutures(
      TASK,
      [...PROMPT.slice(1), response], // the judges never see the policy's system prompt, as in the data loop
      futures.map((f) => ({ messages: f.slice(PROMPT.length + 1), terminated: false })),
      settings,
      { task: TASK, judge, extractor, ...settings.judge, prompts: settings.prompts },
      'direct',
    );
    expect(direct.usedFutures).toBe(2);
    expect(r.out).toEqual({ score: direct.score, used: 2, missing: 1, per_metric: direct.perMetric });
    // accuracy 1 and 0 over the two usable futures: a failed judge scored 0 would have made it 1/3.
    expect(r.out.per_metric.accuracy).toBe(0.5);
    expect(judge.calls.some((c) => text(c).includes('SYSTEM-PROMPT'))).toBe(false);
  });

  it('have no score when no future could be scored (a failed simulation is never judged)', async () => {
    const judged = judge.calls.length;
    const r = await score([futureOf(m('user', SIMULATOR_FAILED)), futureOf(m('user', 'UNREADABLE'), m('assistant', 'x'))]);
    expect(r.out).toEqual({ score: null, used: 0, missing: 2, per_metric: {} });
    // Only the readable-simulation future reached the judges (its two metrics, each re-asked once).
    expect(judge.calls.length - judged).toBe(4);
  });

  it('refuse a row without what rebuilds the task, naming the field', async () => {
    const bad = { ...extra, interaction_kwargs: { name: 'collabllm', task_kind: 'math' } };
    const r = await py(`v.score_futures("collabllm", ${JSON.stringify([futureOf(m('user', 'x'))])}, "gt", ${JSON.stringify(bad)})`);
    expect(r.ok).toBe(false);
    expect(r.stderr).toMatch(
      /ValueError: verl_collab_loop: \/score rejected the request \(400\): \/score: field "interaction\.single_turn_prompt"/,
    );
  });
});

describe('CollabLoopRewardManager (registered with the STAND-IN verl registry)', () => {
  it("puts each reward on the response's last token; an unscored response gets its GRPO group's mean", async () => {
    const ok = [...PROMPT, m('assistant', 'asks'), m('user', '12'), m('assistant', 'RIGHT-ANSWER: 144.')];
    const unreadable = [...PROMPT, m('assistant', 'asks'), m('user', 'UNREADABLE'), m('assistant', 'x')];
    const batch = [
      { uid: 'a', futures: [ok, ok] },
      { uid: 'a', futures: [unreadable] },
      { uid: 'b', futures: [unreadable, unreadable] },
      { uid: 'b', futures: [] }, // the response hit the length limit: the agent loop played no future
    ];
    const r = await py(
      `
import numpy as np, torch
from verl.workers.reward_manager import get_reward_manager_cls
class Data: pass
d = Data()
d.batch = {"prompts": torch.zeros(4, 3), "responses": torch.zeros(4, 5), "attention_mask": torch.tensor([[1]*8, [1]*6 + [0]*2, [1]*8, [1]*4 + [0]*4])}
batch = ${JSON.stringify(batch)}
info = ${JSON.stringify(extra).replaceAll('null', 'None')}
d.non_tensor_batch = {
  "data_source": np.array(["collabllm"] * 4, dtype=object),
  "reward_model": np.array([{"ground_truth": "gt"}] * 4, dtype=object),
  "extra_info": np.array([info] * 4, dtype=object),
  "messages": np.array([{"messages": b["futures"]} for b in batch], dtype=object),
  "uid": np.array([b["uid"] for b in batch], dtype=object),
}
out = get_reward_manager_cls("collab_loop")(tokenizer=None, num_examine=0, compute_score=v.score_futures)(d, return_dict=True)
print(json.dumps({"rewards": out["reward_tensor"].tolist(), "extra": out["reward_extra_info"]}))`,
      { standInVerl: true },
    );
    expect(r.stderr).toContain('3 of 4 responses have no reward');
    const { rewards, extra: info } = r.out as { rewards: number[][]; extra: Record<string, unknown[]> };
    const okScore = (await score([ok.slice(0, 2).concat(ok.slice(2))])).out.score as number;
    // Row 0: its score at response token 5 (8 valid - 3 prompt); row 1 (no score): group a's mean, at token 3.
    expect(rewards[0]).toEqual([0, 0, 0, 0, okScore].map((x) => expect.closeTo(x, 6)));
    expect(rewards[1]).toEqual([0, 0, okScore, 0, 0].map((x) => expect.closeTo(x, 6)));
    // Group b has no scored response: 0 for both (row 3 had one valid response token).
    expect(rewards[2]).toEqual([0, 0, 0, 0, 0]);
    expect(rewards[3]).toEqual([0, 0, 0, 0, 0]);
    expect(info.collab_loop_scored).toEqual([true, false, false, false]);
    expect(info.collab_loop_missing_futures).toEqual([0, 1, 2, 0]);
  });
});
