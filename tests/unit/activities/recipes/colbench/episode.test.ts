import { describe, expect, it } from 'vitest';
import {
  ANSWER_MARKER,
  CODE_HUMAN_SYSTEM_PROMPT,
  COLBENCH_HTML_PROMPTS,
  DEFAULT_COLBENCH_PROMPTS,
  HTML_HUMAN_SYSTEM_PROMPT,
  isRejectedRequest,
  NO_DRAFT_NOTE,
  NO_RESPONSE,
  runColbenchEpisode,
  HTML_AGENT_SEED_SYSTEM_PROMPT,
  HTML_AGENT_SYSTEM_PROMPT,
  type ColbenchCodeTask,
  type ColbenchCompat,
  type ColbenchHtmlTask,
} from '../../../../../activities/recipes/colbench';
import { recipePrompts } from '../../../../../activities/recipes/prompt-file';
import { colbenchCodeRecipeSchema } from '../../../../../activities/recipes/colbench/config';
import { colbenchDecoding } from '../../../../../activities/recipes/colbench/decoding';
import {
  badRequest,
  codeDecoding,
  fakeRender,
  humanDecoding,
  memoryImages,
  rateLimited,
  scriptedChat,
  unauthorized,
} from '../../../../helpers/colbench';

const task: ColbenchCodeTask = {
  id: 'fee',
  kind: 'code',
  problem: 'I need a fee function for my club.',
  reference: 'def fee(age):\n    return 45 if age < 18 else 120\n',
  testCases: { a: 'fee(10)', b: 'fee(30)' },
};
const page: ColbenchHtmlTask = {
  id: 'page',
  kind: 'html',
  problem: 'A bakery page.',
  reference: '<html><body><h1>Bakery</h1></body></html>',
};
const code = (o: Partial<Parameters<typeof runColbenchEpisode>[0]> & Pick<Parameters<typeof runColbenchEpisode>[0], 'agent' | 'human'>) =>
  runColbenchEpisode({
    task,
    kind: 'code',
    prompts: DEFAULT_COLBENCH_PROMPTS.code,
    agentDecoding: codeDecoding,
    humanDecoding,
    sampleIndex: 0,
    seed: 7,
    ...o,
  });

