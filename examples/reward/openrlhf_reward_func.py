"""An OpenRLHF reward function backed by Terrarium: `--reward.remote_url openrlhf_reward_func.py`.

OpenRLHF calls `reward_func(queries, prompts, labels)`; this forwards the batch to
/v1/reward/openrlhf (rule set from TERRARIUM_RULE_SET, default `default-tool`) and returns the
rewards, the scores used for dynamic filtering and one log per breakdown entry.
"""

import os
import urllib.parse

from terrarium_reward import post

RULE_SET = os.environ.get("TERRARIUM_RULE_SET", "default-tool")


def reward_func(queries, prompts, labels, **kwargs):
    path = "/v1/reward/openrlhf?" + urllib.parse.urlencode({"ruleSet": RULE_SET})
    answer = post(path, {"query": list(queries), "prompts": list(prompts), "labels": list(labels)})
    try:
        import torch  # OpenRLHF expects tensors; without torch (a dry run) plain lists are returned.

        as_tensor = torch.tensor
    except ImportError:

        def as_tensor(values):
            return values

    return {
        "rewards": as_tensor(answer["rewards"]),
        "scores": as_tensor(answer["scores"]),
        "extra_logs": {key: as_tensor(values) for key, values in answer["extra_logs"].items()},
    }


if __name__ == "__main__":
    prompt = "ls /data\n"
    print(reward_func([prompt + "a.txt\nb.txt"], [prompt], ["a.txt\nb.txt\nc.txt"]))
