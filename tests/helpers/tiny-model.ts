// The tiny randomly initialised models (scripts/python/make_tiny_model.py; no download): the Llama of the real CPU
// loop and the CLIP of the CLIP screenshot scorer. Made once per test process into a temp dir (the Llama copied per
// test), so tests never touch models/ in the checkout.
import { execa } from 'execa';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

export const VENV_PYTHON = path.join(PROJECT_ROOT, '.venv', 'bin', 'python');
type Arch = 'llama' | 'llama-hd64' | 'llama3-hd64' | 'clip';
const made: Partial<Record<Arch, Promise<string>>> = {};

function make(arch: Arch): Promise<string> {
  made[arch] ??= (async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'collab-loop-tiny-')), `tiny-${arch}`);
    await execa(VENV_PYTHON, [path.join(PROJECT_ROOT, 'scripts/python/make_tiny_model.py'), '--arch', arch, '--out', out, '--seed', '0'], {
      cwd: PROJECT_ROOT,
    });
    if (!existsSync(path.join(out, 'config.json'))) throw new Error(`make_tiny_model.py wrote no config.json in ${out}`);
    return out;
  })();
  // A failure is not kept: the next test file in this process makes the model again.
  made[arch].catch(() => delete made[arch]);
  return made[arch];
}

export const tinyModel = (): Promise<string> => make('llama');

/** The same Llama with 64-wide attention heads: vLLM's CPU attention rejects the 16-wide ones of tinyModel(). */
export const tinyModelHd64 = (): Promise<string> => make('llama-hd64');

/** A reward model (one-output score head) on tinyModelHd64()'s body, as vLLM's pooling runner serves reward models. */
export async function tinyRewardModelHd64(dir: string): Promise<string> {
  await execa(VENV_PYTHON, [path.join(PROJECT_ROOT, 'tests/helpers/make_tiny_reward_model.py'), await tinyModelHd64(), dir]);
  return dir;
}

/** That shape as fairseq2 0.4 loads it: untied embeddings, a Llama-3 tiktoken tokenizer (original/tokenizer.model)
 *  beside the tokenizer.json with the same ids, Llama 3.1's chat template. */
export const tinyModelLlama3 = (): Promise<string> => make('llama3-hd64');

/** A tiny random CLIP checkpoint: the real scorer code path, with scores that mean nothing. */
export const tinyClip = (): Promise<string> => make('clip');

/** A private copy of the tiny model (or `model`) as a run's base checkpoint. */
export async function tinyBaseCheckpoint(stateDir: string, model: Promise<string> = tinyModel()): Promise<string> {
  const dir = path.join(stateDir, 'tiny-base');
  cpSync(await model, dir, { recursive: true });
  return dir;
}

/** Patches a test config into the real CPU loop: transformers serve + probe, TRL, simulated agents. */
export function realCpuLoop(base: string, trainer: Record<string, unknown> = {}) {
  return (c: Record<string, any>) => {
    c.baseCheckpoint = base;
    c.server = { kind: 'transformers', readyTimeoutSeconds: 180, probe: { prompts: 2, maxTokens: 8 } };
    c.agents = { skill: 0.45, agreeability: 0.7 };
    c.trainer = {
      kind: 'trl',
      method: 'dpo',
      maxSteps: 4,
      saveSteps: 2,
      batchSize: 2,
      maxLength: 384,
      learningRate: 0.001,
      heartbeatTimeoutSeconds: 60,
      ...trainer,
    };
  };
}
