"""Calls /v1/reward/openrlhf exactly as OpenRLHF's remote reward model client does: a JSON POST
with no Authorization header, to the URL the user configured.

    TERRARIUM_TOKEN=... python3 openrlhf_client.py

With OpenRLHF itself, point `--reward.remote_url` (formerly `--remote_rm_url`) at
http://HOST:4317/v1/reward/openrlhf?ruleSet=default-tool&token=TOKEN: OpenRLHF sends no headers of
its own, so this one route takes the program token from its URL. Or pass this folder's
openrlhf_reward_func.py as the remote URL: OpenRLHF loads a local `reward_func` from a .py path.
"""

import json
import urllib.parse
import urllib.request

from terrarium_reward import TOKEN, URL


def post(path, body):
    """What OpenRLHF's remote reward client does: POST JSON, no auth header, read JSON back."""
    url = URL + path + "&" + urllib.parse.urlencode({"token": TOKEN})
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=180) as response:
        return json.loads(response.read())


# The prompt shows the order as delivered, so a simulated "pending" contradicts it.
prompt = (
    'list_orders {"user_id": "mei_7272"}\n[{"order_id": "#W2378156", "status": "delivered"}]\n'
    'get_order_details {"order_id": "#W2378156"}\n'
)
real = '{"order_id": "#W2378156", "status": "delivered"}'
answer = post(
    "/v1/reward/openrlhf?ruleSet=default-tool",
    {
        # query = prompt + response; prompts and labels as OpenRLHF sends them.
        "query": [prompt + real, prompt + '{"order_id": "#W2378156", "status": "pending"}'],
        "prompts": [prompt, prompt],
        "labels": [real, real],
    },
)
print({"rewards": answer["rewards"], "scores": answer["scores"], "extra_logs": sorted(answer["extra_logs"])})
