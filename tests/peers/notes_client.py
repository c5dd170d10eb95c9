"""A client application in a few lines of Python (requests): it registers
its local function with Halley, listens for calls, runs them and posts the
results back.

Usage: notes_client.py BASE_URL TOKEN. Prints `listening` once its event
stream is open, then, after one call, a JSON line of what it did.
"""

import json
import sys

import requests
from seed_tool import SOURCE, query_local_db

base, token = sys.argv[1], sys.argv[2]
headers = {"Authorization": f"Bearer {token}", "X-Halley-Client": "notes-app"}

registered = requests.post(f"{base}/api/letta/agents/tools", headers=headers, json={
    "name": "query_local_db", "description": "Query the client app's local database for articles.",
    "sourceCode": SOURCE, "defaultRequiresApproval": True, "timeoutSeconds": 60})
registered.raise_for_status()

done = {}
with requests.get(f"{base}/api/v1/clients/notes-app/events", headers=headers, stream=True, timeout=60) as events:
    events.raise_for_status()
    print("listening", flush=True)
    for line in events.iter_lines(decode_unicode=True):
        if not line or not line.startswith("data:"):
            continue
        call = json.loads(line[len("data:"):])
        done["call"] = call
        result = query_local_db(**call["arguments"])
        answer = {"tool_call_id": call["tool_call_id"], "result": result}
        posted = requests.post(f"{base}/api/v1/tool_results", headers=headers, json=answer)
        done["posted"] = posted.status_code
        again = requests.post(f"{base}/api/v1/tool_results", headers=headers, json=answer)
        done["again"] = {"status": again.status_code, "body": again.json()}
        break
print(json.dumps(done, ensure_ascii=False), flush=True)
