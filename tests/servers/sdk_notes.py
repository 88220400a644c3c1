"""Tools that return no object, written with the official Python SDK's `MCPServer` (the
`mcp` package pinned in requirements.txt), for oma-mcp's integration tests: the SDK wraps
such a return value as `{"result": ...}` under an output schema titled `<tool>Output`,
without FastMCP's `x-fastmcp-wrap-result` mark, and sends the bare value as text (a string
as itself, each item of a list as a block of its own). Runs over stdio.
"""

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("sdk-notes")


@mcp.tool()
def shout(text: str) -> str:
    """Upper-cases `text`."""
    return text.upper()


@mcp.tool()
def lengths(words: list[str]) -> list[int]:
    """The length of each word."""
    return [len(word) for word in words]


if __name__ == "__main__":
    mcp.run()
