"""CLIP image embeddings of page screenshots, as one long-lived process (activities/render/clip-similarity.ts).

ColBench's html score (facebookresearch/sweet_rl scripts/evaluate_html.py) is the cosine of two CLIP image
embeddings: each PNG opened with PIL and converted to RGB, transformers' CLIP image processor (as the checkpoint's
preprocessor_config.json says: for openai/clip-vit-base-patch32 the shortest edge resized to 224 px, bicubic, a
centre crop of 224 x 224, CLIP mean/std), CLIPModel.get_image_features, L2-normalised. This process does the same
with the PIL backend (the seed's transformers 4 processor was PIL/numpy) and answers one JSON line per request:

    {"id": 7, "images": ["<base64 PNG>", ...]}  ->  {"id": 7, "embeddings": [[...], ...], "served": N}
    an image PIL cannot read                     ->  {"id": 7, "error": "..."}

`served` counts the images this process has embedded so far. The first line out is
{"ready": true, "pid": ..., "model": DIR, "dim": D}; a model that cannot be loaded is reported on stderr, exit 2.

    clip_embed.py --model DIR
"""

import argparse
import base64
import binascii
import io
import json
import os
import sys

# Everything is local; a stray hub lookup must fail fast instead of hanging on an air-gapped machine.
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def load(model_dir):
    import torch
    from transformers import AutoImageProcessor, CLIPModel
    from transformers.utils import logging as hf_logging

    # One intra-op thread: this process shares its worker's cores with the scoring lanes and Chromium, and torch's
    # spinning thread pool then oversubscribes them. Measured on 2 busy cores, a ViT-B/32-sized CLIP: 0.24 s per
    # image with 1 thread, 1.3 s with 2 (tiny-clip: 3 ms vs 150 ms).
    torch.set_num_threads(1)
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()  # stderr is kept for real failures, which the caller reports
    model = CLIPModel.from_pretrained(model_dir, local_files_only=True).eval()
    processor = AutoImageProcessor.from_pretrained(model_dir, local_files_only=True, backend="pil")
    return torch, model, processor


def embed(torch, model, processor, images):
    from PIL import Image

    pictures = [Image.open(io.BytesIO(base64.b64decode(b, validate=True))).convert("RGB") for b in images]
    inputs = processor(images=pictures, return_tensors="pt")
    with torch.no_grad():
        features = model.get_image_features(pixel_values=inputs["pixel_values"]).pooler_output
    features = features / features.norm(dim=-1, keepdim=True)
    return features.tolist()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a CLIP checkpoint directory (save_pretrained)")
    args = parser.parse_args()
    try:
        torch, model, processor = load(args.model)
    except Exception as e:  # reported to the caller, which names the model directory
        print(f"cannot load a CLIP model from {args.model}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    ready = {"ready": True, "pid": os.getpid(), "model": args.model, "dim": model.config.projection_dim}
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()
    served = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)  # the caller writes these lines; a malformed one is a bug that should end the process
        try:
            embeddings = embed(torch, model, processor, req["images"])
        except (OSError, ValueError, binascii.Error) as e:  # PIL.UnidentifiedImageError is an OSError
            answer = {"id": req["id"], "error": f"cannot read a PNG: {e}"}
        else:
            served += len(embeddings)
            answer = {"id": req["id"], "embeddings": embeddings, "served": served}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
