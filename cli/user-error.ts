// The CLI's promise: a user mistake prints one line naming what to fix — never a stack trace.
import { USER_INPUT_ERRORS } from '../contracts/errors';
import { temporalAddressForMessages } from './temporal-config';
import { exitClosingCaches } from '../activities/llm/opened-caches';

export class UserError extends Error {
  override name = 'UserError';
}

const USER_ERROR_NAMES = new Set([
  'UserError',
  'ScoreInputError',
  ...USER_INPUT_ERRORS,
  'WorkflowNotFoundError',
  'WorkflowExecutionAlreadyStartedError',
  'TemporalConfigError',
]);

export function describeCliError(err: unknown): { message: string; user: boolean } {
  const e = err as Error & { code?: string };
  if (e?.name && USER_ERROR_NAMES.has(e.name)) return { message: e.message, user: true };
  const msg = String(e?.message ?? err);
  if (/ECONNREFUSED|TransportError|Failed to connect|connect ECONNREFUSED|UNAVAILABLE/i.test(msg))
    return {
      message: `cannot reach the Temporal server at ${temporalAddressForMessages()} — start it with \`collab-loop server\` (or set TEMPORAL_ADDRESS)`,
      user: true,
    };
  const ns = /Namespace not found: '([^']+)'|Namespace (\S+) (?:is|was) not found/.exec(msg);
  if (ns)
    return {
      message:
        `namespace ${ns[1] ?? ns[2]} does not exist on the Temporal server at ${temporalAddressForMessages()} ` +
        `(set by TEMPORAL_NAMESPACE or the profile's namespace); create it with \`temporal operator namespace create --namespace ${ns[1] ?? ns[2]}\``,
      user: true,
    };
  return { message: msg, user: false };
}

export function cliAction<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      const { message, user } = describeCliError(err);
      console.error(`collab-loop: ${message}`);
      if (!user && process.env.DEBUG) console.error((err as Error).stack);
      await exitClosingCaches(user ? 2 : 1);
    }
  };
}
