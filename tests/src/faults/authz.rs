//! The fault server's OAuth 2.1 authorization server, for the `oauth*` modes: the MCP endpoint
//! as a protected resource (RFC 9728), and on the same origin the authorization server's
//! metadata (RFC 8414), dynamic client registration (RFC 7591), the authorization endpoint
//! (which approves at once, with PKCE S256 and RFC 9207's `iss`), and the token endpoint
//! (`authorization_code` with the PKCE check, `refresh_token`, `client_credentials`); each
//! fault of [`FaultMode`]'s `oauth-*` modes at its step.
//!
//! Small but honest: codes are single-use and bound to their client, redirect URI, PKCE
//! challenge and resource; the PKCE verifier is checked (`BASE64URL(SHA256(verifier))`); the
//! `resource` of every authorization and token request must be the MCP URL (RFC 8707);
//! clients with a secret must authenticate (HTTP basic or the form's `client_secret`); access
//! tokens expire after `--token-lifetime-s`; refresh tokens are rotated.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use bytes::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, Response, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::FaultMode;
use super::respond::{json_response, with_type};
use crate::listen::Body;

/// The path of the MCP endpoint's protected resource metadata (RFC 9728, path-aware).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";
/// The path of the authorization server's metadata (RFC 8414; the issuer is the origin).
pub const AUTHORIZATION_SERVER_METADATA_PATH: &str = "/.well-known/oauth-authorization-server";
/// The dynamic client registration endpoint (RFC 7591).
pub const REGISTRATION_PATH: &str = "/register";
/// The authorization endpoint.
pub const AUTHORIZATION_PATH: &str = "/authorize";
/// The token endpoint.
pub const TOKEN_PATH: &str = "/token";
/// The scope the protected resource advertises (`scopes_supported`) and tokens carry.
pub const OAUTH_SCOPE: &str = "mcp";
/// The client id the client credentials grant accepts (with [`MACHINE_CLIENT_SECRET`]).
pub const MACHINE_CLIENT_ID: &str = "oma-test-machine";
/// The client secret of [`MACHINE_CLIENT_ID`].
pub const MACHINE_CLIENT_SECRET: &str = "machine-s3cret-7f3a9c";
/// The default of `--token-lifetime-s`: the access tokens' `expires_in`.
pub const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
/// The `error_description` of `oauth-access-denied`'s redirect.
pub const DENIED_DESCRIPTION: &str = "The user denied the request";
/// The `state` `oauth-state-mismatch`'s redirect carries instead of the client's.
pub const OTHER_STATE: &str = "not-the-state-you-sent";
/// The `error_description` of `oauth-registration-refused`'s 400.
pub const REGISTRATION_REFUSED: &str =
    "Dynamic client registration is disabled for this redirect URI";
/// The `error_description` of `oauth-refresh-invalid-grant`'s 400.
pub const REFRESH_REFUSED: &str = "The refresh token is invalid, expired or revoked";
/// The `error_description` of `oauth-refresh-invalid-client`'s 401.
pub const CLIENT_FORGOTTEN: &str = "Client not found";
/// What `oauth-prm-malformed` and `oauth-as-metadata-malformed` serve as metadata, with
/// `200 application/json`: not JSON.
pub const MALFORMED_METADATA: &str = "{\"issuer\": \"http://";
/// The page of `oauth-token-html-200` and `oauth-token-html-500` (a login page, not a token).
pub const TOKEN_PAGE: &str = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n\
<body><form method=\"post\"><input name=\"user\"></form></body></html>\n";

/// The authorization server's records: clients, codes and tokens.
pub(super) struct Authz {
    /// Registered clients by id; [`MACHINE_CLIENT_ID`] from the start.
    clients: HashMap<String, Client>,
    /// Issued, unused authorization codes.
    codes: HashMap<String, Grant>,
    /// Issued access tokens and when each expires.
    access: HashMap<String, Instant>,
    /// Live refresh tokens and the client each was issued to.
    refresh: HashMap<String, String>,
    /// Registrations so far (client ids are `client-<n>`).
    registered: u64,
    /// `oauth-get-refused-once`: whether the first `GET` was refused.
    get_refused: bool,
}

