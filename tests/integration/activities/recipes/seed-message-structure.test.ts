// `compat: seed` with a prompts file of the seed's shape sends requests with the seed's message structure: which
// roles, in which order, which message carries which text. The configs and prompts files are fixtures
// (tests/fixtures/prompts/, our own texts); the recipes run as the shard activity runs them, through the real
// client over HTTP to local OpenAI-compatible servers that record every request and answer from a script.
// The seed's structure, from its code:
//   CoRal  collaborative-reasoner utils/chat_utils.py apply_chat_template (system, then turns alternating so the
//          partner's turn is last, the scripted opening included); evaluators/extraction_evaluators.py (system, one
//          user message: the task and the one reply).
//   ColBench  sweet_rl sweet_rl/models/vllm_agent.py (system, the problem as the first user message, then the
//          dialogue); sweet_rl/environments/human_interaction_env.py (system, one user message: the prompt file
//          filled with problem_description, hidden_information, dialogue_history); human_design_interaction_env.py
//          (no system message: one user message, the prompt file's text first, then the two screenshots).
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../configs/load';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import { externalEndpointRef } from '../../../../contracts/endpoint';
import { roleChats, roleEndpoints } from '../../../../activities/llm/roles';
import { recipeOf, recipeRuntime } from '../../../../activities/recipes/runtime';
import {
  startOpenAICompatibleServer,
  type PolicyRequest,
  type RunningServer,
} from '../../../../activities/serving/openai-compatible-server';
import { loadCoralTasks, optionLines } from '../../../../activities/recipes/coral';
import { loadColbenchTasks } from '../../../../activities/recipes/colbench';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { tempStateDir } from '../../../helpers/config';
import { fakeRender, memoryImages } from '../../../helpers/colbench';

const FIXTURES = path.join(PROJECT_ROOT, 'tests/fixtures/prompts');
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A local endpoint for one model: records each request, answers `reply(request)` (n texts when asked for n). */
async function recordingEndpoint(model: string, reply: (req: PolicyRequest, i: number) => string | string[]) {
  const requests: PolicyRequest[] = [];
  const server = await startOpenAICompatibleServer({
    modelName: model,
    policy: (req) => {
      requests.push(req);
      const out = reply(req, requests.length - 1);
      const texts = Array.isArray(out) ? out : Array(req.n).fill(out);
      return { texts, promptTokens: 1, completionTokens: texts.map(() => 1) };
    },
  });
  servers.push(server);
  return { server, requests };
}

/** The fixture config with its endpoints at the recording servers, and a chat per role as a shard builds them. */
async function loadWith(file: string, endpoints: Record<string, RunningServer>, overrides: string[] = []) {
  const stateDir = tempStateDir('seed-structure-');
  const { config } = loadConfig(path.join(FIXTURES, file), {
    overrides: [
      `stateDir=${stateDir}`,
      ...Object.entries(endpoints).map(([role, s]) =>
        role === 'agent' ? `server.endpoint.baseUrl=${s.url}/v1` : `models.${role}.endpoint.baseUrl=${s.url}/v1`,
      ),
      ...overrides,
    ],
  });
  if (config.server.kind !== 'external') throw new Error('the fixtures use an external server');
  const cache = requestCacheFor({ stateDir });
  const chats = roleChats(
    roleEndpoints(config, recipeOf(config).roles(config.recipe), externalEndpointRef(config.server.endpoint)),
    (endpoint) => createChat({ endpoint, cache, llm: config.llm, usage: newUsageCounter() }),
  );
  return { config, chats, runtime: await recipeRuntime(config) };
}

const roles = (req: PolicyRequest) => req.messages.map((m) => m.role);
const text = (req: PolicyRequest, i: number) => req.messages[i].content as string;

