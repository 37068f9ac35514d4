// fairseq2 training for real on CPU: fairseq2 0.4.6 (./.venv-fairseq2, requirements-fairseq2.txt, installed by
// `node bin/setup.js --engines`) runs its packaged `lm instruction_finetune` (SFT) and `lm preference_finetune` (DPO)
// recipes on the tiny Llama-3 model (models/tiny-llama3-hd64), through the train stage a loop runs
// (activities/stages/train-checkpoint.ts: the adapter's prepare → train → export subprocesses), from rows in the format
// the loop's data builders write (activities/data/formats.ts). fairseq2 computes the tiny model's logits as transformers
// does (its card's model_config and tokenizer describe it exactly); the exported model loads with transformers and is
// not the base; a trainer killed with SIGKILL after a saved step is resumed from that step by the stage's retry; a row of
// the wrong shape fails the stage at once with one line naming it. Run by `npm run test:engines`.
import { MockActivityEnvironment } from '@temporalio/testing';
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeFor } from '../../activities/artifacts/store';
import { renderLlama31 } from '../../activities/data/chat-template';
import type { PreferencePair, SftExample } from '../../activities/data/examples';
import { formatPreferences, formatSft } from '../../activities/data/formats';
import { trainCheckpoint } from '../../activities/stages/train-checkpoint';
import { fairseq2Adapter } from '../../activities/training/adapters/fairseq2';
import { trainPaths } from '../../activities/training/train-input';
import type { LoopConfig } from '../../contracts/config';
import { requireEngines } from '../helpers/engines';
import { FAIRSEQ2_PYTHON, fairseq2CpuTrainer } from '../helpers/fairseq2';
import { tempStateDir, testConfig } from '../helpers/config';
import { tinyBaseCheckpoint, tinyModelLlama3, VENV_PYTHON } from '../helpers/tiny-model';
import { waitUntil } from '../helpers/wait';

type TrainResult = Awaited<ReturnType<typeof trainCheckpoint>>;

const SYSTEM = 'You are a helpful assistant. Answer the question.';
const conversation = (i: number) => [
  { role: 'system' as const, content: SYSTEM },
  { role: 'user' as const, content: `Question: What is ${i} + ${i + 1}?` },
];
const examples = (n: number): SftExample[] =>
  Array.from({ length: n }, (_, i) => ({
    taskId: `t${i}`,
    sampleIndex: 0,
    turn: 0,
    messages: conversation(i),
    completion: `${i} + ${i + 1} = ${2 * i + 1}. The answer is ${2 * i + 1}.`,
  }));
const SFT = examples(16);
const PAIRS: PreferencePair[] = SFT.map((e, i) => ({ ...e, chosen: e.completion, rejected: `The answer is ${2 * i}.` }));
const rowsOf = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

/** Weights of two Hugging Face directories, as transformers loads them: same tensors? all finite? */
const COMPARE = `
import json, sys, torch
from transformers import AutoModelForCausalLM
a, b = (AutoModelForCausalLM.from_pretrained(p) for p in sys.argv[1:3])
sa, sb = a.state_dict(), b.state_dict()
ids = torch.tensor([[a.config.bos_token_id, 5, 9, 13]])
print(json.dumps({"sameKeys": sorted(sa) == sorted(sb), "differ": sum(not torch.equal(sa[k], sb[k]) for k in sa),
  "total": len(sa), "finite": all(bool(torch.isfinite(v).all()) for v in sb.values()),
  "logitsDiffer": not torch.equal(a(ids).logits, b(ids).logits)}))
`;

/** Logits of the model an asset card names, as fairseq2 loads it (the card dir registered as the recipes'
 *  common.assets.extra_path does), written as JSON to argv[3]. */