struct Client {
    secret: Option<String>,
    redirect_uris: Vec<String>,
}

/// What an authorization code was issued for.
struct Grant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    resource: String,
    scope: Option<String>,
}

impl Default for Authz {
    fn default() -> Self {
        let mut clients = HashMap::new();
        clients.insert(
            MACHINE_CLIENT_ID.to_owned(),
            Client {
                secret: Some(MACHINE_CLIENT_SECRET.to_owned()),
                redirect_uris: Vec::new(),
            },
        );
        Self {
            clients,
            codes: HashMap::new(),
            access: HashMap::new(),
            refresh: HashMap::new(),
            registered: 0,
            get_refused: false,
        }
    }
}

/// What the OAuth side needs of the server: its mode, URLs and token lifetime.
pub(super) struct Site<'a> {
    pub(super) mode: FaultMode,
    /// The MCP URL (`http://127.0.0.1:PORT/mcp`): the resource.
    pub(super) url: &'a str,
    /// The origin (`http://127.0.0.1:PORT`): the issuer.
    pub(super) origin: &'a str,
    /// The issuer `oauth-as-unreachable`'s resource metadata names: a closed port.
    pub(super) unreachable: &'a str,
    pub(super) lifetime: Duration,
}

/// A response and what the log records of it (`answer`).
pub(super) type Answered = (Response<Body>, Value);

impl FaultMode {
    /// Whether the mode runs the authorization server (the `oauth*` modes).
    pub fn is_oauth(self) -> bool {
        matches!(
            self,
            Self::OAuth
                | Self::OAuthAsUnreachable
                | Self::OAuthPrmMissing
                | Self::OAuthPrmMalformed
                | Self::OAuthAsMetadataMissing
                | Self::OAuthAsMetadataMalformed
                | Self::OAuthIssuerMismatch
                | Self::OAuthNoPkce
                | Self::OAuthPkceUnadvertised
                | Self::OAuthRegistrationRefused
                | Self::OAuthAccessDenied
                | Self::OAuthStateMismatch
                | Self::OAuthRefreshInvalidGrant
                | Self::OAuthRefreshInvalidClient
                | Self::OAuthTokenHtml200
                | Self::OAuthTokenHtml500
                | Self::OAuthGetRefusedOnce
        )
    }

    /// Whether nothing of OAuth but the MCP endpoint's challenge is served on the origin.
    fn serves_no_metadata(self) -> bool {
        matches!(self, Self::OAuthPrmMissing | Self::OAuthPrmMalformed)
    }
}

