// TOA task files: our shapes, the seed's WMT rows and the published prompt sets (AlpacaEval, UltraFeedback prompts,
// Arena-Hard questions), for both kinds; one TaskFileError naming file, line and field for each bad field.
import { describe, expect, it } from 'vitest';
import { TaskFileError as SharedTaskFileError } from '../../../../../activities/recipes/task-file';
import {
  loadToaTasks,
  parseToaTasks,
  readToaSplit,
  TaskFileError,
  TOA_TASK_KINDS,
  type ToaTaskKind,
} from '../../../../../activities/recipes/toa/tasks';

const row = (o: Record<string, unknown>) => JSON.stringify(o);
const ours = (o: Record<string, unknown> = {}) => row({ id: 't1', instruction: 'Q', ...o });
const oursMt = (o: Record<string, unknown> = {}) => ours({ src: 'Guten Morgen.', ref: 'Good morning.', src_lang: 'de', ...o });
/** As in the seed's data/wmt22_test files. */
const wmt = (o: Record<string, unknown> = {}) =>
  row({
    id: 219,
    instruction: 'Translate into English: "Oder ist sie ganz aus dem Sortiment genommen?"',
    en: 'Or has it been taken out of the inventory entirely?',
    de: 'Oder ist sie ganz aus dem Sortiment genommen?',
    dataset: 'WMT22-Test_de_en',
    ...o,
  });
/** tatsu-lab/alpaca_eval alpaca_eval.json rows: no id. */
const alpaca = (o: Record<string, unknown> = {}) =>
  row({ instruction: 'What is the capital of Australia?', output: 'Canberra.', generator: 'gpt4', dataset: 'oasst', ...o });
/** princeton-nlp/llama3-ultrafeedback-armorm rows. */
const ultra = (o: Record<string, unknown> = {}) =>
  row({
    prompt_id: '4f2a9c',
    prompt: 'Explain recursion with an example.',
    all_generated_responses: ['a', 'b'],
    all_rm_scores: [0.1, 0.2],
    chosen: [{ role: 'user', content: 'Explain recursion with an example.' }],
    rejected: [{ role: 'user', content: 'Explain recursion with an example.' }],
    ...o,
  });
/** arena-hard v0.1 question.jsonl rows. */
const arena = (o: Record<string, unknown> = {}) =>
  row({
    question_id: '328c149ed45a41c0b9d6f14659e63599',
    category: 'arena-hard-v0.1',
    cluster: 'ABC Sequence Puzzles & Groups',
    turns: [{ content: 'Write a melody in ABC notation.' }, { content: 'a later turn' }],
    ...o,
  });

function errorOf(text: string, kind: ToaTaskKind, file = 'tasks.jsonl'): TaskFileError {
  try {
    parseToaTasks(text, file, kind);
  } catch (err) {
    expect(err).toBeInstanceOf(TaskFileError);
    return err as TaskFileError;
  }
  throw new Error('expected a TaskFileError');
}

