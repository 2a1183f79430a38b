"""An OpenRLHF agent function (`--agent_func_path`) backed by Terrarium sessions.

OpenRLHF calls `reset(states)` once per sample and `step(states)` once per model turn; `step`
returns the reward, the text fed back to the model and whether the episode is done. Without
OpenRLHF installed (not on this machine), the stand-in base class keeps the module importable.
"""

from __future__ import annotations

import re
from typing import Any

from terrarium_client import TerrariumClient

try:  # pragma: no cover - exercised only where OpenRLHF is installed
    from openrlhf.utils.agent import AgentInstanceBase  # type: ignore
except ImportError:
    class AgentInstanceBase:  # type: ignore[no-redef]
        pass

_COMMAND = re.compile(r"<bash>(.*?)</bash>", re.S)


def _action_of(text: str) -> str:
    """The model writes `<bash>cmd</bash>` to act, anything else submits it as the answer."""
    match = _COMMAND.search(text)
    return match.group(1).strip() if match else "submit " + text.strip()


class AgentInstance(AgentInstanceBase):
    def __init__(self, *args: Any, **kwargs: Any):
        self.client = TerrariumClient(kwargs.get("base_url"), kwargs.get("token"))
        self.session_id = None

    async def reset(self, states: dict, **kwargs: Any) -> dict:
        task = states.get("label") or "scratch-last-line"
        opened = self.client.create(task=task, seed=int(states.get("seed", 0)))
        self.session_id = opened["id"]
        goal = opened["info"].get("goal") or ""
        return {"observation": f"{states.get('observation', '')}{goal}\n"}

    async def step(self, states: dict, **kwargs: Any) -> dict:
        result = self.client.step(self.session_id, _action_of(states.get("action_text", "")))
        done = bool(result["terminated"] or result["truncated"])
        if done:
            self.client.delete(self.session_id)
        reward = float(result["reward"])
        return {
            "rewards": reward,
            "scores": reward,
            "environment_feedback": "" if done else f"\n<output>{result['observation']}</output>\n",
            "done": done,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": {"steps": result["info"].get("steps", 0)},
        }
