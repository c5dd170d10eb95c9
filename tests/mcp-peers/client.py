"""An MCP client on the official Python SDK, as a program using Halley would
write it: connect (stdio or streamable HTTP), list the tools, make the calls
given, answer Halley's questions (elicitation) as told. Prints one JSON
object: {"tools": [...], "calls": [{"name", "isError", "structuredContent"}],
"asked": [messages]}.

    client.py --http URL --token T --calls JSON [--answer accept|decline]
    client.py --answer accept --calls JSON -- COMMAND ARGS...

`--modern` speaks protocol 2026-07-28 (`server/discover`, questions as
input-required results answered by calling again).
"""

import argparse
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--http")
    p.add_argument("--token")
    p.add_argument("--calls", default="[]")
    p.add_argument("--answer", choices=["accept", "decline"], default="decline")
    p.add_argument("--modern", action="store_true", help="protocol 2026-07-28 (server/discover, no initialize)")
    p.add_argument("command", nargs="*")
    a = p.parse_args()
    asked: list[str] = []

    async def elicit(context, params: types.ElicitRequestParams):
        asked.append(params.message)
        if a.answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    async def call_through(s: ClientSession, name: str, arguments: dict) -> types.CallToolResult:
        if not a.modern:
            return await s.call_tool(name, arguments)
        # 2026-07-28: a question comes back as an input-required result; the
        # call is made again with the answers and the state it gave.
        r = await s.call_tool(name, arguments, allow_input_required=True)
        for _ in range(5):
            if not isinstance(r, types.InputRequiredResult):
                return r
            answers = {key: await elicit(None, req.params) for key, req in (r.input_requests or {}).items()}
            r = await s.call_tool(
                name, arguments, input_responses=answers, request_state=r.request_state, allow_input_required=True
            )
        raise RuntimeError("the server kept asking")

    async def session_on(read, write) -> dict:
        async with ClientSession(read, write, elicitation_callback=elicit) as s:
            if a.modern:
                await s.discover()
            else:
                await s.initialize()
            listed = await s.list_tools()
            calls = []
            for call in json.loads(a.calls):
                r = await call_through(s, call["name"], call.get("arguments", {}))
                calls.append({"name": call["name"], "isError": r.is_error, "structuredContent": r.structured_content})
            tools = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
            return {"tools": tools, "calls": calls, "asked": asked, "protocolVersion": s.protocol_version}

    if a.http:
        headers = {"Authorization": f"Bearer {a.token}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(a.http, http_client=http) as (read, write):
                out = await session_on(read, write)
    else:
        server = StdioServerParameters(command=a.command[0], args=a.command[1:])
        async with stdio_client(server) as (read, write):
            out = await session_on(read, write)
    json.dump(out, sys.stdout)


asyncio.run(main())