describe('TOA task files: the shipped fixtures', () => {
  it('instructions: 12 distinct prompts, nothing to translate', () => {
    const tasks = loadToaTasks('configs/tasks/toa/instructions.jsonl', 'instruction');
    expect(tasks).toHaveLength(12);
    expect(new Set(tasks.map((t) => t.instruction)).size).toBe(12);
    for (const t of tasks) {
      expect(Object.keys(t).sort(), t.id).toEqual(['id', 'instruction', 'kind']);
      expect(t.kind).toBe('instruction');
      expect(t.id, t.id).toMatch(/^[a-z0-9-]+$/);
    }
    expect(tasks[0]).toEqual({
      id: 'tea-vs-coffee-caffeine',
      kind: 'instruction',
      instruction: 'Does a cup of black tea or a cup of coffee usually contain more caffeine? Give rough numbers.',
    });
  });

  it('translation: 8 German sentences with English references', () => {
    const tasks = loadToaTasks('configs/tasks/toa/translation.jsonl', 'translation');
    expect(tasks).toHaveLength(8);
    for (const t of tasks) {
      expect(t).toMatchObject({ kind: 'translation', srcLang: 'de' });
      expect(t.id).toMatch(/^de-/);
      expect(t.src!.split(/\s+/).length, t.id).toBeGreaterThanOrEqual(6);
      expect(t.ref!.split(/\s+/).length, t.id).toBeGreaterThanOrEqual(6);
      expect(t.ref, t.id).not.toBe(t.src);
    }
    expect(tasks[1]).toEqual({
      id: 'de-train-delay',
      kind: 'translation',
      instruction: 'Translate the German sentence into English.',
      src: 'Wegen einer Signalstörung hat der Zug nach Hamburg etwa zwanzig Minuten Verspätung.',
      srcLang: 'de',
      ref: 'Because of a signal fault, the train to Hamburg is running about twenty minutes late.',
    });
  });

  it('the translation file read as instruction prompts keeps only the instruction', () => {
    const tasks = loadToaTasks('configs/tasks/toa/translation.jsonl', 'instruction');
    expect(tasks[0]).toEqual({ id: 'de-bakery-sunday', kind: 'instruction', instruction: 'Translate the German sentence into English.' });
  });
});

