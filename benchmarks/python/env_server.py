"""The environment-server contract in FastAPI + uvicorn, with the scratch world ported line for line
from packages/curriculum/src/worlds/scratch-world.ts (same PRNG, files, commands and outputs).

It is the OpenEnv / NeMo Gym style baseline of benchmarks/env-server-throughput.ts:
    uvicorn env_server:app --host 127.0.0.1 --port PORT --log-level warning
Only what the benchmark drives is here: create, step (raw text), delete; bearer token from
ENV_TOKEN.
"""

from __future__ import annotations

import os
import re
import uuid
from typing import Any, Optional, Union

from fastapi import FastAPI, Header, HTTPException, Response
from pydantic import BaseModel

TOKEN = os.environ.get("ENV_TOKEN", "bench-token")
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
MASK = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return (a * b) & MASK


def seeded_random(seed: int):
    state = seed & MASK

    def next_value() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & MASK
        t = state
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & MASK
        return ((t ^ (t >> 14)) & MASK) / 4294967296

    return next_value


def initial_files(files: int, seed: int, extra: dict) -> dict:
    random = seeded_random(seed)
    out = {}
    for i in range(files):
        count = 1 + int(random() * 4)
        lines = [WORDS[int(random() * len(WORDS))] for _ in range(count)]
        out[f"/data/file-{i}.txt"] = "\n".join(lines) + "\n"
    out.update(extra)
    return out


WORD = re.compile(r"\"([^\"]*)\"|'([^']*)'|(\S+)")
REDIRECT = re.compile(r"^(.*?)\s*(>>?)\s*(\S+)\s*$")


class ScratchWorld:
    def __init__(self, files: dict):
        self.files = dict(files)
        self.cwd = "/"
        self.steps = 0

    def resolve(self, path: str) -> str:
        absolute = path if path.startswith("/") else self.cwd.rstrip("/") + "/" + path
        parts: list = []
        for part in absolute.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
            else:
                parts.append(part)
        return "/" + "/".join(parts)

    def run(self, line: str):
        self.steps += 1
        match = REDIRECT.match(line)
        command, mode, target = (match.group(1), match.group(2), match.group(3)) if match else (line, None, None)
        words = [m.group(1) or m.group(2) or m.group(3) or "" for m in WORD.finditer(command)]
        name, args = (words[0], words[1:]) if words else ("", [])
        output, code = self.run_words(name, args)
        if mode is None or code != 0:
            return output, code
        path = self.resolve(target)
        self.files[path] = (self.files.get(path, "") + output) if mode == ">>" else output
        return "", 0

    def run_words(self, name: str, args: list):
        if name in ("", "true"):
            return "", 0
        if name == "echo":
            return (" ".join(args[1:]), 0) if args[:1] == ["-n"] else (" ".join(args) + "\n", 0)
        if name == "pwd":
            return self.cwd + "\n", 0
        if name == "cd":
            self.cwd = self.resolve(args[0] if args else "/")
            return "", 0
        if name == "cat":
            output = ""
            for arg in args:
                content = self.files.get(self.resolve(arg))
                if content is None:
                    return f"cat: {arg}: No such file or directory\n", 1
                output += content
            return output, 0
        if name == "wc":
            path = args[-1] if args else ""
            content = self.files.get(self.resolve(path))
            if args[:1] != ["-l"] or content is None:
                return f"wc: {path}: cannot count\n", 1
            return f"{len(content.split(chr(10))) - 1} {path}\n", 0
        if name == "ls":
            directory = self.resolve(args[0] if args else ".")
            prefix = "/" if directory == "/" else directory + "/"
            names = sorted({p[len(prefix):].split("/")[0] for p in self.files if p.startswith(prefix)})
            return "".join(n + "\n" for n in names), 0
        if name == "rm":
            for arg in args:
                if self.files.pop(self.resolve(arg), None) is None:
                    return f"rm: cannot remove '{arg}': No such file or directory\n", 1
            return "", 0
        return f"scratch: {name}: command not found\n", 127


class CreateRequest(BaseModel):
    world: Optional[str] = None
    task: Optional[str] = None
    seed: int = 0
    params: dict = {}


class StepRequest(BaseModel):
    action: Union[str, dict]


app = FastAPI()
SESSIONS: dict = {}


def authorize(authorization: Optional[str]) -> None:
    if authorization != f"Bearer {TOKEN}":
        raise HTTPException(status_code=401, detail="wrong or missing bearer token")


@app.post("/v1/envs", status_code=201)
def create(body: CreateRequest, authorization: Optional[str] = Header(default=None)) -> dict:
    authorize(authorization)
    files = int(body.params.get("files", 3))
    world = ScratchWorld(initial_files(files, body.seed, body.params.get("extra", {})))
    session_id = str(uuid.uuid4())
    SESSIONS[session_id] = world
    return {"id": session_id, "observation": "", "tools": [], "info": {"world": "scratch", "seed": body.seed}}


@app.post("/v1/envs/{session_id}/step")
def step(session_id: str, body: StepRequest, authorization: Optional[str] = Header(default=None)) -> dict:
    authorize(authorization)
    world = SESSIONS.get(session_id)
    if world is None:
        raise HTTPException(status_code=404, detail=f"no session {session_id}")
    action: Any = body.action
    line = action if isinstance(action, str) else str(action.get("function", {}).get("arguments", ""))
    output, code = world.run(line)
    return {"observation": output, "reward": 0, "terminated": False, "truncated": False,
            "info": {"steps": world.steps, "exitCode": code, "provenance": "executed"}}


@app.delete("/v1/envs/{session_id}", status_code=204)
def delete(session_id: str, authorization: Optional[str] = Header(default=None)) -> Response:
    authorize(authorization)
    if SESSIONS.pop(session_id, None) is None:
        raise HTTPException(status_code=404, detail=f"no session {session_id}")
    return Response(status_code=204)
