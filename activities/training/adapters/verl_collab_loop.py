"""collab-loop's plug-ins for verl online RL (trainer: {kind: verl, method: grpo | ppo}; the adapter is
activities/training/adapters/verl-grpo.ts); TRL's online DPO (trl_online_dpo.py) relays through post() too. They only relay: the user simulator, the metrics and how futures combine
into one reward live in the recipe's reward service (CollabLLM: activities/recipes/collabllm/reward-service.ts),
which the train stage runs beside verl.

  CollabLoopInteraction   verl interaction (interaction.yaml's class_name): a future's user turns.
                          POST {url}/user-turn {"key", "interaction": <the row's interaction_kwargs>, "messages"}
                          -> {"text", "terminate"}
  score_futures           the reward function (custom_reward_function.name): one response's futures.
                          POST {url}/score {"key", "interaction", "prompt_length", "futures": [[message, ...], ...]}
                          -> {"score": float or null, "used", "missing", "per_metric"}
  CollabLoopRewardManager reward_model.reward_manager=collab_loop: reads the futures verl's agent loop (verl-recipe's
                          CollabLLMAgentLoop) leaves in non_tensor_batch["messages"], scores each response with
                          score_futures and writes the reward on its last token.

A response whose futures could not be scored (every judge or simulator call failed) has no reward. verl needs a
number, so it gets the mean reward of the scored responses to the same prompt (its GRPO group, non_tensor_batch
"uid"): its advantage is then 0 and it teaches nothing, where a made-up 0 would push the policy (verl's own CollabLLM
manager fills 0). Without any scored response in the group every reward of the group is 0: no advantage either.

The service's address: the interaction's config "reward_url", else the environment variable COLLAB_LOOP_REWARD_URL.
A connection error, a timeout or a 5xx answer is retried (COLLAB_LOOP_REWARD_RETRIES, default 3, with backoff); a 4xx
answer is a bad row and raises at once. Standard library only, plus verl and torch where verl runs."""
import asyncio
import json
import os
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

ENV_URL = "COLLAB_LOOP_REWARD_URL"
ENV_RETRIES = "COLLAB_LOOP_REWARD_RETRIES"
TIMEOUT_S = 1800  # a whole batch's futures are judged at once: minutes, not seconds
SCORE_THREADS = 32


class RewardServiceError(RuntimeError):
    pass


def _plain(v):
    """numpy arrays (verl reads parquet with pandas) and pydantic messages -> plain lists and dicts."""
    if hasattr(v, "model_dump"):
        v = v.model_dump()
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def _messages(ms):
    return [{"role": m["role"], "content": m["content"] if isinstance(m["content"], str) else ""} for m in _plain(ms)]


def service_url(config=None):
    url = (config or {}).get("reward_url") or os.environ.get(ENV_URL)
    if not url:
        raise RewardServiceError(f"verl_collab_loop: no reward service address (set {ENV_URL} or the interaction's reward_url)")
    return url.rstrip("/")


