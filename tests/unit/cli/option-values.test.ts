// A bad port in an option is one commander error line (before any action runs), not a stack trace.
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { port, portOption } from '../../../cli/option-values';
import { UserError } from '../../../cli/user-error';

describe('port options', () => {
  it('takes a port number', () => {
    expect(portOption('9464')).toBe(9464);
    expect(port('1')).toBe(1);
  });

  it("says a bad one as commander's own invalid-argument error, which it prints in one line", () => {
    for (const bad of ['99999', '0', 'http', '80.5']) {
      expect(() => portOption(bad)).toThrow(InvalidArgumentError);
      expect(() => portOption(bad)).toThrow(`"${bad}" is not a port number`);
      expect(() => port(bad)).toThrow(UserError);
    }
  });
});