describe('TOA task files: every row shape', () => {
  it('(a) ours, instruction: ids from the row or `instruction-<line>`', () => {
    expect(parseToaTasks(`${ours({ id: 3 })}\n\n${ours({ id: undefined, instruction: 'R' })}`, 'f', 'instruction')).toEqual([
      { id: '3', kind: 'instruction', instruction: 'Q' },
      { id: 'instruction-3', kind: 'instruction', instruction: 'R' },
    ]);
  });

  it('(a) ours, translation: src, ref and src_lang; ref and src_lang are optional', () => {
    expect(parseToaTasks(oursMt(), 'f', 'translation')).toEqual([
      { id: 't1', kind: 'translation', instruction: 'Q', src: 'Guten Morgen.', srcLang: 'de', ref: 'Good morning.' },
    ]);
    expect(parseToaTasks(oursMt({ ref: undefined, src_lang: undefined }), 'f', 'translation')).toEqual([
      { id: 't1', kind: 'translation', instruction: 'Q', src: 'Guten Morgen.' },
    ]);
    // src wins over a language key in the same row
    expect(parseToaTasks(oursMt({ cs: 'Dobré ráno.' }), 'f', 'translation')[0].src).toBe('Guten Morgen.');
  });

  it("(b) the seed's WMT rows: the language key is the source, en the reference", () => {
    expect(parseToaTasks(wmt(), 'f', 'translation')).toEqual([
      {
        id: '219',
        kind: 'translation',
        instruction: 'Translate into English: "Oder ist sie ganz aus dem Sortiment genommen?"',
        src: 'Oder ist sie ganz aus dem Sortiment genommen?',
        srcLang: 'de',
        ref: 'Or has it been taken out of the inventory entirely?',
      },
    ]);
    const zh = parseToaTasks(wmt({ id: 5, de: undefined, zh: '谢谢。', en: 'Thanks.', dataset: 'WMT22-Test_zh_en' }), 'f', 'translation');
    expect(zh[0]).toMatchObject({ id: '5', src: '谢谢。', srcLang: 'zh', ref: 'Thanks.' });
    // a three-letter code, no reference
    expect(parseToaTasks(wmt({ de: undefined, en: undefined, liv: 'Tēriņtš!' }), 'f', 'translation')[0]).toMatchObject({
      src: 'Tēriņtš!',
      srcLang: 'liv',
    });
    expect(parseToaTasks(wmt(), 'f', 'instruction')).toEqual([
      { id: '219', kind: 'instruction', instruction: 'Translate into English: "Oder ist sie ganz aus dem Sortiment genommen?"' },
    ]);
  });

  it('(c) AlpacaEval rows: no id, so the line names them; extra fields are ignored', () => {
    expect(parseToaTasks(`${alpaca()}\n${alpaca({ instruction: 'Who wrote Faust?' })}`, 'f', 'instruction')).toEqual([
      { id: 'instruction-1', kind: 'instruction', instruction: 'What is the capital of Australia?' },
      { id: 'instruction-2', kind: 'instruction', instruction: 'Who wrote Faust?' },
    ]);
    // the seed's own subsets add an id
    expect(parseToaTasks(alpaca({ id: 672 }), 'f', 'instruction')[0].id).toBe('672');
  });

  it('(d) UltraFeedback prompts: prompt_id and prompt', () => {
    expect(parseToaTasks(ultra(), 'f', 'instruction')).toEqual([
      { id: '4f2a9c', kind: 'instruction', instruction: 'Explain recursion with an example.' },
    ]);
    expect(parseToaTasks(ultra({ id: 'mine' }), 'f', 'instruction')[0].id).toBe('mine');
    expect(parseToaTasks(ultra({ prompt_id: undefined }), 'f', 'instruction')[0].id).toBe('instruction-1');
  });

  it('(e) Arena-Hard questions: question_id and the first turn', () => {
    expect(parseToaTasks(arena(), 'f', 'instruction')).toEqual([
      { id: '328c149ed45a41c0b9d6f14659e63599', kind: 'instruction', instruction: 'Write a melody in ABC notation.' },
    ]);
    expect(parseToaTasks(arena({ question_id: 17 }), 'f', 'instruction')[0].id).toBe('17');
  });

  it('shapes may be mixed in one file; ids must be unique across them', () => {
    const file = [ours(), wmt(), alpaca(), ultra(), arena()].join('\n');
    expect(parseToaTasks(file, 'f', 'instruction').map((t) => t.id)).toEqual([
      't1',
      '219',
      'instruction-3',
      '4f2a9c',
      '328c149ed45a41c0b9d6f14659e63599',
    ]);
    expect(parseToaTasks([oursMt(), wmt()].join('\n'), 'f', 'translation').map((t) => [t.id, t.srcLang])).toEqual([
      ['t1', 'de'],
      ['219', 'de'],
    ]);
    expect(errorOf([ultra({ prompt_id: 'x' }), ours({ id: 'x' })].join('\n'), 'instruction').message).toBe(
      'tasks.jsonl line 2: field "id" "x" is used by an earlier row',
    );
  });

  it('readToaSplit reads each split file per kind and applies the limit', () => {
    const cfg = { evalTasks: 'configs/tasks/toa/instructions.jsonl', trainTasks: 'configs/tasks/toa/translation.jsonl', limit: 2 };
    expect(readToaSplit(cfg, 'eval', 'instruction').map((t) => t.id)).toEqual(['tea-vs-coffee-caffeine', 'haiku-autumn-commute']);
    const train = readToaSplit(cfg, 'train', 'translation');
    expect(train.map((t) => [t.id, t.kind, t.srcLang])).toEqual([
      ['de-bakery-sunday', 'translation', 'de'],
      ['de-train-delay', 'translation', 'de'],
    ]);
    expect(readToaSplit({ ...cfg, limit: undefined }, 'train', 'instruction')).toHaveLength(8);
    expect(readToaSplit({ evalTasks: cfg.evalTasks }, 'train', 'instruction')).toEqual([]);
    expect(TOA_TASK_KINDS).toEqual(['instruction', 'translation']);
  });
});

