"""The official letta-client SDK, unmodified, against `halley serve`.

Usage: letta_flow.py BASE_URL TOKEN. Registers a tool from its source,
creates an agent, sends a message that needs the tool, answers the approval
request with the client's own result (streamed), checks the 409 and 400
refusals, then does the same with a tool passed as `client_tools` over
/messages/stream. Prints one JSON object of what it saw.
"""

import json
import sys

from letta_client import BadRequestError, ConflictError, Letta
from seed_tool import SOURCE, query_local_db

base_url, token = sys.argv[1], sys.argv[2]
client = Letta(base_url=base_url, api_key=token, max_retries=2)
seen = {}

tool = client.tools.upsert(source_code=SOURCE, default_requires_approval=True)
seen["tool"] = tool.model_dump(mode="json")
seen["listed"] = [t.name for t in client.tools.list()]

try:
    client.tools.create(source_code="def no_doc(q: str):\n    return q\n")
    seen["missing_docstring"] = "accepted"
except BadRequestError as e:
    seen["missing_docstring"] = {"status": e.status_code, "message": str(e)}

agent = client.agents.create(name="notes-app", model="openai/scripted-model", tools=["query_local_db"])
seen["agent"] = {"id": agent.id, "name": agent.name}

first = client.agents.messages.create(
    agent_id=agent.id, messages=[{"role": "user", "content": "Tìm bài viết về Rust trong kho của tôi"}]
)
seen["first"] = first.model_dump(mode="json")
request = next(m for m in first.messages if m.message_type == "approval_request_message")
call = request.tool_call

try:
    client.agents.messages.create(agent_id=agent.id, messages=[{"role": "user", "content": "còn gì nữa?"}])
    seen["conflict"] = "accepted"
except ConflictError as e:
    seen["conflict"] = {"status": e.status_code, "should_retry": e.response.headers.get("x-should-retry")}

try:
    client.agents.messages.create(
        agent_id=agent.id,
        messages=[{"type": "approval", "approvals": [
            {"type": "tool", "tool_call_id": "call-unknown", "tool_return": "[]", "status": "success"}]}],
    )
    seen["wrong_ids"] = "accepted"
except BadRequestError as e:
    seen["wrong_ids"] = {"status": e.status_code, "message": str(e)}

result = query_local_db(**json.loads(call.arguments))
stream = client.agents.messages.create(
    agent_id=agent.id,
    streaming=True,
    messages=[{"type": "approval", "approvals": [
        {"type": "tool", "tool_call_id": call.tool_call_id, "tool_return": json.dumps(result), "status": "success"}]}],
)
seen["answer"] = [chunk.model_dump(mode="json") for chunk in stream]

# The same answered twice: refused, nothing applied again.
try:
    client.agents.messages.create(
        agent_id=agent.id,
        messages=[{"type": "tool_return", "tool_returns": [
            {"type": "tool", "tool_call_id": call.tool_call_id, "tool_return": "[]", "status": "success"}]}],
    )
    seen["twice"] = "accepted"
except BadRequestError as e:
    seen["twice"] = {"status": e.status_code}

# A tool passed with the request, answered with a tool_return message, over /messages/stream.
clock = {"name": "local_clock", "description": "The client machine's local time.",
         "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]}}
chunks = list(client.agents.messages.stream(
    agent_id=agent.id, messages=[{"role": "user", "content": "Mấy giờ rồi?"}], client_tools=[clock]))
seen["clock_request"] = [c.model_dump(mode="json") for c in chunks]
asked = next(c for c in chunks if c.message_type == "approval_request_message")
chunks = list(client.agents.messages.stream(
    agent_id=agent.id,
    messages=[{"type": "tool_return", "tool_returns": [
        {"type": "tool", "tool_call_id": asked.tool_call.tool_call_id, "tool_return": "09:30", "status": "success"}]}],
))
seen["clock_answer"] = [c.model_dump(mode="json") for c in chunks]
print(json.dumps(seen, ensure_ascii=False))
