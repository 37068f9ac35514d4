"""Online DPO's prompts and reward for trl_train.py (trainer: {kind: trl, method: online_dpo}).

TRL's OnlineDPOTrainer (trl.experimental.online_dpo in TRL 1.x) samples two completions per prompt, asks its reward
functions for a number for each, and trains DPO with the higher one as chosen (the first on a tie). microsoft/CollabLLM
scripts/train/online_dpo.py does the same through TRL 0.x's `judge=`, which TRL 1.x dropped: its MultiturnRewardJudge
returns the argmax of the two completions' multiturn-aware rewards (futures in which a simulated user answers and the
policy plays the assistant, judged by the task's metrics). MultiturnReward is that reward here: the user turns and the judging come from the recipe's reward service (the same service, and the same
/user-turn and /score protocol, as verl's plug-ins in verl_collab_loop.py), the assistant turns from the model TRL is
training.

A future: the completion, then at most `max_user_turns` user turns, with an assistant turn between two user turns while
the assistant turns (the completion counted) stay below `max_assistant_turns` — verl's multi-turn caps, so the
default 2 and 3 play user, assistant, user as verl-recipe's collabllm/train_rl_collabllm.sh does (the seed's script
plays up to 4 new turns; raise both caps for longer futures). A user turn the service marks `terminate` ends the future.

A completion the service could not score (every future failed) gets None; TRL turns it into NaN and sums rewards with
nansum, so it counts as 0 against the other completion of its pair.
"""
import hashlib
import json

from verl_collab_loop import _messages, post

INTERACTION = "interaction"  # the dataset column holding each prompt's interaction kwargs, as JSON text


class PromptError(Exception):
    pass


def read_prompts(path):
    """The converter's rl_train.parquet -> rows {"prompt": messages, "interaction": JSON text}; PromptError names the
    row and field of the first bad one."""
    import pyarrow.parquet as pq

    rows = []
    for i, row in enumerate(pq.read_table(path).to_pylist(), 1):
        prompt = row.get("prompt")
        kwargs = (row.get("extra_info") or {}).get("interaction_kwargs")
        if not isinstance(prompt, list) or not prompt or prompt[-1].get("role") != "user":
            raise PromptError(f'row {i}: field "prompt" must be a list of messages ending with a user turn')
        if not isinstance(kwargs, dict):
            raise PromptError(f'row {i}: field "extra_info.interaction_kwargs" must be an object')
        rows.append({"prompt": _messages(prompt), INTERACTION: json.dumps({k: v for k, v in kwargs.items() if v is not None})})
    if not rows:
        raise PromptError("has no rows")
    return rows


class MultiturnReward:
    """A reward function for OnlineDPOTrainer(reward_funcs=[...]); bind(trainer) before training gives it the policy."""

    __name__ = "multiturn_reward"  # TRL logs a reward function under its name

    def __init__(self, url, futures, max_user_turns, max_assistant_turns, max_new_tokens, temperature):
        self.url = url.rstrip("/")
        self.futures = futures
        self.max_user_turns = max_user_turns
        self.max_assistant_turns = max_assistant_turns
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.trainer = None

    def bind(self, trainer):
        self.trainer = trainer

    def __call__(self, prompts, completions, interaction, **kwargs):
        return [self.score(p, c, json.loads(i)) for p, c, i in zip(prompts, completions, interaction, strict=True)]

    def score(self, prompt, completion, interaction):
        start = _messages(prompt) + _messages(completion)
        # Request keys name the conversation, so a resumed run asks the service's durable cache the same questions.
        key = hashlib.sha256(json.dumps(start).encode("utf-8")).hexdigest()[:16]
        futures = [self.play(f"{key}/f{k}", list(start), interaction) for k in range(self.futures)]
        body = {"key": key, "interaction": interaction, "prompt_length": len(prompt), "futures": futures}
        return post(self.url, "/score", body)["score"]

    def play(self, key, messages, interaction):
        assistant_turns, user_turns = 1, 0
        while user_turns < self.max_user_turns:
            turn = post(self.url, "/user-turn", {"key": f"{key}/u{user_turns}", "interaction": interaction, "messages": messages})
            messages.append({"role": "user", "content": turn["text"]})
            user_turns += 1
            if turn["terminate"] or user_turns >= self.max_user_turns or assistant_turns + 1 >= self.max_assistant_turns:
                break
            messages.append({"role": "assistant", "content": self.generate(messages)})
            assistant_turns += 1
        return messages

    def generate(self, messages):
        """The policy's next turn, sampled from the model being trained (as in the seed, the policy plays the
        assistant of the futures)."""
        import torch
        from trl.models.utils import unwrap_model_for_generation

        if self.trainer is None:
            raise RuntimeError("MultiturnReward: bind(trainer) before training")
        t = self.trainer
        tokenizer = t.processing_class
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        # As OnlineDPOTrainer._generate unwraps the policy for its completions (DeepSpeed ZeRO-3 gathers parameters).
        with unwrap_model_for_generation(t.model_wrapped, t.accelerator, gather_deepspeed3_params=t.args.ds3_gather_for_generation) as model:
            ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
            ids = {k: v.to(model.device) for k, v in ids.items()}
            was_training = model.training
            model.eval()  # no dropout while playing the future
            try:
                with torch.no_grad():
                    out = model.generate(
                        **ids, max_new_tokens=self.max_new_tokens, do_sample=True, temperature=self.temperature, pad_token_id=pad,
                    )
            finally:
                model.train(was_training)
        return tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
