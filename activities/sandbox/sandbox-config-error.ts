// The one error the sandbox throws: the machine (or the caller's options) cannot run it at all. What the sandboxed
// code does never throws; the message says what to fix.
export class SandboxConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxConfigError';
  }
}
