// activities/training/adapters/jsonl_to_parquet.py (verl's prepare step) with the real .venv python and pyarrow: nested message
// lists survive as lists of structs, read back the way verl reads them (pandas), and bad input is one clear line.
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { VENV_PYTHON } from '../../../../helpers/tiny-model';
import { tmpDir } from '../../../../helpers/trainer-adapters';

const SCRIPT = path.join(PROJECT_ROOT, 'activities', 'training', 'adapters', 'jsonl_to_parquet.py');
const root = tmpDir('parquet');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const msg = (role: string, content: string) => ({ role, content });
const rows = Array.from({ length: 5 }, (_, i) => ({
  messages: [
    msg('system', 'SYS'),
    msg('user', `Q${i}`),
    ...(i % 2 ? [msg('assistant', 'earlier'), msg('user', 'go on')] : []),
    msg('assistant', `A${i}`),
  ],
}));
const write = (name: string, text: string) => {
  const file = path.join(root, name);
  writeFileSync(file, text);
  return file;
};
const convert = (input: string, ...extra: string[]) =>
  execa(VENV_PYTHON, [SCRIPT, input, path.join(root, 'out.parquet'), '--messages-key', 'messages', ...extra], { reject: false });

// verl: pd.read_parquet, then numpy arrays of dicts → lists (convert_nested_value_to_list_recursive).
const READ_LIKE_VERL = `
import json, sys
import numpy as np, pandas as pd
def plain(v):
    if isinstance(v, np.ndarray): v = v.tolist()
    if isinstance(v, list): return [plain(x) for x in v]
    if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
    return v
df = pd.read_parquet(sys.argv[1])
print(json.dumps({"columns": list(df.columns), "rows": [plain(m) for m in df["messages"]]}))
`;

describe('jsonl_to_parquet.py', () => {
  it('pyarrow is installed in the project venv', async () => {
    const r = await execa(VENV_PYTHON, ['-c', 'import pyarrow; print(pyarrow.__version__)'], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it('keeps message lists nested (list<struct<role, content>>) and writes a validation sample', async () => {
    const input = write('train.jsonl', `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const r = await convert(input, '--val-output', path.join(root, 'val.parquet'), '--val-rows', '2');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.replace('collab-loop-parquet ', ''))).toEqual({
      path: path.join(root, 'out.parquet'),
      rows: 5,
      val_path: path.join(root, 'val.parquet'),
      val_rows: 2,
    });
    const schema = await execa(VENV_PYTHON, [
      '-c',
      'import sys, pyarrow.parquet as pq; print(pq.read_schema(sys.argv[1]).field("messages").type)',
      path.join(root, 'out.parquet'),
    ]);
    expect(schema.stdout.trim()).toBe('list<element: struct<role: string, content: string>>');
    const back = await execa(VENV_PYTHON, ['-c', READ_LIKE_VERL, path.join(root, 'out.parquet')]);
    expect(JSON.parse(back.stdout)).toEqual({ columns: ['messages'], rows: rows.map((r) => r.messages) });
    const val = await execa(VENV_PYTHON, ['-c', READ_LIKE_VERL, path.join(root, 'val.parquet')]);
    expect(JSON.parse(val.stdout).rows).toEqual(rows.slice(0, 2).map((r) => r.messages));
    expect(existsSync(path.join(root, 'out.parquet.tmp'))).toBe(false);
  });

  it.each([
    [
      'not JSON',
      '{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}\n{"messages": [\n',
      'line 2: not valid JSON (Expecting value)',
    ],
    ['not an object', '[1, 2]\n', 'line 1: must be a JSON object'],
    ['an empty line', '\n', 'line 1: empty line'],
    ['no messages', '{"prompt": "q"}\n', 'line 1: field "messages" must be a non-empty list of messages'],
    [
      'a bad message',
      '{"messages": [{"role": "user"}]}\n',
      'line 1: field "messages" message 1 must be {"role": string, "content": string}',
    ],
    [
      'an unknown role',
      '{"messages": [{"role": "bot", "content": "a"}]}\n',
      'line 1: field "messages" message 1 has unknown role "bot" (expected one of system, user, assistant, tool)',
    ],
    [
      'no target',
      '{"messages": [{"role": "user", "content": "q"}]}\n',
      'line 1: field "messages": the last message (the target) must have role "assistant", not "user"',
    ],
  ])('%s → exit 2 with one line naming file and line', async (_, text, message) => {
    const input = write('bad.jsonl', text);
    const r = await convert(input);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`jsonl_to_parquet.py: ${input} ${message}`]);
  });

  it('empty, missing or non-UTF-8 input → exit 2, one line', async () => {
    const empty = write('empty.jsonl', '');
    expect((await convert(empty)).stderr.trim()).toBe(`jsonl_to_parquet.py: ${empty}: no rows`);
    const missing = path.join(root, 'missing.jsonl');
    const r = await convert(missing);
    expect([r.exitCode, r.stderr.trim()]).toEqual([2, `jsonl_to_parquet.py: ${missing}: no such file`]);
    const latin = path.join(root, 'latin.jsonl');
    writeFileSync(latin, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d, 0x0a]));
    const l = await convert(latin);
    expect([l.exitCode, l.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(l.stderr).toContain(`${latin}: not UTF-8 text`);
  });

  it('without --messages-key any objects convert; rows that disagree on a column type name the file', async () => {
    const ok = write('plain.jsonl', '{"a": 1, "b": ["x"]}\n{"a": 2, "b": []}\n');
    const r = await execa(VENV_PYTHON, [SCRIPT, ok, path.join(root, 'plain.parquet')], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const clash = write('clash.jsonl', '{"a": 1}\n{"a": "one"}\n');
    const c = await execa(VENV_PYTHON, [SCRIPT, clash, path.join(root, 'clash.parquet')], { reject: false });
    expect(c.exitCode).toBe(2);
    expect(c.stderr.trim().split('\n')).toHaveLength(1);
    expect(c.stderr).toContain(`jsonl_to_parquet.py: ${clash}: rows do not share one schema`);
  });
});
