"""verl custom reward functions backed by Terrarium's /v1/reward.

    custom_reward_function.path=examples/reward/verl_reward.py
    custom_reward_function.name=compute_score            # the default (naive) reward manager
    # or, with reward_model.reward_manager=batch:
    custom_reward_function.name=compute_score_batch

`ground_truth` is the real observation; `extra_info` may carry `history` (a string or a list of
{action, observation}), `action` and `domain`, and `rule_set` (a name, default `default-tool`).
"""

from terrarium_reward import reward


def _item(solution_str, ground_truth, extra_info):
    extra = extra_info or {}
    item = {"prediction": solution_str, "reference": ground_truth}
    for key in ("history", "action", "domain"):
        if key in extra:
            item[key] = extra[key]
    return item


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    rule_set = (extra_info or {}).get("rule_set", "default-tool")
    result = reward([_item(solution_str, ground_truth, extra_info)], {"name": rule_set})[0]
    # verl logs every key of a dict result; "score" is the reward.
    details = {entry["id"]: entry["score"] for entry in result["breakdown"] if entry["score"] is not None}
    return {"score": result["score"], **details}


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos):
    infos = extra_infos or [None] * len(solution_strs)
    rule_set = (infos[0] or {}).get("rule_set", "default-tool") if infos else "default-tool"
    items = [_item(s, g, e) for s, g, e in zip(solution_strs, ground_truths, infos)]
    return [result["score"] for result in reward(items, {"name": rule_set})]


if __name__ == "__main__":
    print(compute_score("terrarium", "a.txt\nb.txt", "a.txt\nb.txt\nc.txt", {"action": "ls /data", "domain": "terminal"}))
    print(compute_score_batch(["t", "t"], ["landed", "delayed"], ["landed", "landed"], None))