def post(url, route, body):
    """POST JSON with bounded retries on transport errors and 5xx; a 4xx raises ValueError with the service's reason."""
    retries = int(os.environ.get(ENV_RETRIES) or 3)
    data = json.dumps(body).encode("utf-8")
    last = None
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(min(2.0**attempt, 30.0))
        req = urllib.request.Request(url + route, data=data, headers={"content-type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
                return json.loads(r.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            try:
                reason = json.loads(e.read().decode("utf-8")).get("error", str(e))
            except Exception:
                reason = str(e)
            if e.code < 500:
                raise ValueError(f"verl_collab_loop: {route} rejected the request ({e.code}): {reason}") from None
            last = f"HTTP {e.code}: {reason}"
        except (urllib.error.URLError, OSError) as e:
            last = str(getattr(e, "reason", e))
    raise RewardServiceError(f"verl_collab_loop: no answer from {url}{route} after {retries + 1} attempts; last error: {last}")


try:  # verl's base class where verl runs; plain `object` elsewhere (the tests drive the class directly)
    from verl.interactions.base import BaseInteraction
except ImportError:
    BaseInteraction = object


class CollabLoopInteraction(BaseInteraction):
    """The user of a future. verl deep-copies a response's state once per future, so all futures share its
    instance id; a per-instance call counter gives every user turn its own request key (and its own sample)."""

    def __init__(self, config):
        self.config = dict(config or {})
        self.name = self.config.get("name", "collab_loop")
        self.url = service_url(self.config)
        self._state = {}

    async def start_interaction(self, instance_id=None, **kwargs):
        if instance_id is None:
            import uuid

            instance_id = uuid.uuid4().hex
        self._state[instance_id] = {"interaction": _plain(kwargs), "calls": 0}
        return instance_id

    async def generate_response(self, instance_id, messages, **kwargs):
        state = self._state.get(instance_id)
        if state is None:  # verl passes the row's interaction_kwargs again on every turn
            state = self._state[instance_id] = {"interaction": _plain(kwargs), "calls": 0}
        state["calls"] += 1
        body = {"key": f"{instance_id}/u{state['calls']}", "interaction": state["interaction"], "messages": _messages(messages)}
        answer = await asyncio.to_thread(post, self.url, "/user-turn", body)
        return bool(answer["terminate"]), str(answer["text"]), 0.0, {}

    async def calculate_score(self, *args, **kwargs):
        return 0.0

    async def finalize_interaction(self, instance_id=None, **kwargs):
        self._state.pop(instance_id, None)


def score_futures(data_source, futures, ground_truth, extra_info, **kwargs):
    """One response's reward from its futures (each: the prompt, the response, then the future's messages).
    Returns the service's answer: {"score": float or None, "used", "missing", "per_metric"}."""
    info = _plain(extra_info) or {}
    prompt = info.get("prompt")
    if not isinstance(prompt, list) or not prompt:
        raise ValueError('verl_collab_loop: extra_info["prompt"] must be the prompt messages (rows from the recipe\'s converter)')
    body = {
        "key": str(info.get("index") or info.get("source") or "row"),
        "interaction": info.get("interaction_kwargs") or {},
        "prompt_length": len(prompt),
        "futures": [_messages(f) for f in _plain(futures)],
    }
    return post(kwargs.get("reward_url") or service_url(), "/score", body)


def group_rewards(scores, groups):
    """Scores (None: no reward) -> floats: an unscored response gets its group's mean, so its GRPO advantage is 0."""
    sums = {}
    for s, g in zip(scores, groups):
        if s is not None:
            total, n = sums.get(g, (0.0, 0))
            sums[g] = (total + s, n + 1)
    return [s if s is not None else (sums[g][0] / sums[g][1] if g in sums else 0.0) for s, g in zip(scores, groups)]


def batch_rewards(compute_score, non_tensor_batch):
    """The rewards of a batch's responses, and what each response's futures gave (for verl's reward_extra_info)."""
    n = len(non_tensor_batch["data_source"])
    futures = [(_plain(non_tensor_batch["messages"][i]) or {}).get("messages") or [] for i in range(n)]
    groups = list(non_tensor_batch["uid"]) if "uid" in non_tensor_batch else list(range(n))

    def one(i):
        if not futures[i]:  # the response hit the length limit or was invalid: the agent loop played no future
            return {"score": None, "used": 0, "missing": 0}
        return compute_score(
            non_tensor_batch["data_source"][i],
            futures[i],
            non_tensor_batch["reward_model"][i].get("ground_truth") if "reward_model" in non_tensor_batch else None,
            non_tensor_batch["extra_info"][i],
        )

    with ThreadPoolExecutor(max_workers=SCORE_THREADS) as pool:
        answers = list(pool.map(one, range(n)))
    scores = [a["score"] for a in answers]
    unscored = sum(s is None for s in scores)
    if unscored:
        print(f"verl_collab_loop: {unscored} of {n} responses have no reward (no future could be scored)", file=sys.stderr, flush=True)
    extra = {
        "collab_loop_scored": [s is not None for s in scores],
        "collab_loop_missing_futures": [int(a.get("missing", 0)) for a in answers],
    }
    return group_rewards(scores, groups), extra


try:
    import torch
    from verl.workers.reward_manager import register
    from verl.workers.reward_manager.abstract import AbstractRewardManager
except ImportError:
    register = None

if register is not None:

    @register("collab_loop")
    class CollabLoopRewardManager(AbstractRewardManager):
        def __init__(self, tokenizer, num_examine, compute_score=None, reward_fn_key="data_source", **kwargs):
            self.tokenizer = tokenizer
            self.compute_score = compute_score or score_futures

        def __call__(self, data, return_dict=False):
            if "rm_scores" in data.batch.keys():
                return {"reward_tensor": data.batch["rm_scores"]} if return_dict else data.batch["rm_scores"]
            prompt_length = data.batch["prompts"].shape[-1]
            valid = data.batch["attention_mask"][:, prompt_length:].sum(dim=-1)
            rewards, extra = batch_rewards(self.compute_score, data.non_tensor_batch)
            reward_tensor = torch.zeros_like(data.batch["responses"], dtype=torch.float32)
            for i, r in enumerate(rewards):
                reward_tensor[i, max(int(valid[i].item()) - 1, 0)] = r
            return {"reward_tensor": reward_tensor, "reward_extra_info": extra} if return_dict else reward_tensor
