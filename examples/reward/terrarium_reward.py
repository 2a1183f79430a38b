"""A small client for Terrarium's reward service (standard library only).

TERRARIUM_URL (default http://127.0.0.1:4317) and TERRARIUM_TOKEN (printed by `terrarium serve`)
say where the server is and how to authenticate.
"""

import json
import os
import urllib.error
import urllib.request

URL = os.environ.get("TERRARIUM_URL", "http://127.0.0.1:4317").rstrip("/")
TOKEN = os.environ.get("TERRARIUM_TOKEN", "")


def post(path, body, timeout=180):
    """POST a JSON body; returns the parsed answer or raises with the server's message."""
    request = urllib.request.Request(
        URL + path,
        data=json.dumps(body).encode("utf-8"),
        headers={"content-type": "application/json", "authorization": "Bearer " + TOKEN},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{path}: {error.code} {error.read().decode('utf-8', 'replace')}") from None


def reward(items, rule_set):
    """Scores items ({prediction, reference, history?, action?, domain?}) with a rule set.

    rule_set is {"name": ..., "version"?: ...} for a saved or built-in one (default-tool,
    default-terminal, ...) or a whole rule set document as a dict.
    """
    return post("/v1/reward", {"ruleSet": rule_set, "items": items})["results"]