impl Site<'_> {
    /// The `WWW-Authenticate` challenge of the MCP endpoint's 401.
    pub(super) fn challenge(&self, error: Option<(&str, &str)>) -> String {
        let mut challenge = format!(
            r#"Bearer resource_metadata="{}{RESOURCE_METADATA_PATH}""#,
            self.origin
        );
        if let Some((error, description)) = error {
            challenge.push_str(&format!(
                r#", error="{error}", error_description="{description}""#
            ));
        }
        challenge
    }

    /// The MCP endpoint's check: `None` when the request carries a live access token this
    /// server issued, else the 401 (`oauth-get-refused-once`: also for the first `GET`, the
    /// token revoked).
    pub(super) fn refuse(&self, authz: &mut Authz, parts: &Parts) -> Option<Response<Body>> {
        let bearer = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let revoke = self.mode == FaultMode::OAuthGetRefusedOnce
            && parts.method == Method::GET
            && !authz.get_refused;
        let error = match bearer {
            None => None,
            Some(token) if revoke && authz.access.remove(token).is_some() => {
                authz.get_refused = true;
                Some(("invalid_token", "The access token was revoked"))
            }
            Some(token) => match authz.access.get(token) {
                Some(expiry) if Instant::now() < *expiry => return None,
                Some(_) => Some(("invalid_token", "The access token expired")),
                None => Some((
                    "invalid_token",
                    "The access token is not one this server issued",
                )),
            },
        };
        let body = json!({"error": error.map_or("invalid_request", |e| e.0),
                          "error_description": error.map_or("An access token is required", |e| e.1)});
        let mut response = json_response(StatusCode::UNAUTHORIZED, &body);
        if let Ok(value) = HeaderValue::from_str(&self.challenge(error)) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        Some(response)
    }

    /// A request on an OAuth path (`None`: not one, so the caller answers 404 or MCP).
    pub(super) fn answer(
        &self,
        authz: &mut Authz,
        parts: &Parts,
        body: &Bytes,
    ) -> Option<Answered> {
        let path = parts.uri.path();
        let metadata_path = path.starts_with("/.well-known/");
        if self.mode.serves_no_metadata() {
            if path.starts_with("/.well-known/oauth-protected-resource") {
                return Some(if self.mode == FaultMode::OAuthPrmMalformed {
                    malformed()
                } else {
                    not_found()
                });
            }
            // Neither metadata nor endpoints: the authorization server is elsewhere, and only
            // the missing metadata would say where.
            if metadata_path || [REGISTRATION_PATH, AUTHORIZATION_PATH, TOKEN_PATH].contains(&path)
            {
                return Some(not_found());
            }
            return None;
        }
        if path == RESOURCE_METADATA_PATH || path == "/.well-known/oauth-protected-resource" {
            return Some(self.resource_metadata());
        }
        if path.starts_with(AUTHORIZATION_SERVER_METADATA_PATH)
            || path.starts_with("/.well-known/openid-configuration")
        {
            return Some(self.server_metadata(path));
        }
        match path {
            REGISTRATION_PATH => Some(self.register(authz, &parts.method, body)),
            AUTHORIZATION_PATH => Some(self.authorize(authz, &parts.method, parts.uri.query())),
            TOKEN_PATH => Some(self.token(authz, parts, body)),
            _ => None,
        }
    }

    fn resource_metadata(&self) -> Answered {
        let server = if self.mode == FaultMode::OAuthAsUnreachable {
            self.unreachable
        } else {
            self.origin
        };
        let metadata = json!({
            "resource": self.url,
            "authorization_servers": [server],
            "scopes_supported": [OAUTH_SCOPE],
            "bearer_methods_supported": ["header"],
        });
        answered(StatusCode::OK, metadata)
    }

    fn server_metadata(&self, path: &str) -> Answered {
        match self.mode {
            FaultMode::OAuthAsMetadataMissing => return not_found(),
            FaultMode::OAuthAsMetadataMalformed => return malformed(),
            _ => {}
        }
        // Only the root forms: the issuer has no path.
        if path != AUTHORIZATION_SERVER_METADATA_PATH && path != "/.well-known/openid-configuration"
        {
            return not_found();
        }
        let issuer = if self.mode == FaultMode::OAuthIssuerMismatch {
            format!("{}/elsewhere", self.origin)
        } else {
            self.origin.to_owned()
        };
        let challenge_methods = if self.mode == FaultMode::OAuthNoPkce {
            json!(["plain"])
        } else {
            json!(["S256"])
        };
        let origin = self.origin;
        let mut metadata = json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{origin}{AUTHORIZATION_PATH}"),
            "token_endpoint": format!("{origin}{TOKEN_PATH}"),
            "registration_endpoint": format!("{origin}{REGISTRATION_PATH}"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "code_challenge_methods_supported": challenge_methods,
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "scopes_supported": [OAUTH_SCOPE],
            "authorization_response_iss_parameter_supported": true,
        });
        if self.mode == FaultMode::OAuthPkceUnadvertised
            && let Some(fields) = metadata.as_object_mut()
        {
            fields.remove("code_challenge_methods_supported");
        }
        answered(StatusCode::OK, metadata)
    }

    /// `POST /register` (RFC 7591): a client id and a secret for the redirect URIs given.
    fn register(&self, authz: &mut Authz, method: &Method, body: &Bytes) -> Answered {
        if *method != Method::POST {
            return oauth_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "invalid_request",
                "POST only",
            );
        }
        if self.mode == FaultMode::OAuthRegistrationRefused {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                REGISTRATION_REFUSED,
            );
        }
        let Ok(request) = serde_json::from_slice::<Value>(body) else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                "the body is not JSON",
            );
        };
        let redirect_uris: Vec<String> = request
            .get("redirect_uris")
            .and_then(Value::as_array)
            .map(|uris| {
                uris.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if redirect_uris.is_empty() {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_redirect_uri",
                "redirect_uris is required",
            );
        }
        authz.registered += 1;
        let client_id = format!("client-{}", authz.registered);
        let secret = format!("cs-{}", random_hex());
        let mut registered = request.clone();
        if let Some(object) = registered.as_object_mut() {
            object.insert("client_id".to_owned(), json!(client_id));
            object.insert("client_secret".to_owned(), json!(secret));
            object.insert("client_id_issued_at".to_owned(), json!(now_epoch()));
            object.insert("client_secret_expires_at".to_owned(), json!(0));
            object.insert(
                "token_endpoint_auth_method".to_owned(),
                json!("client_secret_basic"),
            );
        }
        authz.clients.insert(
            client_id,
            Client {
                secret: Some(secret),
                redirect_uris,
            },
        );
        answered(StatusCode::CREATED, registered)
    }

    /// `GET /authorize`: approves at once, redirecting with `code`, `state` and `iss` (or the
    /// mode's fault); a request that is wrong gets 400 with the reason.
    fn authorize(&self, authz: &mut Authz, method: &Method, query: Option<&str>) -> Answered {
        if *method != Method::GET {
            return oauth_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "invalid_request",
                "GET only",
            );
        }
        let query = form(query.unwrap_or_default().as_bytes());
        let get = |name: &str| query.get(name).map(String::as_str);
        let Some(client_id) = get("client_id") else {
            return bad_request("client_id is missing");
        };
        let Some(client) = authz.clients.get(client_id) else {
            return bad_request("client_id is not registered");
        };
        let Some(redirect_uri) = get("redirect_uri") else {
            return bad_request("redirect_uri is missing");
        };
        if !client.redirect_uris.iter().any(|u| u == redirect_uri) {
            return bad_request("redirect_uri is not registered for this client");
        }
        if get("response_type") != Some("code") {
            return bad_request("response_type must be code");
        }
        if get("code_challenge_method") != Some("S256") {
            return bad_request("code_challenge_method must be S256");
        }
        let Some(challenge) = get("code_challenge").filter(|c| !c.is_empty()) else {
            return bad_request("code_challenge is missing");
        };
        if get("resource") != Some(self.url) {
            return bad_request("resource must be the MCP server's URL");
        }
        let state = get("state").unwrap_or_default();
        let issuer = encode(self.origin);
        let separator = if redirect_uri.contains('?') { '&' } else { '?' };
        let location = match self.mode {
            FaultMode::OAuthAccessDenied => format!(
                "{redirect_uri}{separator}error=access_denied&error_description={}&state={}\
                 &iss={issuer}",
                encode(DENIED_DESCRIPTION),
                encode(state)
            ),
            _ => {
                let code = format!("code-{}", random_hex());
                authz.codes.insert(
                    code.clone(),
                    Grant {
                        client_id: client_id.to_owned(),
                        redirect_uri: redirect_uri.to_owned(),
                        challenge: challenge.to_owned(),
                        resource: self.url.to_owned(),
                        scope: get("scope").map(str::to_owned),
                    },
                );
                let state = if self.mode == FaultMode::OAuthStateMismatch {
                    OTHER_STATE
                } else {
                    state
                };
                format!(
                    "{redirect_uri}{separator}code={}&state={}&iss={issuer}",
                    encode(&code),
                    encode(state)
                )
            }
        };
        let mut response = with_type(StatusCode::FOUND, "text/plain; charset=utf-8", "Found");
        if let Ok(value) = HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
        (response, json!({"status": 302, "location": location}))
    }

    /// `POST /token`: the `authorization_code`, `refresh_token` and `client_credentials`
    /// grants.
    fn token(&self, authz: &mut Authz, parts: &Parts, body: &Bytes) -> Answered {
        match self.mode {
            FaultMode::OAuthTokenHtml200 => return page(StatusCode::OK),
            FaultMode::OAuthTokenHtml500 => return page(StatusCode::INTERNAL_SERVER_ERROR),
            _ => {}
        }
        if parts.method != Method::POST {
            return oauth_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "invalid_request",
                "POST only",
            );
        }
        let form = form(body);
        let get = |name: &str| form.get(name).map(String::as_str);
        let client_id = match authenticate(authz, parts, &form) {
            Ok(id) => id,
            Err(description) => {
                return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", description);
            }
        };
        if get("resource") != Some(self.url) {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_target",
                "resource must be the MCP server's URL",
            );
        }
        match get("grant_type") {
            Some("authorization_code") => {
                let Some(grant) = get("code").and_then(|c| authz.codes.remove(c)) else {
                    return invalid_grant("the code is unknown or was used");
                };
                if grant.client_id != client_id {
                    return invalid_grant("the code was issued to another client");
                }
                if get("redirect_uri") != Some(grant.redirect_uri.as_str()) {
                    return invalid_grant("redirect_uri differs from the authorization request's");
                }
                let Some(verifier) = get("code_verifier") else {
                    return invalid_grant("code_verifier is missing");
                };
                if pkce_challenge(verifier) != grant.challenge {
                    return invalid_grant("code_verifier does not match the code_challenge (S256)");
                }
                if grant.resource != self.url {
                    return invalid_grant("the code was issued for another resource");
                }
                self.issue(authz, &client_id, grant.scope.as_deref(), true)
            }
            Some("refresh_token") => {
                if self.mode == FaultMode::OAuthRefreshInvalidGrant {
                    return invalid_grant(REFRESH_REFUSED);
                }
                if self.mode == FaultMode::OAuthRefreshInvalidClient {
                    return oauth_error(
                        StatusCode::UNAUTHORIZED,
                        "invalid_client",
                        CLIENT_FORGOTTEN,
                    );
                }
                let Some(token) = get("refresh_token") else {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_request",
                        "refresh_token is missing",
                    );
                };
                match authz.refresh.get(token) {
                    Some(owner) if *owner == client_id => {}
                    _ => return invalid_grant("the refresh token is unknown"),
                }
                // Rotation: the old refresh token is spent.
                authz.refresh.remove(token);
                self.issue(authz, &client_id, get("scope"), true)
            }
            Some("client_credentials") => {
                if client_id != MACHINE_CLIENT_ID {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "unauthorized_client",
                        "this client may not use the client credentials grant",
                    );
                }
                self.issue(authz, &client_id, get("scope"), false)
            }
            _ => oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "grant_type must be authorization_code, refresh_token or client_credentials",
            ),
        }
    }

    /// A new access token (and refresh token) for `client_id`.
    fn issue(
        &self,
        authz: &mut Authz,
        client_id: &str,
        scope: Option<&str>,
        with_refresh: bool,
    ) -> Answered {
        let access = format!("at-{}", random_hex());
        authz
            .access
            .insert(access.clone(), Instant::now() + self.lifetime);
        let mut token = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.lifetime.as_secs(),
            "scope": scope.unwrap_or(OAUTH_SCOPE),
        });
        if with_refresh {
            let refresh = format!("rt-{}", random_hex());
            authz.refresh.insert(refresh.clone(), client_id.to_owned());
            token["refresh_token"] = json!(refresh);
        }
        let (mut response, answer) = answered(StatusCode::OK, token);
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        (response, answer)
    }
}

