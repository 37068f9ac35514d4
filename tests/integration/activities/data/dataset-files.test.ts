// A streamed data build's files (activities/data/dataset-files.ts): the rows a build may still drop are held in a
// file of their own and read back by handle, whatever was written between; what the build keeps goes into the store.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatasetFiles } from '../../../../activities/data/dataset-files';
import { tempStateDir } from '../../../helpers/config';

describe('a data build held rows', () => {
  it('reads each held row back by its handle, past the write buffer and with multi-byte text', () => {
    const parent = path.join(tempStateDir(), 'tmp');
    const files = new DatasetFiles(parent);
    try {
      const held = files.held();
      const other = files.held();
      // ~3 MiB in all: three flushes of the 1 MiB buffer, rows read before and after each.
      const line = (i: number) => JSON.stringify({ i, text: `${'é→'.repeat(i % 7)}${'x'.repeat(3_000 + (i % 500))}` });
      const handles: number[] = [];
      for (let i = 0; i < 1_000; i++) {
        handles.push(held.put(line(i)));
        other.put(`other ${i}`);
        if (i % 97 === 0) expect(held.get(handles[Math.floor(i / 2)])).toBe(line(Math.floor(i / 2)));
      }
      for (const i of [999, 0, 500, 1, 998]) expect(held.get(handles[i])).toBe(line(i));
      expect(other.get(7)).toBe('other 7');
      // Held rows are the build's own scratch, beside its datasets, and go with them.
      expect(readdirSync(parent)).toHaveLength(1);
    } finally {
      files.discard();
    }
    expect(readdirSync(parent)).toEqual([]);
  });
});
