"""A small notes server written with FastMCP (pinned in requirements.txt), the way an agent's
own MCP server is usually written in Python, for oma-mcp's integration tests.

Its tools show what a client must get right with such a server:

- `delete_note` announces `destructiveHint: true`: a client must not hand it to a model
  without a confirmation;
- `whoami` answers with the access token the request carried (as a debugging tool of a real
  server might), so a recording must not keep it;
- `shout` returns a `str`, which FastMCP wraps: its `outputSchema` is
  `{"properties": {"result": ...}, "x-fastmcp-wrap-result": true}`, its `structuredContent`
  `{"result": "..."}`, and its text block the bare string.

Usage:
  fastmcp_notes.py                                   stdio
  fastmcp_notes.py --http PORT [--auth none|static|oauth]
      streamable HTTP at http://127.0.0.1:PORT/mcp; `static` accepts the token in the
      environment variable NOTES_TOKEN (a static-token server: 401 with a plain
      `WWW-Authenticate: Bearer`), `oauth` runs FastMCP's in-memory OAuth authorization server
      on the same origin (dynamic client registration, PKCE, rotating refresh tokens; it
      approves every authorization at once).
"""

import argparse
import os

from fastmcp import FastMCP
from fastmcp.server.dependencies import get_access_token, get_http_headers
from mcp.types import ToolAnnotations

NOTES = {"n1": "buy milk", "n2": "call the plumber"}


def build(auth) -> FastMCP:
    mcp = FastMCP("notes", auth=auth)

    @mcp.tool(annotations=ToolAnnotations(destructiveHint=True, readOnlyHint=False))
    def delete_note(note_id: str) -> str:
        """Deletes a note for good."""
        NOTES.pop(note_id, None)
        return f"deleted {note_id}"

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def whoami() -> str:
        """Says which credentials the request carried."""
        token = get_access_token()
        if token is not None:
            return f"token {token.token}"
        authorization = get_http_headers(include={"authorization"}).get("authorization")
        return f"authorization {authorization}" if authorization else "anonymous"

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def shout(text: str) -> str:
        """Upper-cases `text`."""
        return text.upper()

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--auth", choices=["none", "static", "oauth"], default="none")
    args = parser.parse_args()
    if args.http is None:
        build(None).run(show_banner=False)
        return
    base = f"http://127.0.0.1:{args.http}"
    auth = None
    if args.auth == "static":
        from fastmcp.server.auth.providers.jwt import StaticTokenVerifier

        auth = StaticTokenVerifier(
            tokens={os.environ["NOTES_TOKEN"]: {"client_id": "notes-user", "scopes": []}}
        )
    elif args.auth == "oauth":
        from fastmcp.server.auth.auth import ClientRegistrationOptions
        from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider

        auth = InMemoryOAuthProvider(
            base_url=base,
            client_registration_options=ClientRegistrationOptions(enabled=True),
        )
    build(auth).run(
        transport="http", host="127.0.0.1", port=args.http, path="/mcp", show_banner=False
    )


if __name__ == "__main__":
    main()
