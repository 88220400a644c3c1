//! The integration tests of `oma-mcp-cli`, one binary (ripgrep's layout: one binary links the
//! crate and its dependencies once). Each module runs the `oma-mcp` binary as a user's script
//! would, against real servers:
//!
//! - `cli`: `call`, `list` and `snapshot`, the manifest, signals, `--env`, `clientInfo`;
//! - `generate_cli`: `generate`, and `generate --manifest` against the build script's file;
//! - `connect_cli`: `--lifecycle`, a server that exits on `server/discover`, a quiet
//!   shutdown, a byte-order mark, the progress bar of `call`;
//! - `drift_cli`: `check`, `diff`, `schema` and `completions` as a CI job runs them;
//! - `cassette_cli`: `check` of a pin's recorded sessions (`cassettes`), `record` and
//!   `replay` on stdio;
//! - `export_cli`: `export`, a snapshot's tools in each model provider's request format;
//! - `hostile`: what a server sends never reaches the terminal as control sequences;
//! - `url_cli`: servers pinned by URL (flags, errors, secrets);
//! - `oauth_cli`: `login`, `logout`, `auth status` and the stored login, against the
//!   TypeScript SDK's example server with its OAuth authorization server;
//! - `oauth_errors_cli`: what the commands say without a usable token (a refused refresh, a
//!   static-token server, no login, under `CI`), against the fault server's authorization
//!   server;
//! - `keyring_cli`: logins whose tokens the operating system's keyring keeps, against a
//!   Secret Service of the test's own (GNOME Keyring, which `scripts/test` installs);
//! - `oidc_login`: the same commands as `oauth_cli` with a refresh, and the client credentials
//!   grant, against `oidc-provider`, a certified OpenID provider (`tests/servers/oidc-login.mjs`);
//! - `surface_cli`: the whole surface (prompts, resources, templates, instructions) in
//!   `snapshot`, `diff` and `check`, and `check --probe`;
//! - `scan_cli`: `scan` of a poisoned `tools/list` file in text, JSON and SARIF, `--fail-on`,
//!   a manifest's pins and `accept` entries;
//! - `init_cli`: `init` on the files of each client (Claude Code, Claude Desktop, Cursor,
//!   VS Code, Windsurf, Zed, Cline), `--dry-run`, a second run, and a snapshot;
//! - `add_cli`: `add` against an MCP registry the test serves on loopback from
//!   `fixtures/registry/` (npm, PyPI, OCI, MCPB, a remote), and `check` of a pin whose
//!   registry entry is deprecated;
//! - `offline_cli`: `check --offline` with an empty environment and no server to reach, and
//!   the pre-commit hook that runs it;
//! - `help`: the `--help` goldens in `fixtures/help/`.
//!
//! `common` holds the helpers. The tests need the project's test server
//! (`cargo build --workspace --all-features`, as `./scripts/test` does) and, for some, the
//! pinned npm servers (`npm ci --prefix tests/servers`): without them those print one line and
//! pass, except that `oauth_cli` and `oidc_login` fail under `CI`. Run one module's tests with
//! a filter: `cargo test -p oma-mcp-cli --test it drift_cli::`.

mod action_cli;
mod add_cli;
mod cassette_cli;
mod cli;
mod common;
mod connect_cli;
mod drift_cli;
mod export_cli;
mod generate_cli;
mod help;
mod hostile;
mod init_cli;
mod keyring_cli;
mod oauth_cli;
mod oauth_errors_cli;
mod offline_cli;
mod oidc_login;
mod scan_cli;
mod surface_cli;
mod url_cli;
