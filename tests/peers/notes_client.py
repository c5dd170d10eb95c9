"""A client application in a few lines of Python (requests): it registers
its local function with Halley, listens for calls, runs them and posts the
results back.

Usage: notes_client.py BASE_URL TOKEN. Prints `listening` once its event
stream is open, then, after one call, a JSON line of what it did.
"""

import json
import sys

import requests

base, token = sys.argv[1], sys.argv[2]
headers = {"Authorization": f"Bearer {token}", "X-Halley-Client": "notes-app"}

SOURCE = '''def query_local_db(query: str, category: str = None):
    """
    Search articles in the local DB.

    Args:
        query (str): Search keyword.
        category (str): Article category (optional).
    """
    return "WAITING_FOR_CLIENT_EXECUTION"
'''


def query_local_db(query, category=None):
    notes = [{"title": "Phở bò Nam Định", "category": "food", "price_vnd": 65000},
             {"title": "Rust và SQLite", "category": "tech", "price_vnd": 129000}]
    return [n for n in notes if query.lower() in n["title"].lower() and category in (None, n["category"])]


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
