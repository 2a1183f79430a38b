"""A SkyRL-gym text environment (`BaseTextEnv`: `init`, `step`, `close`) over a Terrarium session.

Without skyrl_gym installed (not on this machine), a stand-in base class and output dict keep the
same shape, so the smoke test runs the real protocol against the server.
"""

from __future__ import annotations

from typing import Any, Optional

from terrarium_client import TerrariumClient

try:  # pragma: no cover - exercised only where SkyRL is installed
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput  # type: ignore
except ImportError:
    class BaseTextEnv:  # type: ignore[no-redef]
        def __init__(self):
            self.turns = 0
            self.max_turns = 1

    def BaseTextEnvStepOutput(**fields: Any) -> dict:  # type: ignore[no-redef]  # noqa: N802
        return dict(fields)


class TerrariumTextEnv(BaseTextEnv):
    def __init__(self, env_config: Optional[dict] = None, extras: Optional[dict] = None):
        super().__init__()
        config = env_config or {}
        extras = extras or {}
        self.client = TerrariumClient(config.get("base_url"), config.get("token"))
        self.task = extras.get("task", "scratch-last-line")
        self.seed = int(extras.get("seed", 0))
        self.max_turns = int(extras.get("max_turns", 10))
        self.session_id: Optional[str] = None

    def init(self, prompt: list) -> tuple:
        opened = self.client.create(task=self.task, seed=self.seed)
        self.session_id = opened["id"]
        goal = opened["info"].get("goal") or ""
        return [*prompt, {"role": "user", "content": goal}], {"tools": opened["tools"]}

    def step(self, action: str):
        self.turns += 1
        result = self.client.step(self.session_id, action)
        done = bool(result["terminated"] or result["truncated"] or self.turns >= self.max_turns)
        observations = [] if done else [{"role": "user", "content": result["observation"]}]
        return BaseTextEnvStepOutput(observations=observations, reward=float(result["reward"]), done=done,
                                     metadata=dict(result["info"]))

    def close(self):
        if self.session_id is not None:
            self.client.delete(self.session_id)
            self.session_id = None