describe('ColBench episode (code)', () => {
  it('ends at a marker in turn 1 without calling the human; the answer is the text after the marker', async () => {
    const agent = scriptedChat([`Easy.\n${ANSWER_MARKER}\ndef fee(age):\n    return 1\n`]);
    const human = scriptedChat([]);
    const r = await code({ agent, human });
    expect(human.calls).toHaveLength(0);
    expect(r).toMatchObject({
      taskId: 'fee',
      kind: 'code',
      answer: 'def fee(age):\n    return 1',
      answeredWithMarker: true,
      agentTurns: 1,
      humanNoResponse: 0,
    });
    expect(r.dialogue).toHaveLength(1);
  });

  it('caps at 10 agent turns: the 10th message is the answer, the human is called 9 times', async () => {
    const agent = scriptedChat(Array.from({ length: 10 }, (_, i) => `Question ${i + 1}?`));
    const human = scriptedChat(Array.from({ length: 9 }, (_, i) => `Answer ${i + 1}. Done.`));
    const r = await code({ agent, human });
    expect(agent.calls).toHaveLength(10);
    expect(human.calls).toHaveLength(9);
    expect(r).toMatchObject({ answer: 'Question 10?', answeredWithMarker: false, agentTurns: 10, maxTurns: 10 });
    expect(r.dialogue.map((t) => t.role)).toEqual([...Array(9).fill(['agent', 'human']).flat(), 'agent']);
    // The agent saw the dialogue so far: system, problem, then alternating turns.
    expect(agent.calls[2].messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(agent.calls[2].messages[1]).toEqual({ role: 'user', content: task.problem });
  });

  it('honours a smaller maxTurns', async () => {
    const r = await code({ agent: scriptedChat(['q1?', 'q2?', 'final words']), human: scriptedChat(['a. b.', 'c. d.']), maxTurns: 3 });
    expect(r).toMatchObject({ agentTurns: 3, answer: 'final words', answeredWithMarker: false });
  });

  it('truncates human replies to 400 characters (code points)', async () => {
    const long = '😀'.repeat(500);
    const r = await code({ agent: scriptedChat(['q?', `${ANSWER_MARKER} def fee(age): return 0`]), human: scriptedChat([long]) });
    expect(Array.from(r.dialogue[1].content)).toHaveLength(400);
  });

  it('gives the human the hidden reference and the agent never', async () => {
    const agent = scriptedChat(['What about kids?', `${ANSWER_MARKER}\n${task.reference}`]);
    const human = scriptedChat(['Kids pay less. That is all.']);
    await code({ agent, human });
    expect(human.calls[0].messages[0]).toEqual({ role: 'system', content: CODE_HUMAN_SYSTEM_PROMPT });
    expect(JSON.stringify(human.calls[0].messages)).toContain(JSON.stringify(task.reference).slice(1, -1));
    for (const call of agent.calls) expect(JSON.stringify(call.messages)).not.toContain('return 45 if age');
  });

  it('keeps the visible text after OUTPUT: and the raw completion', async () => {
    const r = await code({
      agent: scriptedChat([`I think I know.\nOUTPUT: ${ANSWER_MARKER}\ndef fee(age):\n    return 120`]),
      human: scriptedChat([]),
    });
    expect(r.dialogue[0]).toEqual({
      role: 'agent',
      content: `${ANSWER_MARKER}\ndef fee(age):\n    return 120`,
      raw: `I think I know.\nOUTPUT: ${ANSWER_MARKER}\ndef fee(age):\n    return 120`,
    });
    expect(r.answer).toBe('def fee(age):\n    return 120');
  });

  it('turns a rejected human request (HTTP 400) into "No response." and counts it', async () => {
    const r = await code({
      agent: scriptedChat(['q1?', 'q2?', `${ANSWER_MARKER} x`]),
      human: scriptedChat([badRequest(), 'Fine. Thanks.']),
    });
    expect(r.dialogue[1]).toEqual({ role: 'human', content: NO_RESPONSE, noResponse: true });
    expect(r.dialogue[3]).toEqual({ role: 'human', content: 'Fine. Thanks.' });
    expect(r.humanNoResponse).toBe(1);
  });

  it('lets retryable and configuration errors propagate (Temporal retries; a bad key fails loudly)', async () => {
    await expect(code({ agent: scriptedChat(['q?']), human: scriptedChat([rateLimited()]) })).rejects.toThrow('HTTP 429');
    await expect(code({ agent: scriptedChat(['q?']), human: scriptedChat([unauthorized()]) })).rejects.toThrow('HTTP 401');
    await expect(code({ agent: scriptedChat([[]]), human: scriptedChat([]) })).rejects.toThrow(
      'fee sample 0 turn 1: the agent returned no text',
    );
  });

  it('recognises rejected requests structurally, as activities/llm/errors.ts classifies them', () => {
    expect(isRejectedRequest(badRequest())).toBe(true);
    expect(isRejectedRequest({ type: 'LlmHttp413', nonRetryable: true })).toBe(true);
    expect(isRejectedRequest({ type: 'LlmHttp400', nonRetryable: false })).toBe(false);
    expect(isRejectedRequest(rateLimited())).toBe(false);
    expect(isRejectedRequest(unauthorized())).toBe(false);
    expect(isRejectedRequest(new Error('x'))).toBe(false);
    expect(isRejectedRequest(undefined)).toBe(false);
  });

  it('seeds every call from (seed, task, sample, turn) and gives each call its own sampleKey', async () => {
    const run = async (seed: number, sampleIndex: number) => {
      const agent = scriptedChat(['q1?', 'q2?', `${ANSWER_MARKER} x`]);
      const human = scriptedChat(['a. b.', 'c. d.']);
      await code({ agent, human, seed, sampleIndex, agentDecoding: { ...codeDecoding, seed: 999 } });
      return [...agent.calls, ...human.calls].map((c) => ({ seed: c.decoding.seed, key: c.sampleKey }));
    };
    const a = await run(7, 0);
    expect(await run(7, 0)).toEqual(a);
    expect(new Set(a.map((c) => c.key)).size).toBe(a.length);
    expect(new Set(a.map((c) => c.seed)).size).toBe(a.length);
    expect(a.map((c) => c.seed)).not.toContain(999);
    expect(a.map((c) => c.key)).toEqual(['s0/t1/agent', 's0/t2/agent', 's0/t3/agent', 's0/t1/human', 's0/t2/human']);
    const b = await run(7, 1);
    expect(b.map((c) => c.seed).filter((s) => a.map((x) => x.seed).includes(s))).toEqual([]);
    expect((await run(8, 0)).map((c) => c.seed)).not.toEqual(a.map((c) => c.seed));
  });

  it('returns a small JSON-serialisable record with token usage per role', async () => {
    const r = await code({ agent: scriptedChat(['q?', `${ANSWER_MARKER} x`]), human: scriptedChat(['a. b.']) });
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    expect(r.usage).toEqual({ agent: { promptTokens: 20, completionTokens: 10 }, human: { promptTokens: 10, completionTokens: 5 } });
    expect(r.problem).toBe(task.problem);
  });

  it('refuses a task of the other kind', async () => {
    await expect(
      runColbenchEpisode({
        task: page,
        kind: 'code',
        prompts: DEFAULT_COLBENCH_PROMPTS.code,
        agent: scriptedChat([]),
        human: scriptedChat([]),
        agentDecoding: codeDecoding,
        humanDecoding,
        sampleIndex: 0,
        seed: 0,
      }),
    ).rejects.toThrow('the task is a html task');
  });
});

describe('ColBench episode (html)', () => {
  const html = (agentReplies: Array<string | Error>, humanReplies: Array<string | Error>, compat?: ColbenchCompat) => {
    const images = memoryImages();
    const rendered: string[] = [];
    const render = async (h: string) => {
      rendered.push(h);
      return fakeRender(h);
    };
    const agent = scriptedChat(agentReplies);
    const human = scriptedChat(humanReplies);
    const run = runColbenchEpisode({
      task: page,
      kind: 'html',
      // The recipe's texts as the runtime merges them: the defaults of `compat`.
      prompts: recipePrompts(COLBENCH_HTML_PROMPTS, { name: 'colbench-html', compat }),
      agent,
      human,
      render,
      saveImage: images.saveImage,
      agentDecoding: codeDecoding,
      humanDecoding,
      sampleIndex: 2,
      seed: 1,
      compat,
    });
    return { run, images, rendered, agent, human };
  };

  it.each([
    [undefined, HTML_AGENT_SYSTEM_PROMPT],
    ['seed' as const, HTML_AGENT_SEED_SYSTEM_PROMPT],
  ])('gives the agent the system prompt of compat %s, and records it', async (compat, system) => {
    const { run, agent } = html([`OUTPUT: ${ANSWER_MARKER} <html><body>x</body></html>`], [], compat);
    const r = await run;
    expect(agent.calls[0].messages[0]).toEqual({ role: 'system', content: system });
    expect(r.system).toBe(system);
  });

  it("renders one page per turn, shows the human this turn's render and the truth, keeps the latest render as the answer", async () => {
    const { run, images, rendered, human } = html(
      [
        'Plan.\nOUTPUT: First draft <html><body><h1>Bakry</h1></body></html>',
        'OUTPUT: Which colours do you like?',
        `Fix.\nOUTPUT: ${ANSWER_MARKER} <html><body><h1>Bakery</h1></body></html>`,
      ],
      ['The heading is misspelled. Fix it.', 'Brown. Warm tones.'],
    );
    const r = await run;
    expect(rendered).toEqual([page.reference, '<html><body><h1>Bakry</h1></body></html>', '<html><body><h1>Bakery</h1></body></html>']);
    expect(r.dialogue[0]).toMatchObject({
      content: 'First draft <html><body><h1>Bakry</h1></body></html>',
      image: expect.stringMatching(/^mem:\/\//),
    });
    expect(r.dialogue[2].image).toBeUndefined();
    expect(r.answer).toBe(r.dialogue[4].image);
    expect(images.store.get(r.answer!)).toEqual(await fakeRender(page.reference));
    expect(r.answeredWithMarker).toBe(true);
    // Human call 1: agent image + truth image. Call 2 (no page this turn): a note + truth image.
    const parts = (i: number) => human.calls[i].messages[1].content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(human.calls[0].messages[0].content).toBe(HTML_HUMAN_SYSTEM_PROMPT);
    expect(parts(0).filter((p) => p.type === 'image_url')).toHaveLength(2);
    expect(parts(1).filter((p) => p.type === 'image_url')).toHaveLength(1);
    expect(parts(1).some((p) => p.text === NO_DRAFT_NOTE)).toBe(true);
    // No PNG bytes in the record.
    expect(JSON.stringify(r)).not.toContain('base64');
  });

  it('falls back to <body>, truncates the human at 1000 characters, and has no answer without any page', async () => {
    const { run } = html(
      ['OUTPUT: <body><p>draft</p></body>', 'OUTPUT: no page here', `OUTPUT: ${ANSWER_MARKER} still nothing`],
      ['x'.repeat(1500), 'ok. ok.'],
    );
    const r = await run;
    expect(r.dialogue[0].image).toBeDefined();
    expect(r.dialogue[1].content).toHaveLength(1000);
    expect(r.answer).toBe(r.dialogue[0].image);
    const none = await html([`OUTPUT: ${ANSWER_MARKER} I give up`], []).run;
    expect(none.answer).toBeNull();
  });

  it('needs render and saveImage', async () => {
    await expect(
      runColbenchEpisode({
        task: page,
        kind: 'html',
        prompts: DEFAULT_COLBENCH_PROMPTS.html,
        agent: scriptedChat([]),
        human: scriptedChat([]),
        agentDecoding: codeDecoding,
        humanDecoding,
        sampleIndex: 0,
        seed: 0,
      }),
    ).rejects.toThrow('html episodes need render and saveImage');
  });
});

describe('ColBench decoding', () => {
  const section = (o: Record<string, unknown>) => colbenchCodeRecipeSchema.parse({ name: 'colbench-code', evalTasks: 'x.jsonl', ...o });

  it("defaults by compat: greedy evaluation and a 512-token human (fixed), the seed's temperature 1 and 4096 tokens (seed)", () => {
    expect(colbenchDecoding(section({}), 'eval')).toEqual({
      agent: { temperature: 0, topP: 1, maxTokens: 1024 },
      human: { temperature: 0, maxTokens: 512 },
    });
    expect(colbenchDecoding(section({ compat: 'seed' }), 'eval')).toEqual({
      agent: { temperature: 1, topP: 1, maxTokens: 1024 },
      human: { temperature: 0, maxTokens: 4096 },
    });
    // Training samples at trainTemperature in both modes.
    expect(colbenchDecoding(section({ compat: 'seed' }), 'train').agent.temperature).toBe(1);
    expect(colbenchDecoding(section({ trainTemperature: 0.7 }), 'train').agent.temperature).toBe(0.7);
  });

  it('an explicit field wins over the compat default', () => {
    const d = colbenchDecoding(section({ compat: 'seed', evalTemperature: 0, human: { maxTokens: 300 } }), 'eval');
    expect([d.agent.temperature, d.human.maxTokens]).toEqual([0, 300]);
  });
});
