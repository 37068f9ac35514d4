// The CLI loads only the module of the command asked for, found by name in cli/commands/index.ts: each name there
// must be a command its module registers, and every command a module registers must be reachable by its name.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../cli/commands';

describe('the command table', () => {
  it('names each command as its module registers it, and every registered command', async () => {
    const registered = new Set<string>();
    for (const [name, load] of COMMANDS) {
      const program = new Command();
      (await load())(program);
      const names = program.commands.map((c) => c.name());
      expect(names, `cli/commands/index.ts: "${name}"`).toContain(name);
      for (const n of names) registered.add(n);
    }
    expect([...registered].sort()).toEqual(COMMANDS.map(([name]) => name).sort());
  });
});
