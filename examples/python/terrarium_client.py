"""A dependency-free client for Terrarium's environment server (plain HTTP + JSON).

Every example in this folder goes through it. Standard library only, so it runs wherever a trainer
runs. The server speaks the contract in GET /v1/openapi.json.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any, Optional


class TerrariumError(RuntimeError):
    """A refusal: `message` as the server worded it, `issues` the fields at fault ({field, message})."""

    def __init__(self, status: int, message: str, issues: Optional[list] = None):
        self.status = status
        self.issues = issues or []
        # Each issue the message does not already say is added, so a server that words its message
        # generically ("bad step: ...") still shows the field at fault where only str(error) is read.
        unsaid = []
        for issue in self.issues:
            if not isinstance(issue, dict):
                continue
            said = f"{issue.get('field') or 'body'}: {issue.get('message', '')}"
            if said not in message:
                unsaid.append(said)
        super().__init__(f"HTTP {status}: {message}" + (f" ({'; '.join(unsaid)})" if unsaid else ""))


class TerrariumClient:
    """One connection setting (base URL + program token); sessions are ids the server hands out."""

    def __init__(self, base_url: Optional[str] = None, token: Optional[str] = None, retries: int = 20):
        self.base_url = (base_url or os.environ.get("TERRARIUM_URL", "http://127.0.0.1:4317")).rstrip("/")
        self.token = token or os.environ.get("TERRARIUM_TOKEN", "")
        self.retries = retries

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"authorization": f"Bearer {self.token}"}
        if data is not None:
            headers["content-type"] = "application/json"
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    text = response.read().decode("utf-8")
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as error:
                text = error.read().decode("utf-8")
                # 503 means "full, come back later": the server asks for back-off, not for failure.
                if error.code == 503 and attempt < self.retries:
                    time.sleep(float(error.headers.get("retry-after", "1")))
                    continue
                try:
                    refusal = json.loads(text)["error"]
                    message, issues = refusal["message"], refusal.get("issues")
                except (ValueError, KeyError, TypeError, AttributeError):
                    message, issues = text, None
                raise TerrariumError(error.code, message, issues if isinstance(issues, list) else None) from None
        raise TerrariumError(503, "the server stayed full")

    def create(self, task: Optional[str] = None, world: Optional[str] = None, seed: int = 0,
               params: Optional[dict] = None, max_steps: Optional[int] = None) -> dict:
        body: dict = {"seed": seed}
        if task is not None:
            body["task"] = task
        if world is not None:
            body["world"] = world
        if params is not None:
            body["params"] = params
        if max_steps is not None:
            body["maxSteps"] = max_steps
        return self._call("POST", "/v1/envs", body)

    def step(self, session_id: str, action: Any) -> dict:
        """`action`: a shell line (str) or an OpenAI tool call dict."""
        return self._call("POST", f"/v1/envs/{session_id}/step", {"action": action})

    def state(self, session_id: str) -> dict:
        return self._call("GET", f"/v1/envs/{session_id}/state")

    def fork(self, session_id: str) -> dict:
        return self._call("POST", f"/v1/envs/{session_id}/fork")

    def evaluate(self, session_id: str) -> dict:
        return self._call("POST", f"/v1/envs/{session_id}/evaluate")

    def delete(self, session_id: str) -> None:
        try:
            self._call("DELETE", f"/v1/envs/{session_id}")
        except TerrariumError as error:
            if error.status != 404:  # already expired: nothing to release
                raise
