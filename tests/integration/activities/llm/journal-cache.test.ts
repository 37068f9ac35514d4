// The request cache on one machine: answers appended to a journal per process. What a user relies on: an answer
// acknowledged by one process is found by any other (a restarted worker, a second worker), even when the writer
// was SIGKILLed mid-run; a torn line costs only a miss; caches written before journals (a file per answer) still
// answer.
import { appendFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { JournalRequestCache } from '../../../../activities/llm/journal-cache';
import { tempStateDir } from '../../../helpers/config';
import { ackedBeforeKill } from '../../../helpers/killed-writer';

const answer = (n: number) => ({ texts: [`answer ${n}`], finishReasons: ['stop'], usage: { promptTokens: n, completionTokens: 1 } });

describe('journal request cache', () => {
  it("finds another process's answers, including those written after it first looked", async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const writer = new JournalRequestCache(dir);
    const reader = new JournalRequestCache(dir);
    await Promise.all([0, 1, 2].map((n) => writer.put(`k${n}`, answer(n))));
    expect(await reader.get('k1')).toEqual(answer(1));
    expect(await reader.get('missing')).toBeUndefined();
    await writer.put('k3', answer(3));
    expect(await reader.get('k3')).toEqual(answer(3));
    expect(await writer.get('k0')).toEqual(answer(0)); // its own, from its index
    expect(readdirSync(dir).filter((f) => f.startsWith('journal-'))).toHaveLength(1); // only the writer wrote
  });

  it('every answer a SIGKILLed writer acknowledged is found; a torn last line is a miss', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const acked = await ackedBeforeKill(dir, 2000);
    const journal = readdirSync(dir).find((f) => f.startsWith('journal-'))!;
    appendFileSync(path.join(dir, journal), '{"k":"torn","a":{"texts":["par'); // what a power loss leaves
    const reader = new JournalRequestCache(dir);
    const found = await Promise.all(acked.map(async (n) => (await reader.get(`w-${n}`))?.usage.promptTokens));
    expect(found).toEqual(acked);
    expect(await reader.get('torn')).toBeUndefined();
  }, 90_000);

  it('answers cached one file per answer (before journals) are still found', async () => {
    const dir = path.join(tempStateDir(), 'llm-cache');
    const key = 'ab'.padEnd(64, '0');
    mkdirSync(path.join(dir, 'ab'), { recursive: true });
    writeFileSync(path.join(dir, 'ab', `${key}.json`), JSON.stringify(answer(7)));
    expect(await requestCacheFor({ stateDir: path.dirname(dir) }).get(key)).toEqual(answer(7));
  });
});
