#!/usr/bin/env python3
"""Export the last complete fairseq2 0.4 checkpoint as a Hugging Face Llama directory (the next iteration serves it).

fairseq2 0.4 has no Hugging Face weight exporter (hg_export arrived in 0.5, which has no DPO). Its llama loader reads
a Hugging Face checkpoint by renaming keys and permuting q/k for its rotary layout; this script applies the inverse
to checkpoints/step_N/model.pt (the highest committed step; step_N.tmp is one being written), casts to the base's
dtype, and writes model.safetensors with the base's config and tokenizer files (original/tokenizer.model included,
so the next fairseq2 iteration finds its tiktoken tokenizer). Written to OUT.tmp, then renamed.

Usage: fairseq2_export.py --checkpoint-dir WORK/checkpoints --base BASE_HF_DIR --out OUT
Prints: collab-loop-checkpoint {"path": STEP_DIR, "step": N}. A problem -> one line on stderr, exit 2."""
import argparse
import json
import os
import re
import shutil
import sys

PROG = "fairseq2_export.py"
# Non-weight files of a Hugging Face model directory; collab-loop's own files (lineage, simulated policy) stay behind.
BASE_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", "tokenizer.model",
              "special_tokens_map.json", "added_tokens.json", "chat_template.jinja", "chat_template.json",
              os.path.join("original", "tokenizer.model"))
KEY_MAP = (  # fairseq2 llama -> Hugging Face LlamaForCausalLM
    (r"^decoder\.layers\.(\d+)\.self_attn\.q_proj\.", r"model.layers.\1.self_attn.q_proj."),
    (r"^decoder\.layers\.(\d+)\.self_attn\.k_proj\.", r"model.layers.\1.self_attn.k_proj."),
    (r"^decoder\.layers\.(\d+)\.self_attn\.v_proj\.", r"model.layers.\1.self_attn.v_proj."),
    (r"^decoder\.layers\.(\d+)\.self_attn\.output_proj\.", r"model.layers.\1.self_attn.o_proj."),
    (r"^decoder\.layers\.(\d+)\.self_attn_layer_norm\.", r"model.layers.\1.input_layernorm."),
    (r"^decoder\.layers\.(\d+)\.ffn_layer_norm\.", r"model.layers.\1.post_attention_layernorm."),
    (r"^decoder\.layers\.(\d+)\.ffn\.gate_proj\.", r"model.layers.\1.mlp.gate_proj."),
    (r"^decoder\.layers\.(\d+)\.ffn\.inner_proj\.", r"model.layers.\1.mlp.up_proj."),
    (r"^decoder\.layers\.(\d+)\.ffn\.output_proj\.", r"model.layers.\1.mlp.down_proj."),
    (r"^decoder\.layer_norm\.", "model.norm."),
    (r"^decoder_frontend\.embed\.", "model.embed_tokens."),
    (r"^final_proj\.", "lm_head."),
)
# Buffers, not weights (rotary frequencies); anything else unknown is an error rather than a silently dropped tensor.
IGNORED = re.compile(r"(^|\.)(pos_encoder\.|freqs$)")
WRAPPERS = re.compile(r"(^module\.|_fsdp_wrapped_module\.|_checkpoint_wrapped_module\.)")


class ExportError(Exception):
    pass


def latest_step(checkpoint_dir):
    steps = []
    for name in os.listdir(checkpoint_dir) if os.path.isdir(checkpoint_dir) else []:
        m = re.fullmatch(r"step_(\d+)", name)
        if m and os.path.isdir(os.path.join(checkpoint_dir, name)):
            steps.append((int(m.group(1)), os.path.join(checkpoint_dir, name)))
    if not steps:
        raise ExportError(f"no complete checkpoints/step_N in {checkpoint_dir} (did training save any?)")
    step, d = max(steps)
    if os.path.isfile(os.path.join(d, "model.pt")):
        return step, d
    if os.path.isfile(os.path.join(d, "model.0.pt")):
        raise ExportError(f"{d} is tensor-parallel (model.N.pt shards); only single-shard (tp=1) exports are supported")
    raise ExportError(f"{d} holds no model.pt")


def to_hf_state_dict(fs2, config):
    import torch

    heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads") or heads
    dim = config["hidden_size"]
    head_dim = dim // heads  # what fairseq2 0.4's loader assumes when it permutes

    def unpermute(w, n):  # fairseq2 keeps each head's rotary pairs interleaved; HF keeps them in two halves
        return w.reshape(n, head_dim // 2, 2, dim).transpose(1, 2).reshape(n * head_dim, dim)

    out = {}
    for key, tensor in fs2.items():
        key = WRAPPERS.sub("", key)
        if IGNORED.search(key):
            continue
        for pattern, repl in KEY_MAP:
            if re.match(pattern, key):
                name = re.sub(pattern, repl, key)
                break
        else:
            raise ExportError(f"unexpected tensor {key} in the fairseq2 checkpoint (not a Llama model?)")
        if not isinstance(tensor, torch.Tensor):
            raise ExportError(f"{key} is not a tensor")
        if name.endswith("self_attn.q_proj.weight"):
            tensor = unpermute(tensor, heads)
        elif name.endswith("self_attn.k_proj.weight"):
            tensor = unpermute(tensor, kv_heads)
        out[name] = tensor
    if config.get("tie_word_embeddings"):
        out.pop("lm_head.weight", None)  # tied to model.embed_tokens.weight
    return out


def cast(state, config):
    import torch

    name = config.get("torch_dtype") or config.get("dtype") or "bfloat16"
    dtype = getattr(torch, str(name).replace("torch.", ""), None)
    if not isinstance(dtype, torch.dtype):
        raise ExportError(f"unknown dtype {name!r} in the base config.json")
    seen, out = set(), {}
    for k, t in state.items():
        t = (t.to(dtype) if t.is_floating_point() else t).contiguous()
        if t.data_ptr() in seen:  # safetensors refuses shared storage
            t = t.clone()
        seen.add(t.data_ptr())
        out[k] = t
    return out


def export(checkpoint_dir, base, out):
    import torch
    from safetensors.torch import save_file

    config_file = os.path.join(base, "config.json")
    if not os.path.isfile(config_file):
        raise ExportError(f"no config.json in the base model {base}")
    with open(config_file, encoding="utf-8") as f:
        config = json.load(f)
    if config.get("model_type") != "llama":
        raise ExportError(f"the base model is {config.get('model_type')!r}, but fairseq2 0.4 trains Llama models only")
    step, step_dir = latest_step(checkpoint_dir)
    checkpoint = torch.load(os.path.join(step_dir, "model.pt"), map_location="cpu", weights_only=True)
    fs2 = checkpoint.get(checkpoint.get("model_key", "model")) if isinstance(checkpoint, dict) else None
    if not isinstance(fs2, dict):
        raise ExportError(f"{step_dir}/model.pt holds no model state dict")
    state = cast(to_hf_state_dict(fs2, config), config)

    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    save_file(state, os.path.join(tmp, "model.safetensors"), metadata={"format": "pt"})
    for rel in BASE_FILES:
        src = os.path.join(base, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(tmp, rel))
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    return step, step_dir


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--checkpoint-dir", required=True)
    ap.add_argument("--base", required=True, help="the Hugging Face directory training started from")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        step, step_dir = export(a.checkpoint_dir, a.base, a.out)
    except (ExportError, OSError, KeyError, RuntimeError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    print(f"collab-loop-checkpoint {json.dumps({'path': step_dir, 'step': step})}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
