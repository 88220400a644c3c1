//! [`ConfigError`]: the configuration is wrong; nothing was sent.

/// The configuration is wrong: an environment variable, a header, a URL, a cargo feature, or a
/// tool registered twice. Nothing was sent to a server; fix the configuration (the
/// [`ConnectConfig`](crate::ConnectConfig), the manifest, the environment, or the crate's
/// features) and try again. Retrying unchanged fails the same way.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// An environment variable that an HTTP pin takes a credential from
    /// ([`ConnectConfig::bearer_env`](crate::ConnectConfig::bearer_env),
    /// [`ConnectConfig::header_env`](crate::ConnectConfig::header_env); manifest keys
    /// `bearer-env`, `header-env`; CLI `--bearer-env`, `--header-env`) is not set or not UTF-8.
    /// Checked before anything is sent; the message names the variable, never a value.
    #[error(
        "the environment variable `{var}` (for the HTTP header `{header}`) is not set or not \
         UTF-8; set it (in CI: from the secret store) before connecting"
    )]
    MissingEnv {
        /// The variable's name.
        var: String,
        /// The header it is for (`Authorization`).
        header: String,
    },

    /// A literal or environment header of an HTTP pin is not a valid HTTP header (RFC 9110
    /// field name or value), or is one the transport sets itself (`Accept`, `Content-Type`,
    /// `Mcp-Session-Id`, `MCP-Protocol-Version`, `Last-Event-ID`). The value is never shown.
    #[error("invalid HTTP header `{name}` for the MCP server `{server}`: {reason}")]
    InvalidHeader {
        /// The header name, as configured (cut to 100 chars).
        name: String,
        /// The server's URL, redacted ([`crate::connect::redact_url`]).
        server: String,
        /// What is wrong.
        reason: String,
    },

    /// [`ConnectConfig::url`](crate::ConnectConfig::url) is not an absolute `http://` or
    /// `https://` URL with a host; nothing was sent.
    #[error("the MCP server URL `{url}` is not an absolute http:// or https:// URL")]
    InvalidUrl {
        /// The URL, redacted ([`crate::connect::redact_url`]; text that does not parse as a
        /// URL at all is `<invalid URL>`).
        url: String,
    },

    /// [`ConnectConfig::url`](crate::ConnectConfig::url) is set but `oma-mcp-runtime` was
    /// compiled without its cargo feature `http`.
    #[error(
        "cannot connect to the MCP server `{server}` over streamable HTTP: oma-mcp-runtime was \
         built without its cargo feature `http` (add `features = [\"http\"]` to its dependency)"
    )]
    HttpFeatureDisabled {
        /// The server's URL, redacted.
        server: String,
    },

    /// A tool name is registered twice in a [`ToolRegistry`](crate::tool::ToolRegistry).
    /// `Display` is exactly the contract's text.
    #[error(
        "ToolRegistry: a tool named \"{name}\" is already registered. Use a unique name or \
         deregister the existing one first."
    )]
    DuplicateTool {
        /// The name registered twice.
        name: String,
    },
}