/// The client a token request authenticates as: HTTP basic (RFC 6749 section 2.3.1, the id and
/// secret form-encoded) or the form's `client_id` and `client_secret`; a client with a secret
/// must give it. The error is the `error_description` of the `invalid_client` answer.
fn authenticate(
    authz: &Authz,
    parts: &Parts,
    form: &HashMap<String, String>,
) -> Result<String, &'static str> {
    let basic = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| STANDARD.decode(b.trim()).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|pair| {
            let (id, secret) = pair.split_once(':')?;
            Some((decode(id), decode(secret)))
        });
    let (client_id, secret) = match basic {
        Some((id, secret)) => (Some(id), Some(secret)),
        None => (
            form.get("client_id").cloned(),
            form.get("client_secret").cloned(),
        ),
    };
    let Some(client_id) = client_id else {
        return Err("no client authentication");
    };
    let Some(client) = authz.clients.get(&client_id) else {
        return Err("unknown client");
    };
    match (&client.secret, secret) {
        (None, _) => Ok(client_id),
        (Some(expected), Some(given)) if *expected == given => Ok(client_id),
        _ => Err("the client secret is missing or wrong"),
    }
}

/// `BASE64URL(SHA256(verifier))` without padding (RFC 7636 section 4.2, S256).
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A JSON answer, recorded in the log as it was sent.
fn answered(status: StatusCode, body: Value) -> Answered {
    let answer = json!({"status": status.as_u16(), "json": body});
    (json_response(status, &body), answer)
}

