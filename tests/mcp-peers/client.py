"""An MCP client on the official Python SDK, as a program using Halley would
write it: connect (stdio or streamable HTTP), list the tools, make the calls
given, answer Halley's questions (elicitation) as told. Prints one JSON
object: {"tools": [...], "calls": [{"name", "isError", "structuredContent"}],
"asked": [messages]}.

    client.py --http URL --token T --calls JSON [--answer accept|decline]
    client.py --answer accept --calls JSON -- COMMAND ARGS...
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
    p.add_argument("command", nargs="*")
    a = p.parse_args()
    asked: list[str] = []

    async def elicit(context, params: types.ElicitRequestParams):
        asked.append(params.message)
        if a.answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    async def session_on(read, write) -> dict:
        async with ClientSession(read, write, elicitation_callback=elicit) as s:
            await s.initialize()
            listed = await s.list_tools()
            calls = []
            for call in json.loads(a.calls):
                r = await s.call_tool(call["name"], call.get("arguments", {}))
                calls.append({"name": call["name"], "isError": r.is_error, "structuredContent": r.structured_content})
            tools = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
            return {"tools": tools, "calls": calls, "asked": asked}

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
