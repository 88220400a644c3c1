//! `oma-mcp init` without I/O: other clients' MCP configuration files read into pins
//! (`source`, with `jsonc` and `reference`), merged into the manifest's text (`edit`), and
//! the change shown as a unified diff (`diff`). The command (`crate::commands::init`) reads
//! and writes the files and takes the snapshots.
//!
//! How a client's entry becomes a pin:
//!
//! - `command`, `args` and `cwd` are copied; `${workspaceFolder}` becomes the client's
//!   workspace (`.` when it is the manifest's directory), `${VAR:-default}` its default, and
//!   any other reference there skips the server (a pin's command line is literal);
//! - an `env` entry whose value is a reference (`${VAR}`, `${env:VAR}`, `${input:id}`) or a
//!   literal that looks like a secret becomes a `pass-env` name: the entry's own name, which
//!   the server reads; other literals go to `env`;
//! - a URL server's `Authorization: Bearer ${VAR}` becomes `bearer-env = "VAR"`, another
//!   header with a reference `header-env = { "Header" = "VAR" }`, a literal that looks like a
//!   secret the same with a variable named after the server and the header
//!   (`GITHUB_TOKEN` for `Authorization` of `github`, `GITHUB_X_API_KEY` for `X-Api-Key`);
//!   other literals go to `headers`;
//! - a VS Code input used in a header becomes the variable named after its id
//!   ([`source::input_variable`]);
//! - a literal secret is never written: a warning names the file, the server and the key,
//!   and says where to move the value.

pub mod diff;
pub mod edit;
pub mod jsonc;
pub mod reference;
pub mod source;
