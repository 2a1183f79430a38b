"""A verl tool (`BaseTool` subclass) whose instances are Terrarium sessions.

verl calls `create` per trajectory, `execute` per tool call, `calc_reward` at the end and
`release` afterwards. When verl is not installed (it is not on this machine), a stand-in base class
with the same method names lets the same code run against the server in the smoke test.
"""

from __future__ import annotations

from typing import Any, Optional

from terrarium_client import TerrariumClient

try:  # pragma: no cover - exercised only where verl is installed
    from verl.tools.base_tool import BaseTool  # type: ignore
except ImportError:  # the import-free path used here
    class BaseTool:  # type: ignore[no-redef]
        def __init__(self, config: dict, tool_schema: Any):
            self.config = config
            self.tool_schema = tool_schema

        def get_openai_tool_schema(self) -> Any:
            return self.tool_schema


BASH_SCHEMA = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run one shell command line in the task's world and see its output.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
}


class TerrariumBashTool(BaseTool):
    def __init__(self, config: dict, tool_schema: Any = None):
        super().__init__(config, tool_schema or BASH_SCHEMA)
        self.client = TerrariumClient(config.get("base_url"), config.get("token"))
        self.task = config.get("task", "scratch-last-line")
        self._sessions: dict = {}

    async def create(self, instance_id: Optional[str] = None, **kwargs) -> str:
        opened = self.client.create(task=kwargs.get("task", self.task), seed=int(kwargs.get("seed", 0)))
        key = instance_id or opened["id"]
        self._sessions[key] = opened["id"]
        return key

    async def execute(self, instance_id: str, parameters: dict, **kwargs):
        result = self.client.step(self._sessions[instance_id], {
            "type": "function",
            "function": {"name": "bash", "arguments": {"command": str(parameters.get("command", ""))}},
        })
        # Step rewards are 0 until the episode ends; the verifier's reward comes from calc_reward.
        return result["observation"], float(result["reward"]), dict(result["info"])

    async def calc_reward(self, instance_id: str, **kwargs) -> float:
        return float(self.client.evaluate(self._sessions[instance_id])["reward"])

    async def release(self, instance_id: str, **kwargs) -> None:
        session = self._sessions.pop(instance_id, None)
        if session is not None:
            self.client.delete(session)