const FAIRSEQ2_LOGITS = `
import json, sys, torch
from pathlib import Path
from fairseq2 import setup_fairseq2
from fairseq2.assets import FileAssetMetadataLoader, StandardAssetMetadataFileLoader
from fairseq2.context import get_runtime_context
from fairseq2.models.llama import get_llama_model_hub
from fairseq2.models.sequence import SequenceBatch
from fairseq2.utils.yaml import StandardYamlLoader
setup_fairseq2()
ctx = get_runtime_context()
cards = FileAssetMetadataLoader(Path(sys.argv[1]), ctx.file_system, StandardAssetMetadataFileLoader(StandardYamlLoader(ctx.file_system)))
ctx.asset_store.user_metadata_providers.append(cards.load())
model = get_llama_model_hub().load("collab_loop_base", device=torch.device("cpu"), dtype=torch.float32).eval()
with torch.no_grad():
    logits = model(SequenceBatch(torch.tensor(json.loads(sys.argv[2])), None)).logits
json.dump(logits.tolist(), open(sys.argv[3], "w"))
`;
/** The largest difference between those logits and transformers' for the same ids (argv: model, ids, file). */
const LOGITS_DIFF = `
import json, sys, torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(sys.argv[1]).eval()
with torch.no_grad():
    hf = model(torch.tensor(json.loads(sys.argv[2]))).logits
print((hf - torch.tensor(json.load(open(sys.argv[3])))).abs().max().item())
`;