describe('TOA task files: errors', () => {
  it('are the shared TaskFileError, naming file, line and field', () => {
    expect(TaskFileError).toBe(SharedTaskFileError);
    const e = errorOf([ours({ id: 'a' }), '', ours({ id: 'b', instruction: '  ' })].join('\n'), 'instruction', 'p.jsonl');
    expect(e.message).toBe('p.jsonl line 3: field "instruction" must be a non-empty string');
    expect([e.file, e.line, e.field]).toEqual(['p.jsonl', 3, 'instruction']);
  });

  it.each([
    [
      ours({ instruction: undefined }),
      'instruction',
      'field "instruction" must be a non-empty string (or the question as "prompt" or Arena-Hard "turns")',
    ],
    [ours({ instruction: 7 }), 'instruction', 'field "instruction" must be a non-empty string'],
    [ours({ id: { a: 1 } }), 'instruction', 'field "id" must be a non-empty string or a number'],
    [ours({ id: '' }), 'translation', 'field "id" must be a non-empty string or a number'],
    [ultra({ prompt: '' }), 'instruction', 'field "prompt" must be a non-empty string'],
    [ultra({ prompt_id: null }), 'instruction', 'field "prompt_id" must be a non-empty string or a number'],
    [arena({ question_id: [1] }), 'instruction', 'field "question_id" must be a non-empty string or a number'],
    [arena({ turns: [] }), 'instruction', 'field "turns" must be a non-empty list of {"content"} turns'],
    [arena({ turns: 'hi' }), 'instruction', 'field "turns" must be a non-empty list of {"content"} turns'],
    [arena({ turns: ['hi'] }), 'instruction', 'field "turns[0]" must be an object {"content"}'],
    [arena({ turns: [{ content: '' }] }), 'instruction', 'field "turns[0].content" must be a non-empty string'],
    [
      alpaca(),
      'translation',
      'field "src" must be a non-empty string (or, in a WMT row, the source under its language code and the reference under "en")',
    ],
    [oursMt({ src: 5 }), 'translation', 'field "src" must be a non-empty string'],
    [oursMt({ ref: '' }), 'translation', 'field "ref" must be a non-empty string'],
    [oursMt({ src_lang: 'German' }), 'translation', 'field "src_lang" must be a lower-case language code such as "de"'],
    [
      oursMt({ instruction: undefined }),
      'translation',
      'field "instruction" must be a non-empty string (or the question as "prompt" or Arena-Hard "turns")',
    ],
    [wmt({ cs: 'Dobré ráno.' }), 'translation', 'field "cs" is a second source language beside "de" (a WMT row has exactly one)'],
    [wmt({ de: '' }), 'translation', 'field "de" must be a non-empty string'],
    [wmt({ en: 5 }), 'translation', 'field "en" must be a non-empty string'],
    ['{"instruction": ', 'instruction', 'the row is not valid JSON'],
    ['["Q"]', 'instruction', 'the row must be a JSON object'],
  ] as const)('%s as %s → %s', (line, kind, message) => {
    const e = errorOf(line, kind);
    if (message === 'the row is not valid JSON') expect(e.message).toMatch(/^tasks\.jsonl line 1: the row is not valid JSON \(/);
    else expect(e.message).toBe(`tasks.jsonl line 1: ${message}`);
  });

  it('duplicate ids, empty files, unknown kinds and unreadable files', () => {
    expect(errorOf([ours(), ours()].join('\n'), 'instruction').message).toBe(
      'tasks.jsonl line 2: field "id" "t1" is used by an earlier row',
    );
    expect(errorOf([wmt(), wmt()].join('\n'), 'translation').message).toBe(
      'tasks.jsonl line 2: field "id" "219" is used by an earlier row',
    );
    expect(errorOf('\n  \n', 'instruction').message).toBe('tasks.jsonl: contains no tasks');
    expect(errorOf(ours(), 'code' as ToaTaskKind).message).toBe('tasks.jsonl: kind "code" is not one of instruction, translation');
    expect(() => loadToaTasks('/nonexistent/toa.jsonl', 'instruction')).toThrow('/nonexistent/toa.jsonl: cannot be read (ENOENT)');
  });
});
