import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreCoralRecord, scoreRecord, TaskFileError, type CoralDataset } from '../../../../../activities/recipes/coral';
import { FIXTURES } from '../../../../helpers/coral';
import { cli } from '../../../../helpers/cli';

describe('collab-loop score --recipe coral', () => {
  it.each(['mmlu_pro', 'math', 'explore_tom'] as CoralDataset[])(
    '%s: scores responses and extractor replies as the fixtures expect',
    (dataset) => {
      const file = path.join(FIXTURES, `score-${dataset}.jsonl`);
      const rows = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(rows.length).toBeGreaterThanOrEqual(6);
      rows.forEach((row, i) => {
        expect(scoreRecord(dataset, row, 'fixed', { file, line: i + 1 }), row.id).toEqual({ id: row.id, ...row.expected });
      });
    },
  );

  it("keeps a row's id as written: a number stays a number", () => {
    const row = { problem: 'P', answer: '1', extracted: '1' };
    expect(scoreRecord('math', { ...row, id: 7 }, 'fixed').id).toBe(7);
    expect(scoreRecord('math', { ...row, id: '7' }, 'fixed').id).toBe('7');
    expect(scoreRecord('math', row, 'fixed', { file: 'r.jsonl', line: 3 }).id).toBe('math-3');
  });

  it('an empty ToM extraction scores as correct only under compat: seed', () => {
    const row = { story_structure: 'S', question: 'Q', expected_answer: 'yes', extracted: '' };
    expect(scoreRecord('explore_tom', row, 'fixed').correct).toBe(false);
    expect(scoreRecord('explore_tom', row, 'seed')).toMatchObject({ valid: true, correct: true });
  });

  it('names file, line and field of a bad row', () => {
    const at = { file: 'records.jsonl', line: 7, compat: 'fixed' as const };
    expect(() => scoreCoralRecord('math', { problem: 'P', answer: '1' }, at)).toThrow(
      new TaskFileError('records.jsonl', 7, 'response', 'must be a string (a model response), or give "extracted" instead'),
    );
    expect(() => scoreCoralRecord('math', { problem: 'P', answer: '1' }, at)).toThrow(
      'records.jsonl line 7: field "response" must be a string',
    );
    expect(() => scoreCoralRecord('gpqa', { Question: 'Q', choices: ['a'], label: 0, response: 'x' }, at)).toThrow(
      'records.jsonl line 7: field "choices" must have exactly 4 entries',
    );
    expect(() => scoreCoralRecord('math', { problem: 'P', answer: '1', extracted: 3 }, at)).toThrow('field "extracted" must be a string');
  });

  it('the CLI prints one JSON line per record, and one error line for a bad file', async () => {
    const file = path.join(FIXTURES, 'score-math.jsonl');
    const rows = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const r = await cli(['score', '--recipe', 'coral', '--dataset', 'math', '--input', file]);
    expect(r.exitCode, r.all).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(rows.map((row) => ({ id: row.id, ...row.expected })));
    const bad = await cli(['score', '--recipe', 'coral', '--dataset', 'math', '--input', path.join(FIXTURES, 'score-mmlu_pro.jsonl')]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^collab-loop: .*score-mmlu_pro\.jsonl line 1: field "\w+"/);
    expect(bad.all).not.toMatch(/\n\s+at /);
  });
});
