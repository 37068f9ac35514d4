// A failing trainer's last words reach the user: the needs-attention message quotes the end of the stage log, and
// the line a trainer prints just before it dies (usually the error) must be in it, however much came before.
import { MockActivityEnvironment } from '@temporalio/testing';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArtifactStore } from '../../activities/artifacts/store';
import { trainCheckpoint } from '../../activities/training/train-checkpoint';
import { tempStateDir, testConfig } from '../helpers/config';

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
    const dpo = new ArtifactStore(path.join(stateDir, 'artifacts')).putJsonl([{ prompt: 'p', chosen: 'a', rejected: 'b' }]);
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
});
