// Parsers commander calls on option values, shared by several commands (cli/commands/).
import { InvalidArgumentError } from 'commander';
import { UserError } from './user-error';

/** A repeatable option (`--set k=v --set k2=v2`): each value appended to the list. */
export const collect = (v: string, prev: string[]) => [...prev, v];

export const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new UserError(`"${v}" is not a port number`);
  return n;
};

/** `port` as an option's parser: commander runs it before any action, so it says the mistake in its own one line
 *  (`error: option '--metrics-port <n>' argument '99999' is invalid. …`) instead of a stack trace. */
export const portOption = (v: string) => {
  try {
    return port(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
};