/// An OAuth error answer (RFC 6749 section 5.2).
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Answered {
    answered(
        status,
        json!({"error": error, "error_description": description}),
    )
}

fn invalid_grant(description: &str) -> Answered {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

fn bad_request(description: &str) -> Answered {
    oauth_error(StatusCode::BAD_REQUEST, "invalid_request", description)
}

fn not_found() -> Answered {
    let response = with_type(
        StatusCode::NOT_FOUND,
        "text/plain; charset=utf-8",
        "Not Found",
    );
    (response, json!({"status": 404}))
}

fn malformed() -> Answered {
    let response = with_type(StatusCode::OK, "application/json", MALFORMED_METADATA);
    (response, json!({"status": 200, "body": MALFORMED_METADATA}))
}

fn page(status: StatusCode) -> Answered {
    let response = with_type(status, "text/html", TOKEN_PAGE);
    (
        response,
        json!({"status": status.as_u16(), "body": TOKEN_PAGE}),
    )
}

/// An `application/x-www-form-urlencoded` body or query as a map (a repeated name: the last
/// value), as the authorization server reads them.
pub fn form(bytes: &[u8]) -> HashMap<String, String> {
    String::from_utf8_lossy(bytes)
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(name), decode(value))
        })
        .collect()
}

/// Percent-decodes a form value (`+` is a space; a `%` without two hex digits stays).
fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(&text.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// RFC 3986's unreserved characters are the only ones left as they are.
const RESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, RESERVED).to_string()
}

/// 24 random hex digits: the secret part of codes, tokens and client secrets.
fn random_hex() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let entropy = std::collections::hash_map::RandomState::new().hash_one((
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::process::id(),
        std::time::SystemTime::now(),
    ));
    let digest = Sha256::digest(entropy.to_le_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

fn now_epoch() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256_as_rfc_7636_appendix_b() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn form_encoding_round_trips() {
        assert_eq!(encode("http://a b/c?d=e"), "http%3A%2F%2Fa%20b%2Fc%3Fd%3De");
        assert_eq!(decode("http%3A%2F%2Fa+b%2Fc"), "http://a b/c");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%4"), "%4");
        let parsed = form(b"grant_type=refresh_token&scope=a+b&resource=http%3A%2F%2Fx%2Fmcp");
        assert_eq!(parsed["grant_type"], "refresh_token");
        assert_eq!(parsed["scope"], "a b");
        assert_eq!(parsed["resource"], "http://x/mcp");
    }

    #[test]
    fn random_parts_differ() {
        let (a, b) = (random_hex(), random_hex());
        assert_eq!(a.len(), 24);
        assert_ne!(a, b);
    }
}