describe('CoRal, compat: seed, with a prompts file of the seed shape', () => {
  const task = loadCoralTasks(path.join(PROJECT_ROOT, 'configs/tasks/coral-demo/mmlu_pro.jsonl'), 'mmlu_pro')[0];
  // The fixture's texts, filled as the seed fills them.
  const system = [
    'Two of you are solving tricky multiple-choice reasoning questions together.',
    "Question each other's steps and agree only when convinced.",
    'Close with "The correct answer is (X)".',
  ].join('\n');
  const opening = `I am stuck on this problem: "${task.question}"\nThese are the choices:\n${optionLines(task.options!)}`;
  const extraction = (reply: string) =>
    `**Problem:**\n${task.question}\n\n**Choices:**\n${optionLines(task.options!)}\n\n**Reply to label:**\n\n${reply}\n\n**Give the option as (X), or say "not sure yet".**`;

  async function converse(overrides: string[] = []) {
    const agent = await recordingEndpoint('agent-model', (_req, i) => `Step ${i + 1}. The correct answer is (B).`);
    const extractor = await recordingEndpoint('extractor-model', () => '(B)');
    const { runtime, chats } = await loadWith('coral-seed.yaml', { agent: agent.server, extractor: extractor.server }, overrides);
    const record = await runtime.runTask({ split: 'eval', taskIndex: 0, sampleIndex: 0, chats, services: {} });
    return { agent: agent.requests, extractor: extractor.requests, record };
  }

  it('the agents get the system prompt, then the turns alternating with the partner last: the opening as the student asked it', async () => {
    const { agent, record } = await converse();
    expect(record).toMatchObject({ agreed: true, system });
    expect(agent).toHaveLength(2);
    // Turn 1, the teacher: the opening request is its partner's, so a user message.
    expect(agent[0].messages).toEqual([
      { role: 'system', content: system },
      { role: 'user', content: opening },
    ]);
    // Turn 2, the student: its own opening is an assistant message straight after the system prompt, no preamble.
    expect(agent[1].messages).toEqual([
      { role: 'system', content: system },
      { role: 'assistant', content: opening },
      { role: 'user', content: 'Step 1. The correct answer is (B).' },
    ]);
  });

  it('the extractor gets its system prompt and one user message: the task and the one reply, never the conversation', async () => {
    const { extractor } = await converse();
    expect(extractor.map(roles)).toEqual([
      ['system', 'user'],
      ['system', 'user'],
    ]);
    expect(extractor.map((r) => text(r, 0))).toEqual(Array(2).fill('You label which option a reply settles on, or answer "not sure yet".'));
    expect(extractor.map((r) => text(r, 1))).toEqual([
      extraction('Step 1. The correct answer is (B).'),
      extraction('Step 2. The correct answer is (B).'),
    ]);
    expect(extractor.every((r) => r.temperature === 0 && r.maxTokens === 32)).toBe(true);
  });

  it("compat: fixed with the same file puts the file's preamble before the student's view", async () => {
    const { agent } = await converse(['recipe.compat=fixed']);
    expect(roles(agent[1])).toEqual(['system', 'user', 'assistant', 'user']);
    expect(text(agent[1], 1)).toBe('Let us work through this together.');
  });
});

