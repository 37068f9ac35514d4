// activities/recipes/collabllm/collabllm_to_verl.py run for real (project .venv, pyarrow) on rows of the published
// collabllm-multiturn-* shape (the loop's own `rl` rows have it too): verl's RL rows as the seed's verl recipe
// (process_dataset.py) writes them plus what collab-loop's reward service rebuilds the task from, dedup by prompt,
// seeded split sizes, the SFT row per conversation, and one clear line for a bad row.
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { parseCollabTasks } from '../../../../../activities/recipes/collabllm/tasks';
import { VENV_PYTHON } from '../../../../helpers/tiny-model';
import { tmpDir } from '../../../../helpers/trainer-adapters';

describe('collabllm_to_verl.py', () => {
  const SCRIPT = path.join(PROJECT_ROOT, 'activities', 'recipes', 'collabllm', 'collabllm_to_verl.py');
  const root = tmpDir('collab-to-verl');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const u = (content: string) => ({ role: 'user', content });
  const a = (content: string) => ({ role: 'assistant', content });
  const GOAL = (c: number) => `goal of conversation ${c}`;
  const row = (conv: number, turn: number, prompt: object[], completion: string, score: number | null, extra: object = {}) => ({
    prompt,
    completion,
    conv_id: conv,
    turn_id: turn,
    score,
    single_turn_prompt: GOAL(conv),
    single_turn_completion: `answer ${conv}`,
    single_turn_metadata: { level: 'Level 5' },
    sessions: [[u('future')]],
    rewards: { MR: [score] },
    ...extra,
  });
  const A1 = [u('A open')];
  const A3 = [u('A open'), a('A t1 c1'), u('A more')];
  const B1 = [u('B open')];
  /** Published-shape rows: conversation 0 has two states with several candidates, conversation 1 one unscored one. */
  const ROWS = [
    row(0, 1, A1, 'A t1 c0', 0.2), // line 1: kept for the prompt A1
    row(0, 1, A1, 'A t1 c1', 0.9), // duplicate prompt: dropped from RL; highest score, but an earlier turn
    row(0, 3, A3, 'A t3 c0', 0.1), // line 3: kept for the prompt A3
    row(0, 3, A3, 'A t3 c1', 0.4), // the SFT row of conversation 0 (latest turn, highest score)
    row(0, 3, A3, 'A t3 c2', 0.4), // ties with line 4: the first wins
    row(1, 1, B1, 'B t1 c0', null), // line 6
    row(1, 1, B1, 'B t1 c1', -0.3), // scored beats unscored: the SFT row of conversation 1
    ...Array.from({ length: 8 }, (_, i) =>
      row(i + 2, 1, [u(`open ${i + 2}`)], `reply ${i + 2}`, 0.5, { single_turn_metadata: { task_id: `t${i + 2}` } }),
    ),
  ];
  const write = (name: string, rows: unknown[]) => {
    const file = path.join(root, name);
    writeFileSync(file, `${rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`);
    return file;
  };
  const convert = (inputs: string[], out: string, ...extra: string[]) =>
    execa(VENV_PYTHON, [SCRIPT, '--out-dir', out, '--task-kind', 'math', ...extra, ...inputs], { reject: false });
  // verl reads these with pandas; pyarrow's to_pylist gives the same values as plain lists and dicts.
  const readBack = async (out: string) => {
    const r = await execa(VENV_PYTHON, [
      '-c',
      `import json, sys, pyarrow.parquet as pq\nprint(json.dumps({n: pq.read_table(f"{sys.argv[1]}/{n}.parquet").to_pylist() for n in ("rl_train", "rl_validation", "sft_train", "sft_validation")}))`,
      out,
    ]);
    return JSON.parse(r.stdout) as Record<'rl_train' | 'rl_validation' | 'sft_train' | 'sft_validation', Array<Record<string, any>>>;
  };

  it('RL rows as process_dataset.py writes them, deduplicated by prompt, with what the reward service needs', async () => {
    const input = write('multiturn.jsonl', ROWS);
    const out = path.join(root, 'out');
    const r = await convert([input], out);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.replace('collab-loop-verl-data ', ''))).toEqual({
      input_rows: 15,
      rl_train: 9,
      rl_validation: 2, // 11 distinct prompts, ceil(10 %) validation
      sft_train: 9,
      sft_validation: 1, // 10 conversations
    });
    const d = await readBack(out);
    const rl = [...d.rl_train, ...d.rl_validation];
    expect(rl.map((x) => JSON.stringify(x.prompt)).sort()).toEqual(
      [A1, A3, B1, ...Array.from({ length: 8 }, (_, i) => [u(`open ${i + 2}`)])].map((p) => JSON.stringify(p)).sort(),
    );
    const first = rl.find((x) => x.extra_info.source === 'multiturn.jsonl:1')!;
    expect(first).toEqual({
      prompt: A1,
      raw_prompt: A1,
      ground_truth: 'answer 0',
      data_source: 'collabllm',
      agent_name: 'collabllm_agent',
      index: expect.stringMatching(/^[0-9a-f]{32}$/),
      reward_model: { style: 'rule', ground_truth: 'answer 0' },
      extra_info: {
        prompt: A1,
        index: first.index,
        interaction_kwargs: {
          name: 'collabllm',
          single_turn_prompt: GOAL(0),
          single_turn_completion: 'answer 0', // no task_desc: the service tells the simulator its own description of the kind
          task_kind: 'math',
          task_id: 'conv-0',
        },
        conv_id: '0',
        turn_id: 1,
        score: 0.2,
        completion: 'A t1 c0',
        single_turn_metadata: '{"level": "Level 5"}',
        source: 'multiturn.jsonl:1',
      },
    });
    expect(rl.map((x) => x.extra_info.source).sort()).toEqual(
      [
        'multiturn.jsonl:1',
        'multiturn.jsonl:3',
        'multiturn.jsonl:6',
        ...Array.from({ length: 8 }, (_, i) => `multiturn.jsonl:${i + 8}`),
      ].sort(),
    );
    // the loop's rows name their task in single_turn_metadata; an unscored row keeps a null score
    expect(rl.find((x) => x.extra_info.source === 'multiturn.jsonl:8')!.extra_info.interaction_kwargs.task_id).toBe('t2');
    expect(rl.find((x) => x.extra_info.source === 'multiturn.jsonl:6')!.extra_info.score).toBeNull();
  });

  it('SFT: per conversation the latest turn with the highest score (first on ties; scored beats unscored)', async () => {
    const out = path.join(root, 'out');
    const d = await readBack(out);
    const sft = [...d.sft_train, ...d.sft_validation].map((x) => x.prompt);
    expect(sft).toHaveLength(10);
    expect(Object.keys(d.sft_train[0])).toEqual(['prompt']);
    expect(sft).toContainEqual([...A3, a('A t3 c1')]);
    expect(sft).toContainEqual([...B1, a('B t1 c1')]);
    expect(sft.filter((p) => p[0].content === 'A open')).toHaveLength(1);
  });

  it('the split is seeded: the same seed writes the same files, another seed another split; a system prompt leads every prompt', async () => {
    const input = path.join(root, 'multiturn.jsonl');
    const again = path.join(root, 'again');
    expect((await convert([input], again)).exitCode).toBe(0);
    const [d1, d2] = [await readBack(path.join(root, 'out')), await readBack(again)];
    expect(d2).toEqual(d1);
    const other = path.join(root, 'other');
    expect((await convert([input], other, '--seed', '5')).exitCode).toBe(0);
    const d3 = await readBack(other);
    expect(d3.rl_validation.map((x) => x.index)).not.toEqual(d1.rl_validation.map((x) => x.index));
    expect(d3.rl_train.length + d3.rl_validation.length).toBe(11);

    const sys = path.join(root, 'system.txt');
    writeFileSync(sys, 'BE PROACTIVE\n');
    const withSystem = path.join(root, 'with-system');
    const r = await convert([input], withSystem, '--system-prompt-file', sys, '--task-desc', 'solving math problems');
    expect(r.exitCode, r.stderr).toBe(0);
    const d = await readBack(withSystem);
    for (const x of [...d.rl_train, ...d.rl_validation]) {
      expect(x.prompt[0]).toEqual({ role: 'system', content: 'BE PROACTIVE' });
      expect(x.extra_info.prompt).toEqual(x.prompt);
      expect(x.extra_info.interaction_kwargs.task_desc).toBe('solving math problems');
    }
    for (const x of d.sft_train) expect(x.prompt[0]).toEqual({ role: 'system', content: 'BE PROACTIVE' });
  });

  it('one row goes to train and validation; conversations of two files stay apart; code packages are checked', async () => {
    const one = write('one.jsonl', [ROWS[0]]);
    const out = path.join(root, 'one');
    const r = await convert([one], out);
    expect(JSON.parse(r.stdout.replace('collab-loop-verl-data ', ''))).toMatchObject({
      rl_train: 1,
      rl_validation: 1,
      sft_train: 1,
      sft_validation: 1,
    });

    const other = write('other.jsonl', [row(0, 1, [u('X open')], 'X reply', 1, { single_turn_prompt: 'another goal' })]);
    const both = path.join(root, 'both');
    const r2 = await convert([one, other], both);
    expect(r2.exitCode, r2.stderr).toBe(0);
    const d = await readBack(both);
    expect([...d.sft_train, ...d.sft_validation]).toHaveLength(2); // conv_id 0 in each file: two conversations
    expect([...d.rl_train, ...d.rl_validation].map((x) => x.extra_info.interaction_kwargs.task_id).sort()).toEqual([
      'f0/conv-0',
      'f1/conv-0',
    ]);

    const pkg = {
      dataset: 'bcb',
      task_id: 'BigCodeBench/1',
      entry_point: 'task_func',
      test: 'class TestCases: pass',
      answer: 'def task_func(): pass',
    };
    const code = write('code.jsonl', [row(0, 1, A1, 'c', 1, { single_turn_completion: JSON.stringify(pkg) })]);
    const ok = await execa(VENV_PYTHON, [SCRIPT, '--out-dir', path.join(root, 'code'), '--task-kind', 'code', code], { reject: false });
    expect(ok.exitCode, ok.stderr).toBe(0);
    const badCode = write('bad-code.jsonl', [
      row(0, 1, A1, 'c', 1, { single_turn_completion: JSON.stringify({ ...pkg, entry_point: '' }) }),
    ]);
    const bad = await execa(VENV_PYTHON, [SCRIPT, '--out-dir', path.join(root, 'bad-code'), '--task-kind', 'code', badCode], {
      reject: false,
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toBe(
      `collabllm_to_verl.py: ${badCode} line 1: field "single_turn_completion.entry_point" must be a non-empty string`,
    );
  });

  it('train and validation files share one schema, even when a field is null in one split only', async () => {
    const mixed = write('mixed.jsonl', [row(0, 1, A1, 'a', null), row(1, 1, B1, 'b', 0.5, { single_turn_metadata: null })]);
    const out = path.join(root, 'mixed');
    expect((await convert([mixed], out)).exitCode).toBe(0);
    const r = await execa(VENV_PYTHON, [
      '-c',
      'import sys, pyarrow.parquet as pq\nfor k in ("rl", "sft"):\n    print(pq.read_schema(f"{sys.argv[1]}/{k}_train.parquet").equals(pq.read_schema(f"{sys.argv[1]}/{k}_validation.parquet")))\nprint(pq.read_schema(f"{sys.argv[1]}/rl_train.parquet").field("extra_info").type.field("score").type)',
      out,
    ]);
    expect(r.stdout.trim().split('\n')).toEqual(['True', 'True', 'double']);
  });

  it('abg-coqa rows (label as the ground truth) convert, and the reward service reads their task back', async () => {
    const rows = [0, 1].map((c) =>
      row(c, 1, [u(`story question ${c}`)], `reply ${c}`, 0.5, { single_turn_completion: ['ambiguous', 'non_ambiguous'][c] }),
    );
    const out = path.join(root, 'abg');
    const r = await execa(VENV_PYTHON, [SCRIPT, '--out-dir', out, '--task-kind', 'abg-coqa', write('abg.jsonl', rows)], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const d = await readBack(out);
    const kwargs = [...d.rl_train, ...d.rl_validation].map((x) => x.extra_info.interaction_kwargs);
    expect(kwargs.map((k) => [k.task_kind, k.single_turn_completion]).sort()).toEqual([
      ['abg-coqa', 'ambiguous'],
      ['abg-coqa', 'non_ambiguous'],
    ]);
    // What reward-service.ts does with interaction_kwargs: the seed's single-turn row shape, read as the kind.
    const tasks = kwargs.map((k) =>
      parseCollabTasks(
        JSON.stringify({ single_turn_prompt: k.single_turn_prompt, single_turn_completion: k.single_turn_completion }),
        'kwargs',
        k.task_kind,
      ),
    );
    expect(tasks.map(([t]) => [t.kind, t.answer]).sort()).toEqual([
      ['abg-coqa', 'ambiguous'],
      ['abg-coqa', 'non_ambiguous'],
    ]);
  });

  it('a bad row → exit 2 with one line naming the file, the line and the field; nothing is written', async () => {
    const cases: Array<[unknown, string]> = [
      [
        { ...ROWS[0], prompt: [u('q'), a('already answered')] },
        'field "prompt" must end with a user message (the turn to answer), not "assistant"',
      ],
      [{ ...ROWS[0], prompt: [{ role: 'tool', content: 'x' }] }, 'field "prompt[0].role" must be one of system, user, assistant'],
      [{ ...ROWS[0], prompt: [] }, 'field "prompt" must be a non-empty list of messages'],
      [{ ...ROWS[0], conv_id: undefined }, 'field "conv_id" must be an integer or a non-empty string'],
      [{ ...ROWS[0], turn_id: '1' }, 'field "turn_id" must be a non-negative integer'],
      [{ ...ROWS[0], score: 'high' }, 'field "score" must be a finite number or null'],
      [{ ...ROWS[0], completion: '' }, 'field "completion" must be a non-empty string'],
      [{ ...ROWS[0], single_turn_completion: null }, 'field "single_turn_completion" must be a non-empty string'],
      [
        { ...ROWS[0], single_turn_prompt: 'a different goal' },
        'field "single_turn_prompt" differs from line 1, which has the same conv_id',
      ],
      ['{"prompt": [', 'not valid JSON (Expecting value)'],
      ['[1, 2]', 'must be a JSON object'],
    ];
    for (const [i, [bad, message]] of cases.entries()) {
      const file = write(`bad-${i}.jsonl`, [ROWS[0], bad]);
      const out = path.join(root, `bad-out-${i}`);
      const r = await convert([file], out);
      expect(r.exitCode, `${message}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim()).toBe(`collabllm_to_verl.py: ${file} line 2: ${message}`);
      expect(existsSync(path.join(out, 'rl_train.parquet'))).toBe(false);
    }
    const missing = await convert([path.join(root, 'nope.jsonl')], path.join(root, 'x'));
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe(`collabllm_to_verl.py: ${path.join(root, 'nope.jsonl')}: no such file`);
  });
});
