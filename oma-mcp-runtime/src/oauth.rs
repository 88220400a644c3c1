//! OAuth 2.1 for streamable HTTP servers (cargo feature `oauth`), as the MCP specification's
//! "Authorization" section defines it (revisions 2025-06-18, 2025-11-25 and 2026-07-28), on
//! rmcp's `AuthorizationManager`.
//!
//! [`OAuthClient`] is the [`TokenProvider`] a connection builds from
//! [`ConnectConfig::oauth`](crate::ConnectConfig::oauth). On the server's `401` it:
//!
//! - discovers the protected resource metadata (RFC 9728: the challenge's
//!   `resource_metadata`, else the well-known URLs, path-aware first) and the authorization
//!   server metadata (RFC 8414, then OpenID Connect discovery), checking that the metadata's
//!   `issuer` is the URL it came from and that the resource's `resource` is this server;
//! - obtains a token with the configured grant: the authorization code grant with PKCE (S256
//!   only; a server that does not advertise it is refused), `state` checked, the RFC 9207
//!   `iss` of the authorization response checked where the server advertises or sends it,
//!   the client identified by a pre-registered id, a Client ID Metadata Document, or dynamic
//!   client registration (RFC 7591), in that order; or the client credentials grant with a
//!   secret (`client_secret_basic`/`client_secret_post`, as the server advertises) or a signed
//!   JWT (`private_key_jwt`, RFC 7523);
//! - sends the resource indicator (RFC 8707) on authorization and token requests, and asks
//!   for `offline_access` where the authorization server advertises it (with `prompt=consent`,
//!   without which an OpenID provider ignores it and issues no refresh token).
//!
//! A held token that the server refuses is refreshed (when the authorization server is still
//! the one that issued it and a refresh token is held), else replaced by a new grant; a token
//! that the resource's metadata now attributes to another authorization server is dropped
//! and the client registers there anew (MCP 2026-07-28). A `403` with
//! `error="insufficient_scope"` asks for the union of the granted and the challenged scopes
//! (step-up), at most 3 times per client.
//!
//! Scopes, for either grant: [`OAuthConfig::scopes`](crate::connect::OAuthConfig::scopes)
//! when set, else the challenge's `scope`, else the protected resource's `scopes_supported`,
//! else none.
//!
//! Secrets (client secrets, private keys, tokens, codes, the PKCE verifier) never appear in
//! an error, a log line or `Debug` output.

mod advice;
mod client;
mod diagnose;
mod failure;
mod follow;
#[cfg(feature = "keyring")]
mod keyring;
mod persist;
mod store;
mod withhold;

pub use client::OAuthClient;
pub use follow::FollowRedirect;
#[cfg(feature = "keyring")]
pub use keyring::KEYRING_TIMEOUT;
pub use store::{
    CREDENTIAL_STORE_ENV, CREDENTIALS_DIR_ENV, LoginStore, SecretsIn, StoreError, StoredLogin,
};

pub use crate::connect::{
    AuthFailure, Authorize, Authorizer, OAuthConfig, OAuthGrant, Refusal, Secret, TokenProvider,
    TokenSource,
};
