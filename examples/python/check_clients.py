"""Runs every client in this folder against a live server and prints one JSON report.

Usage: TERRARIUM_URL=http://127.0.0.1:PORT TERRARIUM_TOKEN=… python3 examples/python/check_clients.py
Exit status 0 when every check held.
"""

from __future__ import annotations

import asyncio
import json
import sys
import warnings

from terrarium_client import TerrariumClient

ORACLE = ["cat /data/notes.txt", "echo charlie > /data/last.txt"]


def check_gymnasium() -> dict:
    from gymnasium.utils.env_checker import check_env

    from gym_env import TerrariumEnv

    env = TerrariumEnv()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    env.reset(seed=5)
    for command in ORACLE:
        env.step(command)
    fork = env.fork()
    obs, reward, terminated, truncated, _ = env.step("submit")
    fork_obs, fork_reward, fork_terminated, _, _ = fork.step("submit")
    fork.close()
    env.close()
    return {
        "check_env": "passed",
        "warnings": sorted({str(w.message).split(".")[0] for w in caught}),
        "reward": reward,
        "terminated": terminated,
        "truncated": truncated,
        "fork_same": [fork_obs, fork_reward, fork_terminated] == [obs, reward, terminated],
    }


async def check_verl() -> dict:
    from verl_tool import TerrariumBashTool

    tool = TerrariumBashTool({})
    instance = await tool.create("trajectory-0")
    outputs = [(await tool.execute(instance, {"command": command}))[0] for command in ORACLE]
    reward = await tool.calc_reward(instance)
    await tool.release(instance)
    return {"outputs": outputs, "reward": reward}


async def check_openrlhf() -> dict:
    from openrlhf_agent import AgentInstance

    agent = AgentInstance()
    first = await agent.reset({"observation": "", "label": "scratch-count-lines"})
    turn = await agent.step({"action_text": "<bash>wc -l /data/notes.txt</bash>"})
    final = await agent.step({"action_text": "3"})
    return {"prompt": first["observation"], "feedback": turn["environment_feedback"],
            "reward": final["rewards"], "done": final["done"]}


def check_skyrl() -> dict:
    from skyrl_env import TerrariumTextEnv

    env = TerrariumTextEnv(extras={"task": "scratch-last-line"})
    prompt, _ = env.init([{"role": "system", "content": "You act in a shell."}])
    outputs = [env.step(command)["observations"] for command in ORACLE]
    final = env.step("submit")
    env.close()
    return {"prompt_turns": len(prompt), "outputs": outputs, "reward": final["reward"], "done": final["done"]}


def main() -> int:
    TerrariumClient()._call("GET", "/v1/worlds")  # fail fast on a wrong URL or token
    report = {
        "gymnasium": check_gymnasium(),
        "verl": asyncio.run(check_verl()),
        "openrlhf": asyncio.run(check_openrlhf()),
        "skyrl": check_skyrl(),
    }
    print(json.dumps(report))
    ok = (report["gymnasium"]["reward"] == 1.0 and report["gymnasium"]["fork_same"]
          and report["verl"]["reward"] == 1.0 and report["openrlhf"]["reward"] == 1.0
          and report["skyrl"]["reward"] == 1.0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
