"""refserve's /mcp through the official MCP Python SDK (PyPI `mcp`).

    python mcp_client.py URL VERSION

URL is the endpoint (http://127.0.0.1:PORT/mcp), VERSION the protocol
version to speak: 2026-07-28 (`server/discover`, then the stateless
per-request envelope) or 2025-06-18 (the `initialize` handshake, pinned to
that version). Lists the tools and calls each (`get_method` for every method
`list_methods` names), lists the resources and reads each, then prints one
JSON line: {"sdk", "version", "tools", "methods", "resources"}. Exits 1
with the reason on the first thing that is not as expected.
"""

import asyncio
import json
import sys

import mcp
import mcp.client.session as client_session

TOOLS = ["list_methods", "get_method", "search"]
QUERY = "roll back my changes if something goes wrong"
TOP_HIT = "action"


class Failure(Exception):
    """What was not as expected."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def texts(result):
    """The text blocks of a tool result or the text contents of a resource."""
    blocks = getattr(result, "content", None) or getattr(result, "contents", None) or []
    return [block.text for block in blocks if getattr(block, "text", None) is not None]


async def call(client, name, arguments):
    """Call a tool, which must succeed and answer structured content."""
    result = await client.call_tool(name, arguments)
    check(not result.is_error, f"{name} {arguments}: isError: {texts(result)}")
    check(isinstance(result.structured_content, dict), f"{name} {arguments}: no structuredContent")
    check(texts(result), f"{name} {arguments}: no text content block")
    return result


def connect(url, version):
    """A client that speaks exactly `version`."""
    if version == "2026-07-28":
        # 'auto' probes server/discover at the newest modern version (this
        # SDK's only one is 2026-07-28) and falls back to the handshake only
        # when the server is not modern; the caller checks it did not.
        return mcp.Client(url, mode="auto")
    # The legacy handshake offers LATEST_HANDSHAKE_VERSION; offer this one.
    client_session.LATEST_HANDSHAKE_VERSION = version
    return mcp.Client(url, mode="legacy")


async def exercise(url, version):
    async with connect(url, version) as client:
        check(
            client.protocol_version == version,
            f"negotiated {client.protocol_version!r}, not {version!r}",
        )
        if version == "2026-07-28":
            discovered = client.session.discover_result
            check(discovered is not None, "no server/discover result: the handshake was used")
            check(version in discovered.supported_versions, f"discover: {discovered.supported_versions}")
        else:
            check(client.session.initialize_result is not None, "no initialize result")
        info = client.server_info
        check(info is not None and info.name == "refserve", f"serverInfo: {info}")

        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        check(names == TOOLS, f"tools/list names {names}, not {TOOLS}")
        for tool in listed.tools:
            hints = tool.annotations
            check(hints is not None and hints.read_only_hint is True, f"{tool.name}: readOnlyHint {hints}")

        every = await call(client, "list_methods", {})
        methods = every.structured_content.get("methods")
        check(isinstance(methods, list) and methods, f"list_methods: {every.structured_content}")
        keys = [method["name"] for method in methods]
        check(len(set(keys)) == len(keys), f"list_methods repeats a key: {keys}")

        for key in keys:
            one = await call(client, "get_method", {"name": key})
            got = one.structured_content.get("key")
            check(got == key, f"get_method {key!r}: structuredContent.key {got!r}")
            check(
                any(text.startswith("#") for text in texts(one)),
                f"get_method {key!r}: no Markdown text block: {texts(one)[:1]}",
            )

        found = await call(client, "search", {"query": QUERY, "limit": 5})
        results = found.structured_content.get("results") or []
        top = results[0].get("name") if results else None
        check(top == TOP_HIT, f"search {QUERY!r}: top result {top!r}, not {TOP_HIT!r}: {results}")

        # Asked in a locale: the same methods, answered in Chinese.
        for name, arguments in [
            ("list_methods", {"locale": "zh-CN"}),
            ("search", {"query": QUERY, "limit": 5, "locale": "zh-CN"}),
        ]:
            localized = await call(client, name, arguments)
            check(
                any("\u4e00" <= c <= "\u9fff" for text in texts(localized) for c in text),
                f"{name} {arguments}: not in Chinese: {texts(localized)[:1]}",
            )

        resources = []
        cursor = None
        while True:
            page = await client.list_resources(cursor=cursor)
            resources.extend(page.resources)
            cursor = page.next_cursor
            if cursor is None:
                break
        uris = [str(resource.uri) for resource in resources]
        check(resources and len(set(uris)) == len(uris), f"resources/list: {uris}")
        for resource in resources:
            uri = str(resource.uri)
            read = await client.read_resource(uri)
            check(len(read.contents) == 1, f"{uri}: {len(read.contents)} contents")
            content = read.contents[0]
            check(str(content.uri) == uri, f"{uri}: content uri {content.uri}")
            check(
                content.mime_type == resource.mime_type,
                f"{uri}: mimeType {content.mime_type!r}, listed as {resource.mime_type!r}",
            )
            check(getattr(content, "text", None), f"{uri}: no text")

        return {
            "sdk": f"python mcp {mcp_version()}",
            "version": client.protocol_version,
            "tools": len(names),
            "methods": len(keys),
            "resources": len(resources),
        }


def mcp_version():
    from importlib.metadata import version

    return version("mcp")


def leaves(error):
    """The errors an ExceptionGroup holds, however deep; or the error itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("2026-07-28", "2025-06-18"):
        sys.exit("usage: mcp_client.py URL 2026-07-28|2025-06-18")
    url, version = sys.argv[1:]
    try:
        summary = asyncio.run(exercise(url, version))
    except Failure as failure:
        sys.exit(f"mcp_client.py {version}: {failure}")
    except Exception as error:
        # The SDK's own errors (an MCPError, a pydantic.ValidationError of a
        # result), often inside ExceptionGroups out of its task groups: the
        # whole traceback, then the innermost errors.
        import traceback

        traceback.print_exc()
        sys.exit(f"mcp_client.py {version}: the SDK failed: {'; '.join(map(repr, leaves(error)))}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
