//! A pinned connection → `connect_config()` and `connect()` items (see
//! [`PinnedConnection`]), emitted with the tools' items and formatted with them.

use quote::quote;

use super::PinnedConnection;
use crate::error::Error;

/// The items of `connection`: `connect_config()`, then `connect()`. Settings at their
/// `ConnectConfig::new` defaults are left out, so manifests without a key generate what they
/// did before it existed; so are empty lists (`[]` has no element type to infer). A URL pin's
/// `connect_config()` starts from `ConnectConfig::http` and is preceded by
/// `::oma_mcp_runtime::__require_http!("<server>");`, a compile error without the runtime's
/// cargo feature `http`.
///
/// # Errors
/// [`Error::InvalidGeneratedCode`] only on a bug in this crate.
pub(crate) fn items(connection: &PinnedConnection) -> Result<ConnectionItems, Error> {
    let PinnedConnection { server, config } = connection;
    let defaults = oma_mcp_runtime::ConnectConfig::new(config.command.clone());
    let (new, transport, doc) = match &config.url {
        Some(url) => (
            quote!(http(#url)),
            http_settings(config),
            format!(
                " The connection to server `{server}` as the manifest pins it (URL, literal \
                 headers, the names of the variables its credentials come from, prefix, request \
                 timeout); the credentials are read from the environment when it connects."
            ),
        ),
        None => (
            {
                let program = &config.command;
                quote!(new(#program))
            },
            stdio_settings(config),
            format!(
                " The connection to server `{server}` as the manifest pins it (command, \
                 arguments, working directory, environment, prefix, request timeout), with \
                 paths as resolved when the build script ran."
            ),
        ),
    };
    let prefix = config
        .name_prefix
        .as_ref()
        .map(|p| quote!(.with_name_prefix(#p)));
    let millis = proc_macro2::Literal::u64_unsuffixed(
        u64::try_from(config.request_timeout.as_millis()).unwrap_or(u64::MAX),
    );
    let max_message = (config.max_message_size != defaults.max_message_size).then(|| {
        let bytes = proc_macro2::Literal::usize_unsuffixed(config.max_message_size);
        quote!(.with_max_message_size(#bytes))
    });
    let client_name = (config.client_name != defaults.client_name).then(|| {
        let name = &config.client_name;
        quote!(.with_client_name(#name))
    });
    let client_version = (config.client_version != defaults.client_version).then(|| {
        let version = &config.client_version;
        quote!(.with_client_version(#version))
    });
    let lifecycle = match config.lifecycle {
        oma_mcp_runtime::Lifecycle::Initialize => Some(quote!(Initialize)),
        oma_mcp_runtime::Lifecycle::Discover => Some(quote!(Discover)),
        _ => None,
    }
    .map(|variant| quote!(.with_lifecycle(::oma_mcp_runtime::Lifecycle::#variant)));
    let connect_doc = format!(
        " Connects to server `{server}` with [`connect_config()`] and checks its live tools \
         against [`SNAPSHOT`] under `policy`, in one call \
         ([`oma_mcp_runtime::connect_checked`]): returns the client and the drift report."
    );
    // A URL pin connects over streamable HTTP: without oma-mcp-runtime's cargo feature
    // `http`, a compile error that names the server and the feature.
    let require_http = config
        .url
        .is_some()
        .then(|| quote!(::oma_mcp_runtime::__require_http!(#server);));
    let tokens = quote! {
        #require_http

        #[doc = #doc]
        #[allow(dead_code)]
        pub fn connect_config() -> ::oma_mcp_runtime::ConnectConfig {
            ::oma_mcp_runtime::ConnectConfig::#new
                #transport
                #prefix
                .with_request_timeout(::core::time::Duration::from_millis(#millis))
                #max_message
                #client_name
                #client_version
                #lifecycle
        }
    };
    // `connect(policy)` uses the drift engine: emitted inside `drift_items!` (see
    // `emit::file`), so it exists only with oma-mcp-runtime's cargo feature `drift`.
    let drift = quote! {
        #[doc = #connect_doc]
        ///
        /// # Errors
        /// A connection error, or [`oma_mcp_runtime::Error::Drift`] when `policy` refuses
        /// the drift (the server is disconnected first).
        #[allow(dead_code)]
        pub async fn connect(
            policy: ::oma_mcp_runtime::DriftPolicy,
        ) -> ::core::result::Result<
            (::oma_mcp_runtime::McpClient, ::oma_mcp_runtime::DriftReport),
            ::oma_mcp_runtime::Error,
        > {
            ::oma_mcp_runtime::connect_checked(connect_config(), SNAPSHOT, #server, policy).await
        }
    };
    let parse = |tokens| {
        syn::parse2::<syn::File>(tokens)
            .map(|file| file.items)
            .map_err(|e| Error::InvalidGeneratedCode {
                tool: String::new(),
                reason: e.to_string(),
            })
    };
    Ok(ConnectionItems {
        config: parse(tokens)?,
        drift: parse(drift)?,
    })
}

/// The builder calls of a server started over stdio: its arguments, working directory,
/// `pass-env` names and literal `env` values.
fn stdio_settings(config: &oma_mcp_runtime::ConnectConfig) -> proc_macro2::TokenStream {
    let args = (!config.args.is_empty()).then(|| {
        let args = &config.args;
        quote!(.with_args([#(#args),*]))
    });
    let cwd = config.cwd.as_ref().map(|cwd| {
        let cwd = cwd.to_string_lossy().into_owned();
        quote!(.with_cwd(#cwd))
    });
    let pass_env = (!config.pass_env.is_empty()).then(|| {
        let names = &config.pass_env;
        quote!(.with_pass_env([#(#names),*]))
    });
    let env = config.env.iter().map(|(k, v)| quote!(.with_env(#k, #v)));
    quote!(#args #cwd #pass_env #(#env)*)
}

/// The builder calls of a server reached over streamable HTTP: its literal headers, and the
/// names (only) of the variables its credentials come from.
fn http_settings(config: &oma_mcp_runtime::ConnectConfig) -> proc_macro2::TokenStream {
    let headers = config
        .headers
        .iter()
        .map(|(name, value)| quote!(.with_header(#name, #value)));
    let bearer = config
        .bearer_env
        .as_ref()
        .map(|var| quote!(.with_bearer_env(#var)));
    let header_env = config
        .header_env
        .iter()
        .map(|(name, var)| quote!(.with_header_env(#name, #var)));
    quote!(#(#headers)* #bearer #(#header_env)*)
}

/// The items of a pinned connection.
pub(crate) struct ConnectionItems {
    /// `connect_config()`.
    pub(crate) config: Vec<syn::Item>,
    /// `connect(policy)`, which needs the runtime's drift engine.
    pub(crate) drift: Vec<syn::Item>,
}
