//! A pinned connection → `connect_config()` and `connect()` (see [`PinnedConnection`]).
//!
//! Settings at their `ConnectConfig::new` defaults are left out, so manifests without a key
//! generate what they did before it existed; so are empty lists (`[]` has no element type to
//! infer). A URL pin's `connect_config()` starts from `ConnectConfig::http` and is preceded by
//! `::oma_mcp_runtime::__require_http!("<server>");`, a compile error without the runtime's
//! cargo feature `http`; its OAuth, by `::oma_mcp_runtime::__require_oauth!("<server>");` (the
//! feature `oauth`), unless it is [optional](OAuthConfig::optional), as the stored login of a
//! pin without an `oauth` table is. `env` and header literals are in the committed manifest already;
//! `pass-env`, `bearer-env` and `header-env` give variable names only, never values.

use oma_mcp_core::config::{ConnectConfig, Lifecycle, OAuthConfig, OAuthGrant};
use oma_mcp_core::consequential::AnnotationPolicy;

use super::super::writer::{Lit, Writer};
use super::UNUSED;
use crate::codegen::PinnedConnection;

/// `[a, b]` of string literals.
fn array(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|i| Lit(i).to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// `connect_config()` (after the `__require_http!` guard of a URL pin): the connection as a
/// builder chain, one call a line.
pub(super) fn config(w: &mut Writer, connection: &PinnedConnection) {
    let PinnedConnection { server, config } = connection;
    let defaults = ConnectConfig::new(config.command.clone());
    let mut calls: Vec<String> = Vec::new();
    let (start, doc) = match &config.url {
        Some(url) => {
            // A URL pin connects over streamable HTTP: without oma-mcp-runtime's cargo
            // feature `http`, a compile error that names the server and the feature.
            w.item();
            w.line(format_args!(
                "::oma_mcp_runtime::__require_http!({});",
                Lit(server)
            ));
            for (name, value) in &config.headers {
                calls.push(format!(".with_header({}, {})", Lit(name), Lit(value)));
            }
            if let Some(var) = &config.bearer_env {
                calls.push(format!(".with_bearer_env({})", Lit(var)));
            }
            for (name, var) in &config.header_env {
                calls.push(format!(".with_header_env({}, {})", Lit(name), Lit(var)));
            }
            if let Some(oauth) = &config.oauth {
                // OAuth needs the runtime's feature `oauth`: a compile error without it,
                // unless the connection may go without (a pin's stored login, optional).
                if !oauth.optional {
                    w.line(format_args!(
                        "::oma_mcp_runtime::__require_oauth!({});",
                        Lit(server)
                    ));
                }
                // One setter a line, under `OAuthConfig::authorization_code()`.
                let mut lines = vec![
                    ".with_oauth(".to_owned(),
                    "    ::oma_mcp_runtime::connect::OAuthConfig::authorization_code()".to_owned(),
                ];
                lines.extend(oauth_setters(oauth).iter().map(|s| format!("        {s}")));
                lines.push(")".to_owned());
                calls.push(lines.join("\n"));
            }
            (
                format!("::oma_mcp_runtime::ConnectConfig::http({})", Lit(url)),
                match stored_login(config) {
                    Some(login) if config.bearer_env.is_none() && config.header_env.is_empty() => {
                        format!(
                            " The connection to server `{server}` as the manifest pins it (URL, \
                             literal headers, prefix, request timeout), with OAuth: it uses the \
                             login that `{login}` stored, read when it connects."
                        )
                    }
                    _ => format!(
                        " The connection to server `{server}` as the manifest pins it (URL, \
                         literal headers, the names of the variables its credentials come from, \
                         prefix, request timeout); the credentials are read from the \
                         environment when it connects."
                    ),
                },
            )
        }
        None => {
            if !config.args.is_empty() {
                calls.push(format!(".with_args({})", array(&config.args)));
            }
            if let Some(cwd) = &config.cwd {
                calls.push(format!(".with_cwd({})", Lit(&cwd.to_string_lossy())));
            }
            if !config.pass_env.is_empty() {
                calls.push(format!(".with_pass_env({})", array(&config.pass_env)));
            }
            for (key, value) in &config.env {
                calls.push(format!(".with_env({}, {})", Lit(key), Lit(value)));
            }
            (
                format!(
                    "::oma_mcp_runtime::ConnectConfig::new({})",
                    Lit(&config.command)
                ),
                format!(
                    " The connection to server `{server}` as the manifest pins it (command, \
                     arguments, working directory, environment, prefix, request timeout), with \
                     paths as resolved when the build script ran."
                ),
            )
        }
    };
    if let Some(prefix) = &config.name_prefix {
        calls.push(format!(".with_name_prefix({})", Lit(prefix)));
    }
    let millis = u64::try_from(config.request_timeout.as_millis()).unwrap_or(u64::MAX);
    calls.push(format!(
        ".with_request_timeout(::core::time::Duration::from_millis({millis}))"
    ));
    if config.max_message_size != defaults.max_message_size {
        calls.push(format!(
            ".with_max_message_size({})",
            config.max_message_size
        ));
    }
    if config.client_name != defaults.client_name {
        calls.push(format!(".with_client_name({})", Lit(&config.client_name)));
    }
    if config.client_version != defaults.client_version {
        calls.push(format!(
            ".with_client_version({})",
            Lit(&config.client_version)
        ));
    }
    let lifecycle = match config.lifecycle {
        Lifecycle::Initialize => Some("Initialize"),
        Lifecycle::Discover => Some("Discover"),
        Lifecycle::Auto => None,
    };
    if let Some(variant) = lifecycle {
        calls.push(format!(
            ".with_lifecycle(::oma_mcp_runtime::Lifecycle::{variant})"
        ));
    }
    // The consequential rule of the pin, so the tool layer marks this connection's tools as
    // the generated `CONSEQUENTIAL` constants do.
    if !config.consequential.is_empty() {
        calls.push(format!(
            ".with_consequential({})",
            array(&config.consequential)
        ));
    }
    if !config.not_consequential.is_empty() {
        calls.push(format!(
            ".with_not_consequential({})",
            array(&config.not_consequential)
        ));
    }
    if config.consequential_annotations == AnnotationPolicy::Ignore {
        calls.push(
            ".with_consequential_annotations(::oma_mcp_runtime::consequential::AnnotationPolicy::Ignore)"
                .to_owned(),
        );
    }
    // The tools the pin selects, so the tool layer shows only the tools this module has types
    // for.
    if !config.tools.is_empty() {
        calls.push(format!(".with_tools({})", array(&config.tools)));
    }
    if !config.exclude_tools.is_empty() {
        calls.push(format!(
            ".with_exclude_tools({})",
            array(&config.exclude_tools)
        ));
    }
    w.item();
    w.doc(&doc);
    w.allow(UNUSED);
    w.open("pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig");
    w.line(start);
    w.deeper(|w| {
        for line in calls.iter().flat_map(|call| call.lines()) {
            w.line(line);
        }
    });
    w.close("");
}

/// The login command whose stored login a URL connection uses as its only credential: an
/// authorization code grant with a login command, and no `bearer-env` or `header-env`.
fn stored_login(config: &ConnectConfig) -> Option<&str> {
    config
        .oauth
        .as_ref()
        .filter(|o| o.grant == OAuthGrant::AuthorizationCode)
        .and_then(|o| o.login_command.as_deref())
}

/// The setters of `oauth` after `OAuthConfig::authorization_code()`, one per setting that
/// differs from it (variable names and the client id only; a manifest holds no secret).
fn oauth_setters(oauth: &OAuthConfig) -> Vec<String> {
    let mut setters = Vec::new();
    if oauth.grant == OAuthGrant::ClientCredentials {
        setters.push(
            ".with_grant(::oma_mcp_runtime::connect::OAuthGrant::ClientCredentials)".to_owned(),
        );
    }
    let settings = [
        ("with_client_id", &oauth.client_id),
        ("with_client_id_env", &oauth.client_id_env),
        ("with_client_secret_env", &oauth.client_secret_env),
        ("with_client_metadata_url", &oauth.client_metadata_url),
        ("with_login_command", &oauth.login_command),
    ];
    for (setter, value) in settings {
        if let Some(value) = value {
            setters.push(format!(".{setter}({})", Lit(value)));
        }
    }
    if !oauth.scopes.is_empty() {
        setters.push(format!(".with_scopes({})", array(&oauth.scopes)));
    }
    if let Some(var) = &oauth.private_key_env {
        let algorithm = match &oauth.signing_algorithm {
            Some(a) => format!("::core::option::Option::Some({})", Lit(a)),
            None => "::core::option::Option::None".to_owned(),
        };
        setters.push(format!(".with_private_key_env({}, {algorithm})", Lit(var)));
    }
    if oauth.optional {
        setters.push(".with_optional(true)".to_owned());
    }
    setters
}

/// `connect(policy)`: connects with `connect_config()` and checks drift against `SNAPSHOT` (in
/// the `drift_items!` block: it uses the drift engine).
pub(super) fn connect(w: &mut Writer, connection: &PinnedConnection) {
    let server = &connection.server;
    w.item();
    w.doc(&format!(
        " Connects to server `{server}` with [`connect_config()`] and checks its live tools \
         against [`SNAPSHOT`] under `policy`, in one call \
         ([`oma_mcp_runtime::connect_checked`]): returns the client and the drift report."
    ));
    w.doc("");
    w.doc(" # Errors");
    w.doc(" A connection error, or [`oma_mcp_runtime::Error::Drift`] when `policy` refuses");
    w.doc(" the drift (the server is disconnected first).");
    w.allow(UNUSED);
    w.open(
        "pub async fn connect(policy: ::oma_mcp_runtime::DriftPolicy) -> \
         ::core::result::Result<(::oma_mcp_runtime::McpClient, ::oma_mcp_runtime::DriftReport), \
         ::oma_mcp_runtime::Error>",
    );
    w.line(format_args!(
        "::oma_mcp_runtime::connect_checked(connect_config(), SNAPSHOT, {}, policy).await",
        Lit(server)
    ));
    w.close("");
}
