// fairseq2 0.4.6 on the tiny Llama-3 model, on CPU (./.venv-fairseq2, requirements-fairseq2.txt): the trainer section
// a test config uses. The adapter's defaults stay what a GPU user runs (Llama 3.1 8B's arch, bf16 FSDP); only what
// this model and a CPU need is added here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { enginePython } from './engines';

export const FAIRSEQ2_PYTHON = enginePython('fairseq2');

/** The tiny model's shape as fairseq2 LLaMAConfig fields (set over llama3_1_8b's by the card's model_config): the FFN
 *  width as is (scale, multiplier and rounding of 1), rope without Llama 3.1's scaling, as its config.json says. */
export function fairseq2ModelConfig(base: string): Record<string, unknown> {
  const c = JSON.parse(readFileSync(path.join(base, 'config.json'), 'utf8'));
  return {
    model_dim: c.hidden_size,
    max_seq_len: c.max_position_embeddings,
    vocab_info: { size: c.vocab_size, unk_idx: null, bos_idx: c.bos_token_id, eos_idx: c.eos_token_id, pad_idx: null },
    num_layers: c.num_hidden_layers,
    num_attn_heads: c.num_attention_heads,
    num_key_value_heads: c.num_key_value_heads,
    ffn_inner_dim: c.intermediate_size,
    ffn_inner_dim_scale: 1.0,
    ffn_inner_dim_multiplier: 1.0,
    ffn_inner_dim_to_multiple: 1,
    rope_theta: c.rope_parameters?.rope_theta ?? c.rope_theta,
    use_scaled_rope: false,
  };
}

/** trainer: fairseq2 on CPU for the tiny model at `base`; `extra` overrides (method, steps, …). */
export function fairseq2CpuTrainer(base: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'fairseq2',
    method: 'sft',
    python: FAIRSEQ2_PYTHON,
    maxSteps: 4,
    saveSteps: 2,
    batchSize: 2,
    maxLength: 256,
    learningRate: 0.001,
    modelConfig: fairseq2ModelConfig(base),
    // The recipes train in bf16; float32 on CPU (trainer.dtype, fairseq2/recipes/config.py TrainerSection).
    extraArgs: ['--config', 'trainer.dtype=float32'],
    heartbeatTimeoutSeconds: 120,
    ...extra,
  };
}
