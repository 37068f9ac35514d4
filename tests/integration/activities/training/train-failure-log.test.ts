// A failing trainer's last words reach the user: the needs-attention message quotes the end of the stage log, and
// the line a trainer prints just before it dies (usually the error) must be in it, however much came before.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { storeFor } from '../../../../activities/artifacts/store';
import { trainCheckpoint } from '../../../../activities/stages/train-checkpoint';
import { tempStateDir, testConfig } from '../../../helpers/config';
import { realCpuLoop, tinyBaseCheckpoint } from '../../../helpers/tiny-model';
import { ApplicationFailure } from '@temporalio/activity';

describe('a failing trainer', () => {
  it('is reported with the last line it printed, after a flood of output', async () => {
    const stateDir = tempStateDir();
    // 4 MB of progress lines, then the error, then exit 3: the log stream still holds the end when the process is
    // gone. (One stream: stdout and stderr arrive through two pipes, whose relative order no reader can know.)
    const script =
      "const l='x'.repeat(79); for (let i = 0; i < 50000; i++) console.log(l); console.log('FATAL: CUDA out of memory'); process.exitCode = 3;";
    const config = testConfig(stateDir, (c) => {
      c.trainer.command = ['node', '-e', script, '{output}', '{data}'];
      c.trainer.maximumAttempts = 1;
    });
    const dpo = await storeFor({ stateDir }).putJsonl([{ prompt: 'p', chosen: 'a', rejected: 'b' }]);
    const env = new MockActivityEnvironment();
    const err: Error = await env
      .run(trainCheckpoint, { runName: 'flood', iteration: 0, config, checkpoint: config.baseCheckpoint, data: { dpo } })
      .then(
        () => new Error('the trainer was expected to fail'),
        (e: Error) => e,
      );
    expect(err.message).toMatch(/^trainer train step exited with 3 \(attempt 1\)\. Last lines of .*train-iter-0\.log:/);
    expect(err.message.trimEnd().split('\n').at(-1)).toBe('FATAL: CUDA out of memory');
  });

  it('killed by a signal (the OOM killer, a dead node): retryable, not taken for bad input', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.trainer.command = ['node', '-e', "console.log('step 1'); process.kill(process.pid, 'SIGKILL');", '{output}', '{data}'];
      c.trainer.maximumAttempts = 1;
    });
    const dpo = await storeFor({ stateDir }).putJsonl([{ prompt: 'p', chosen: 'a', rejected: 'b' }]);
    const err = await new MockActivityEnvironment()
      .run(trainCheckpoint, { runName: 'killed', iteration: 0, config, checkpoint: config.baseCheckpoint, data: { dpo } })
      .then(
        () => new Error('the trainer was expected to fail'),
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ type: 'TrainerFailed', nonRetryable: false });
    expect((err as Error).message).toMatch(/^trainer train step exited with SIGKILL \(attempt 1\)/);
  });

  it('bad input the trainer reports as such (trl_train.py exit 2) is not retried: one attempt, its own message', async () => {
    const stateDir = tempStateDir();
    const base = await tinyBaseCheckpoint(stateDir);
    const config = testConfig(stateDir, realCpuLoop(base, { method: 'sft', maxSteps: 1, maxLength: 32, maximumAttempts: 3 }));
    // Rows a debate critic might produce: far longer than maxLength, so TRL would train on nothing.
    const long = { role: 'user', content: 'Answer of another agent: 12. '.repeat(40) };
    const sft = await storeFor({ stateDir }).putJsonl(
      [1, 2, 3].map(() => ({ prompt: [long], completion: [{ role: 'assistant', content: 'x' }] })),
    );
    const env = new MockActivityEnvironment();
    const err = await env.run(trainCheckpoint, { runName: 'too-long', iteration: 0, config, checkpoint: base, data: { sft } }).then(
      () => new Error('the trainer was expected to fail'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'TrainerConfigError', nonRetryable: true });
    expect((err as Error).message).toMatch(/none of its 3 rows fits in --max-length 32 tokens \(raise trainer\.maxLength\)$/);
  });
});
