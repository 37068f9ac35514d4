// Each bench section's printed figures replace its block in docs/benchmarks.md, stamped with the command, the date
// and the machine; every section the bench knows has its block there, so no run's figures are lost.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BENCHMARKS_DOC, benchBlockName, figuresBlock, recordFigures } from '../../../scripts/bench-figures';
import { BENCH_SECTIONS, PEAK_RSS } from '../../../scripts/bench-sections';
import { markedBlockNames } from '../../../scripts/marked-block';

describe('the bench figures on docs/benchmarks.md', () => {
  it('has one block for every section of the bench and for the peak RSS', () => {
    const names = markedBlockNames(readFileSync(BENCHMARKS_DOC, 'utf8'), 'bench:');
    expect([...names].sort()).toEqual([...BENCH_SECTIONS, PEAK_RSS].map(benchBlockName).sort());
  });

  it('stamps the printed lines with the command, the date and the machine', () => {
    const block = figuresBlock('npm run bench -- coral', '\ncoral — figures\n  calls/s 290.3\n\n', {
      date: '2026-11-29',
      cores: 2,
      memoryGiB: 19.96,
    });
    expect(block).toBe(
      ['`npm run bench -- coral`, 2026-11-29, 2 cores, 20.0 GiB memory:', '', '```text', 'coral — figures', '  calls/s 290.3', '```'].join(
        '\n',
      ),
    );
  });

  it('writes what a section printed into its block, and still prints it', async () => {
    const doc = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-figures-')), 'benchmarks.md');
    writeFileSync(doc, 'intro\n<!-- bench:render -->\nold\n<!-- /bench:render -->\nend\n');
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await recordFigures('render', 'npm run bench -- render', async () => console.log('  renders/s %s', '33.1'), doc);
      expect(log).toHaveBeenCalledWith('  renders/s %s', '33.1');
    } finally {
      log.mockRestore();
    }
    const text = readFileSync(doc, 'utf8');
    expect(text).toMatch(/^intro\n<!-- bench:render -->\n`npm run bench -- render`, \d{4}-\d\d-\d\d, \d+ cores, [\d.]+ GiB memory:\n/);
    expect(text).toContain('```text\n  renders/s 33.1\n```\n<!-- /bench:render -->\nend\n');
    expect(text).not.toContain('old');
  });

  it('keeps the figures on the terminal when the page has no block for them', async () => {
    const doc = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-figures-')), 'benchmarks.md');
    writeFileSync(doc, 'no blocks\n');
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await recordFigures('sandbox', 'npm run bench -- sandbox', async () => console.log('figures'), doc);
      expect(log).toHaveBeenCalledWith('figures');
      expect(warn.mock.calls[0][0]).toContain('the figures of sandbox not written');
    } finally {
      log.mockRestore();
      warn.mockRestore();
    }
    expect(readFileSync(doc, 'utf8')).toBe('no blocks\n');
  });
});
