//! [`ConfigError`]: the configuration is wrong; nothing was sent.

/// Where a server's own token is supplied from the environment, as hints name it (library
/// words: the manifest keys and the builder methods).
#[cfg(feature = "http-no-provider")]
pub(crate) const TOKEN_SETTINGS: &str = "manifest keys `bearer-env`, `header-env`; \
                                         `ConnectConfig::with_bearer_env`, \
                                         `ConnectConfig::with_header_env`";

/// The configuration is wrong: an environment variable, a header, a URL, a cargo feature, or a
/// tool registered twice. Nothing was sent to a server; fix the configuration (the
/// [`ConnectConfig`](crate::ConnectConfig), the manifest, the environment, or the crate's
/// features) and try again. Retrying unchanged fails the same way.
///
/// Unlike the variants of the other error types, these are not `#[non_exhaustive]`: a layer
/// above (a build-script library, a CLI) builds them to word its own advice and tests that
/// wording; a field added to one of them is a breaking change, listed as such.
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

    /// The HTTP client has no TLS crypto provider: oma-mcp-runtime was built with its cargo
    /// feature `http-no-provider` alone (the transport without rustls' cryptography, for a
    /// program that brings its own) and the program installed none. Checked before the first
    /// HTTP request.
    #[error(
        "the HTTP client has no TLS crypto provider: turn on oma-mcp-runtime's cargo feature \
         `http` (rustls on aws-lc-rs) or `http-ring` (rustls on ring), or install one with \
         `rustls::crypto::CryptoProvider::install_default` before connecting"
    )]
    NoTlsProvider,

    /// An environment variable that an OAuth setting names
    /// ([`OAuthConfig::client_id_env`](crate::connect::OAuthConfig::client_id_env),
    /// [`OAuthConfig::client_secret_env`](crate::connect::OAuthConfig::client_secret_env)) is not
    /// set or not UTF-8. The message names the variable, never a value.
    #[error(
        "the environment variable `{var}` (OAuth `{setting}`) is not set or not UTF-8; set it \
         (in CI: from the secret store) before connecting"
    )]
    MissingOAuthEnv {
        /// The variable's name.
        var: String,
        /// The setting that names it (`client-secret-env`).
        setting: String,
    },

    /// The OAuth settings of a server cannot work as given (a client credentials grant
    /// without a client id or secret).
    #[error("the OAuth settings for the MCP server `{server}` are incomplete: {reason}")]
    InvalidOAuth {
        /// The server's URL, redacted.
        server: String,
        /// What is missing.
        reason: String,
    },

    /// [`ConnectConfig::oauth`](crate::ConnectConfig::oauth) is set but `oma-mcp-runtime` was
    /// compiled without its cargo feature `oauth`.
    #[error(
        "the MCP server `{server}` is configured for OAuth, but oma-mcp-runtime was built \
         without its cargo feature `oauth` (add `features = [\"oauth\"]` to its dependency)"
    )]
    OAuthFeatureDisabled {
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

    /// An entry of [`ConnectConfig::consequential`](crate::ConnectConfig::consequential),
    /// [`ConnectConfig::not_consequential`](crate::ConnectConfig::not_consequential),
    /// [`ConnectConfig::tools`](crate::ConnectConfig::tools) or
    /// [`ConnectConfig::exclude_tools`](crate::ConnectConfig::exclude_tools) (manifest keys
    /// `consequential`, `not-consequential`, `tools`, `exclude-tools`; the error names which)
    /// is not a valid glob. Checked before the server is started.
    #[error(transparent)]
    InvalidPattern(#[from] oma_mcp_core::select::InvalidPattern),

    /// A resource template does not expand to a URI (RFC 6570: a template that is not one, or
    /// a list given for a variable the template takes a prefix of); nothing was sent. The
    /// error names the template.
    #[error(transparent)]
    UriTemplate(#[from] oma_mcp_core::uri_template::UriTemplateError),
}