describe('fairseq2 0.4.6 on CPU, run by the train stage', () => {
  let stateDir: string;
  let base: string;

  beforeAll(async () => {
    requireEngines('fairseq2');
    stateDir = tempStateDir('fairseq2-cpu-');
    base = await tinyBaseCheckpoint(stateDir, tinyModelLlama3());
  }, 120_000);

  const configWith = (trainer: Record<string, unknown>): LoopConfig =>
    testConfig(stateDir, (c) => {
      c.baseCheckpoint = base;
      c.trainer = fairseq2CpuTrainer(base, trainer);
    });
  const inputFor = async (runName: string, config: LoopConfig, method: 'sft' | 'dpo', rows: Record<string, unknown>[]) => ({
    runName,
    iteration: 0,
    config,
    checkpoint: base,
    data: { [method]: await storeFor(config).putJsonl(rows) },
  });
  const logOf = (runName: string) => readFileSync(trainPaths(stateDir, runName, 0).logFile, 'utf8');
  const compare = async (trained: string) => JSON.parse((await execa(VENV_PYTHON, ['-c', COMPARE, base, trained])).stdout);

  it("the tiny model's tokenizers agree: fairseq2's tiktoken file and transformers' tokenizer.json, on the rows' text", async () => {
    const [row] = rowsOf(formatSft(SFT.slice(3, 4), 'fairseq2'));
    // The template transformers (TRL, vLLM) apply renders exactly what the fairseq2 rows hold.
    const hfTemplate = await execa(VENV_PYTHON, [
      '-c',
      'import json, sys; from transformers import AutoTokenizer; t = AutoTokenizer.from_pretrained(sys.argv[1]); print(json.dumps(t.apply_chat_template(json.loads(sys.argv[2]), add_generation_prompt=True, tokenize=False)))',
      base,
      JSON.stringify(conversation(3)),
    ]);
    expect(JSON.parse(hfTemplate.stdout)).toBe(row.src);
    expect(row.src).toBe(renderLlama31(conversation(3)));
    const texts = [
      `${row.src}${row.tgt}<|eot_id|>`,
      'Naïve café: 3.14 × 2 = 6.28 😀\n\n  def total(xs): return sum(xs)\r\n',
      "It's <|python_tag|>x",
    ];
    // What the recipe's tokenizer does with the card (use_v2_tokenizer from llama3, use_eot from llama3_instruct).
    const fs2 = await execa(FAIRSEQ2_PYTHON, [
      '-c',
      'import json, sys; from pathlib import Path; from fairseq2.data.text.tokenizers.llama import LLaMA3Tokenizer; e = LLaMA3Tokenizer(Path(sys.argv[1]), use_eot=True).create_encoder(mode="as_is"); print(json.dumps([e(t).tolist() for t in json.loads(sys.argv[2])]))',
      path.join(base, 'original', 'tokenizer.model'),
      JSON.stringify(texts),
    ]);
    const hf = await execa(VENV_PYTHON, [
      '-c',
      'import json, sys; from transformers import AutoTokenizer; t = AutoTokenizer.from_pretrained(sys.argv[1]); print(json.dumps([t(x, add_special_tokens=False)["input_ids"] for x in json.loads(sys.argv[2])]))',
      base,
      JSON.stringify(texts),
    ]);
    const [a, b] = [JSON.parse(fs2.stdout), JSON.parse(hf.stdout)];
    expect(a).toEqual(b);
    const config = JSON.parse(readFileSync(path.join(base, 'config.json'), 'utf8'));
    expect(a[0][0]).toBe(config.bos_token_id); // <|begin_of_text|>, from the specials fairseq2 appends after the ranks
    expect(a[0].at(-1)).toBe(config.eos_token_id); // <|eot_id|>
    expect(config.tie_word_embeddings).toBe(false); // fairseq2 0.4 recognises a Hugging Face checkpoint by lm_head.weight
  }, 120_000);

  it('SFT: instruction_finetune trains the steps asked for on the model transformers reads; the export loads and differs from the base', async () => {
    const config = configWith({ method: 'sft' });
    const input = await inputFor('f2-sft', config, 'sft', rowsOf(formatSft(SFT, 'fairseq2')));
    const result = (await new MockActivityEnvironment().run(trainCheckpoint, input)) as TrainResult;
    expect(result).toMatchObject({ steps: 4 });
    expect(Number.isFinite(result.finalLoss)).toBe(true);
    const log = logOf('f2-sft');
    expect(log).toMatch(/Train Metrics \(step 4\) - NLL Loss: /);
    expect(log).toContain('Training complete in');
    const lineage = JSON.parse(readFileSync(path.join(result.checkpoint, 'collab-loop-checkpoint.json'), 'utf8'));
    expect(lineage.argv[1][0]).toBe(path.join(path.dirname(FAIRSEQ2_PYTHON), 'fairseq2')); // the venv's console script
    expect(lineage.version).toMatch(/^fairseq2 0\.4\.6, fairseq2n 0\.4\.6, torch 2\.6\.0/);
    expect(await compare(result.checkpoint)).toEqual({ sameKeys: true, differ: 21, total: 21, finite: true, logitsDiffer: true });
    // fairseq2 computed with the model transformers computes: the card's model_config describes the tiny model.
    const { bos_token_id: bos, eos_token_id: eos } = JSON.parse(readFileSync(path.join(base, 'config.json'), 'utf8'));
    const ids = JSON.stringify([[bos, 5, 9, 13, 200, eos]]);
    const logits = path.join(stateDir, 'fairseq2-logits.json');
    await execa(FAIRSEQ2_PYTHON, ['-c', FAIRSEQ2_LOGITS, path.join(trainPaths(stateDir, 'f2-sft', 0).root, 'work', 'assets'), ids, logits]);
    expect(Number((await execa(VENV_PYTHON, ['-c', LOGITS_DIFF, base, ids, logits])).stdout)).toBeLessThan(1e-4);
    // What the next fairseq2 iteration reads from the export.
    expect(readFileSync(path.join(result.checkpoint, 'original', 'tokenizer.model'))).toEqual(
      readFileSync(path.join(base, 'original', 'tokenizer.model')),
    );
  }, 600_000);

  it('DPO: preference_finetune against the base as reference model; the export differs from the base', async () => {
    const config = configWith({ method: 'dpo', beta: 0.1 });
    const input = await inputFor('f2-dpo', config, 'dpo', rowsOf(formatPreferences(PAIRS, 'fairseq2')));
    const result = (await new MockActivityEnvironment().run(trainCheckpoint, input)) as TrainResult;
    expect(result).toMatchObject({ steps: 4 });
    const log = logOf('f2-dpo');
    // The DPO loss is the objective the stage reports, not the NLL term logged beside it.
    const dpoLosses = [...log.matchAll(/Train Metrics \(step \d+\) - DPO Loss: ([\d.]+)/g)].map((m) => Number(m[1]));
    expect(dpoLosses).toHaveLength(4);
    expect(result.finalLoss).toBe(dpoLosses[3]);
    expect(await compare(result.checkpoint)).toMatchObject({ sameKeys: true, differ: 21, finite: true, logitsDiffer: true });
  }, 600_000);

  it('SIGKILL of the trainer after a saved step: the retried stage resumes from that step and ends at the total', async () => {
    // Gradient accumulation slows each step enough for the kill to land before the last one. 40 rows of 4 per step:
    // no saved step ends a data epoch, where fairseq2 0.4.6 cannot resume (see adapters/fairseq2.ts).
    const config = configWith({ method: 'sft', maxSteps: 8, saveSteps: 2, batchSize: 1, gradientAccumulation: 4 });
    const input = await inputFor('f2-resume', config, 'sft', rowsOf(formatSft(examples(40), 'fairseq2')));
    const { root, pidFile } = trainPaths(stateDir, 'f2-resume', 0);
    const first = new MockActivityEnvironment().run(trainCheckpoint, input).catch((e: unknown) => e);
    const saved = await waitUntil(async () => fairseq2Adapter.findResumePoint(path.join(root, 'work')), 300_000, 'a saved step');
    const { pid } = JSON.parse(readFileSync(pidFile, 'utf8'));
    process.kill(-pid, 'SIGKILL');
    expect(String(await first)).toMatch(/trainer train step exited with SIGKILL/);
    const killedAt = fairseq2Adapter.findResumePoint(path.join(root, 'work'))!.step;
    expect(killedAt).toBeGreaterThanOrEqual(saved.step);
    expect(killedAt).toBeLessThan(8);

    const result = (await new MockActivityEnvironment({ attempt: 2 }).run(trainCheckpoint, input)) as TrainResult;
    const log = logOf('f2-resume');
    const retry = log.slice(log.indexOf('--- attempt 2 '));
    expect(retry).toContain(`Restoring training from step ${killedAt}.`);
    expect(retry).not.toMatch(new RegExp(`Train Metrics \\(step ${killedAt}\\)`)); // no saved step trained again
    expect(retry).toMatch(/Train Metrics \(step 8\)/);
    expect(result).toMatchObject({ steps: 8, resumedFromStep: killedAt });
    expect(await compare(result.checkpoint)).toMatchObject({ sameKeys: true, finite: true, logitsDiffer: true });
  }, 900_000);

  it('a row of the wrong shape fails the stage at once, with one line naming the file, line and field', async () => {
    const config = configWith({ method: 'sft' });
    const [good] = rowsOf(formatSft(SFT.slice(0, 1), 'fairseq2'));
    const input = await inputFor('f2-bad', config, 'sft', [good, { src: good.src, target: good.tgt, id: 'bad' }]); // answer under another key
    const err = (await new MockActivityEnvironment().run(trainCheckpoint, input).catch((e: unknown) => e)) as Error;
    const dataFile = path.join(trainPaths(stateDir, 'f2-bad', 0).root, 'data', 'train.jsonl');
    expect(err).toMatchObject({ type: 'TrainerConfigError', nonRetryable: true });
    expect(err.message).toContain(`fairseq2_prepare.py: ${dataFile} line 2: missing field "tgt" (sft rows need src, tgt)`);
    expect(err.message).not.toContain('Traceback');
    expect(logOf('f2-bad')).not.toContain('· train:'); // fairseq2 never started
  }, 120_000);
});