describe('ColBench code, compat: seed, with a prompts file of the seed shape', () => {
  const task = loadColbenchTasks(path.join(PROJECT_ROOT, 'configs/tasks/colbench/backend.jsonl'), 'code')[0];
  const agentSystem = [
    'You are pairing with a user on one Python function. Ask short questions until you know their exact rules,',
    'then reply with "I WANT TO ANSWER:" followed by the function alone.',
    '', // {dialogue_history}: named by the seed's agent prompt, never filled
  ].join('\n');
  const ASK = 'Is the fee rounded?';
  const ANSWER = 'I WANT TO ANSWER:\ndef membership_fee(age, years_member, is_racing):\n    return 120';

  async function episode(split: 'eval' | 'train') {
    const agent = await recordingEndpoint('agent-model', (req) => (req.n > 1 ? [ASK, ANSWER] : req.messages.length === 2 ? ASK : ANSWER));
    const human = await recordingEndpoint('human-model', () => 'Yes, to two decimals. Nothing else changes it.');
    const critic = await recordingEndpoint('critic-model', () => 'Candidate 1: 7\nCandidate 2: 2');
    const run = await loadWith('colbench-code-seed.yaml', { agent: agent.server, human: human.server, critic: critic.server });
    const record = await run.runtime.runTask({ split, taskIndex: 0, sampleIndex: 0, chats: run.chats, services: {} });
    return { ...run, record, agent: agent.requests, human: human.requests, critic: critic.requests };
  }

  it("the agent gets its system prompt and the problem as the first user message, sampled at the seed's evaluation temperature", async () => {
    const { agent } = await episode('eval');
    expect(agent).toHaveLength(2);
    expect(agent[0].messages).toEqual([
      { role: 'system', content: agentSystem },
      { role: 'user', content: task.problem },
    ]);
    expect(agent[1].messages).toEqual([
      { role: 'system', content: agentSystem },
      { role: 'user', content: task.problem },
      { role: 'assistant', content: ASK },
      { role: 'user', content: 'Yes, to two decimals. Nothing else changes it.' },
    ]);
    // The seed evaluates at its sampling temperature 1 (sweet_rl scripts/simulate_interactions.py), 1024 tokens.
    expect(agent.map((r) => [r.temperature, r.maxTokens])).toEqual(Array(2).fill([1, 1024]));
  });

  it('the human gets its system prompt and one user message: the prompt filled with the problem, the reference and the dialogue', async () => {
    const { human } = await episode('eval');
    expect(human).toHaveLength(1);
    expect(human[0].messages).toEqual([
      { role: 'system', content: 'You answer as the person who needs the function.' },
      {
        role: 'user',
        content: [
          `You asked an assistant for this: ${task.problem}`,
          'The function you really need (never show it):',
          task.reference,
          'What has been said so far:',
          `user:${task.problem}\n\n\n\nassistant:${ASK}\n\n\n\nagent:`,
          'Answer its last message in two sentences.',
        ].join('\n'),
      },
    ]);
    expect([human[0].temperature, human[0].maxTokens]).toEqual([0, 4096]);
  });

  it('the critic gets its system prompt and one user message: the state, the reference and the numbered candidates', async () => {
    const { runtime, chats, record, critic } = await episode('train');
    const data = await runtime.buildDataWithModels!([record], chats);
    expect(data.counts.turn_states).toBe(2);
    expect(critic).toHaveLength(2);
    expect(critic.map(roles)).toEqual(Array(2).fill(['system', 'user']));
    expect(critic.map((r) => text(r, 0))).toEqual(Array(2).fill('You rank possible next messages of an assistant.'));
    // The two states are ranked concurrently: the first turn's request is the one with no dialogue yet.
    const request = critic.map((r) => text(r, 1)).find((t) => t.includes('Dialogue: (nothing yet)'))!;
    expect(request.startsWith(`Goal: ${task.problem}\nHidden solution: ${task.reference}\nDialogue: (nothing yet)\nOptions (2):\n`)).toBe(
      true,
    );
    expect(request).toMatch(/### Candidate 1\n[\s\S]*### Candidate 2\n/);
    expect(request.endsWith('Score each as "Candidate <number>: <score>".')).toBe(true);
  });
});

describe('ColBench html, compat: seed, with a prompts file', () => {
  it("the human gets no system message: one user message, the file's instructions first, then the two screenshots", async () => {
    const pages = [
      'OUTPUT: Which colours do you like?',
      'OUTPUT: <html><body><h1>Draft</h1></body></html>',
      'OUTPUT: I WANT TO ANSWER: <html><body><h1>Final</h1></body></html>',
    ];
    const agent = await recordingEndpoint('agent-model', (_req, i) => pages[i]);
    const human = await recordingEndpoint('human-model', () => 'Make the heading larger. Use warmer colours.');
    const { runtime, chats } = await loadWith('colbench-html-seed.yaml', { agent: agent.server, human: human.server });
    const images = memoryImages();
    await runtime.runTask({
      split: 'eval',
      taskIndex: 0,
      sampleIndex: 0,
      chats,
      services: { render: fakeRender, saveImage: images.saveImage },
    });
    const parts = (req: PolicyRequest) =>
      (req.messages[0].content as Array<{ type: string; text?: string }>).map((p) => (p.type === 'text' ? p.text : p.type));
    expect(human.requests.map(roles)).toEqual([['user'], ['user']]);
    const instructions = 'You are the client. Compare the two screenshots and say what to change.';
    // Turn 1 showed no page; turn 2 did.
    expect(parts(human.requests[0])).toEqual([
      instructions,
      'The designer showed no page this time.',
      'This is the page you have in mind.',
      'image_url',
    ]);
    expect(parts(human.requests[1])).toEqual([
      instructions,
      "This is the designer's latest page.",
      'image_url',
      'This is the page you have in mind.',
      'image_url',
    ]);
  });
});
