"""A Gymnasium `Env` over one Terrarium environment-server session.

Observations and actions are text (`gymnasium.spaces.Text`). `reset(seed=…)` opens a fresh
session with that seed (the server is deterministic for a seed); `step(text)` sends a shell line,
`submit` ends the episode with the verifier's reward.
"""

from __future__ import annotations

import string
from typing import Any, Optional

import gymnasium as gym
from gymnasium import spaces

from terrarium_client import TerrariumClient

CHARSET = string.printable


def _fit(text: str, limit: int) -> str:
    # Text spaces hold only their charset and length; the server may send anything.
    allowed = set(CHARSET)
    return "".join(ch if ch in allowed else "?" for ch in text[:limit])


class TerrariumEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, task: Optional[str] = "scratch-last-line", world: Optional[str] = None,
                 client: Optional[TerrariumClient] = None, max_observation_chars: int = 4096,
                 max_action_chars: int = 512, params: Optional[dict] = None):
        super().__init__()
        self.client = client or TerrariumClient()
        self.task = task
        self.world = world
        self.params = params
        self.max_observation_chars = max_observation_chars
        self.observation_space = spaces.Text(max_length=max_observation_chars, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(max_length=max_action_chars, min_length=1, charset=CHARSET)
        self.session_id: Optional[str] = None
        self.tools: list = []

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self._release()
        # Without a seed, draw one from the env's own generator so reset(seed=s) stays reproducible.
        session_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        opened = self.client.create(task=self.task, world=self.world, seed=session_seed, params=self.params)
        self.session_id = opened["id"]
        self.tools = opened["tools"]
        info = dict(opened["info"])
        return _fit(opened["observation"], self.max_observation_chars), info

    def step(self, action: Any):
        if self.session_id is None:
            raise RuntimeError("call reset() before step()")
        result = self.client.step(self.session_id, action)
        return (
            _fit(result["observation"], self.max_observation_chars),
            float(result["reward"]),
            bool(result["terminated"]),
            bool(result["truncated"]),
            dict(result["info"]),
        )

    def fork(self) -> "TerrariumEnv":
        """A second env whose session has this one's exact state (the server verifies nothing is shared)."""
        if self.session_id is None:
            raise RuntimeError("call reset() before fork()")
        other = TerrariumEnv(task=self.task, world=self.world, client=self.client,
                             max_observation_chars=self.max_observation_chars, params=self.params)
        opened = self.client.fork(self.session_id)
        other.session_id = opened["id"]
        other.tools = opened["tools"]
        return other

    def _release(self) -> None:
        if self.session_id is not None:
            self.client.delete(self.session_id)
            self.session_id = None

    def close(self):
        self._release()
        super().close()
