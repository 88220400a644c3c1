//! Resources as typed Rust: static resources as constants, resource templates as types whose
//! constructor takes the template's variables, and [`McpClient::read`], which reads either
//! (`resources/read`, MCP "Resources").
//!
//! `oma-mcp-build` generates, in a module's `resources` submodule, a [`StaticResource`]
//! constant for every resource of the snapshot and, for every resource template, a struct
//! implementing [`ResourceTemplate`]: its variables are fields, those of path-like expressions
//! required by `new`, those of a form-style query (`{?q}`, `{&page}`) optional with `with_*`
//! setters, and an exploded variable (`{/path*}`) a list. Its URI is the template expanded as
//! RFC 6570 says ([`oma_mcp_core::uri_template`]).
//!
//! [`McpClient::subscribe`] subscribes to updates of resources, with `subscriptions/listen`
//! in MCP 2026-07-28 and `resources/subscribe` before it, behind one [`Subscription`].
//!
//! ```ignore
//! let readme = client.read(resources::README).await?;
//! let note = client.read(resources::Note::new("2026-12-07")).await?;
//! println!("{}", note[0].text().unwrap_or_default());
//! ```

use std::borrow::Cow;

pub use oma_mcp_core::content::{ResourceBody, ResourceContent};
pub use oma_mcp_core::uri_template::{TemplateValue, UriTemplateError};

mod subscribe;

pub use subscribe::{ResourceUpdated, Subscription};

use crate::Error;
use crate::connect::McpClient;
use crate::error::ConfigError;

/// A resource of a pinned server's `resources/list`, as a constant: its URI, name and the
/// optional members the server gave. Built in `const` context with [`StaticResource::new`]
/// and the `with_*` setters (what generated code does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct StaticResource {
    /// The resource's `uri`, what `resources/read` sends.
    pub uri: &'static str,
    /// Its `name`.
    pub name: &'static str,
    /// Its `title`, if any.
    pub title: Option<&'static str>,
    /// Its `description`, if any.
    pub description: Option<&'static str>,
    /// Its `mimeType`, if any.
    pub mime_type: Option<&'static str>,
}

impl StaticResource {
    /// The resource at `uri` named `name`, with no other member.
    pub const fn new(uri: &'static str, name: &'static str) -> Self {
        Self {
            uri,
            name,
            title: None,
            description: None,
            mime_type: None,
        }
    }

    /// Sets [`StaticResource::title`].
    #[must_use]
    pub const fn with_title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets [`StaticResource::description`].
    #[must_use]
    pub const fn with_description(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }

    /// Sets [`StaticResource::mime_type`].
    #[must_use]
    pub const fn with_mime_type(mut self, mime_type: &'static str) -> Self {
        self.mime_type = Some(mime_type);
        self
    }
}

/// A resource template of a pinned server (`resources/templates/list`), as a type whose
/// values are the template's variables; implemented by generated types.
pub trait ResourceTemplate {
    /// The RFC 6570 `uriTemplate`, as the server listed it.
    const URI_TEMPLATE: &'static str;
    /// The template's `name`.
    const NAME: &'static str;
    /// Its `title`, if any.
    const TITLE: Option<&'static str>;
    /// Its `description`, if any.
    const DESCRIPTION: Option<&'static str>;
    /// The `mimeType` of what it names, if given.
    const MIME_TYPE: Option<&'static str>;
    /// `sha256:<hex>` digest of the template's entry in the snapshot.
    const DIGEST: &'static str;

    /// Each variable's name and value (an unset optional one [`TemplateValue::Undefined`]).
    fn values(&self) -> Vec<(&'static str, TemplateValue)>;

    /// The URI: [`ResourceTemplate::URI_TEMPLATE`] expanded with
    /// [`ResourceTemplate::values`] (RFC 6570, percent-encoding as its operators say).
    ///
    /// # Errors
    /// [`UriTemplateError`] when the template is not RFC 6570 or a list meets a prefix
    /// modifier; generated types hold a kind of value that fits each variable, so their
    /// expansion fails only for a template oma-mcp-build refused to type.
    fn uri(&self) -> Result<String, UriTemplateError> {
        oma_mcp_core::uri_template::expand(Self::URI_TEMPLATE, &self.values())
    }
}

/// What [`McpClient::read`] reads: anything that names a resource by URI. Implemented for
/// [`StaticResource`], for `str` and `String` (a URI known at run time), and by generated
/// resource template types (through [`ResourceTemplate::uri`]).
pub trait ResourceUri {
    /// The URI to read.
    ///
    /// # Errors
    /// [`UriTemplateError`] when a template does not expand.
    fn resource_uri(&self) -> Result<Cow<'_, str>, UriTemplateError>;
}

impl ResourceUri for StaticResource {
    fn resource_uri(&self) -> Result<Cow<'_, str>, UriTemplateError> {
        Ok(Cow::Borrowed(self.uri))
    }
}

impl ResourceUri for str {
    fn resource_uri(&self) -> Result<Cow<'_, str>, UriTemplateError> {
        Ok(Cow::Borrowed(self))
    }
}

impl ResourceUri for String {
    fn resource_uri(&self) -> Result<Cow<'_, str>, UriTemplateError> {
        Ok(Cow::Borrowed(self))
    }
}

impl<T: ResourceUri + ?Sized> ResourceUri for &T {
    fn resource_uri(&self) -> Result<Cow<'_, str>, UriTemplateError> {
        (**self).resource_uri()
    }
}

impl McpClient {
    /// Reads a resource (`resources/read` with its URI) and returns its contents, in the
    /// server's order: text, or the bytes of a blob decoded from base64.
    ///
    /// # Errors
    /// [`ConfigError::UriTemplate`] when a template does not expand (nothing is sent);
    /// [`RequestError::Rpc`](crate::error::RequestError::Rpc) as the server answers (a
    /// resource not found is -32002 in MCP 2025-11-25 and -32602 Invalid params in servers of
    /// later revisions, such as rmcp's),
    /// [`RequestError::Timeout`](crate::error::RequestError::Timeout),
    /// a closed connection ([`Error::Disconnected`]), and
    /// [`ProtocolError::InvalidResponse`](crate::error::ProtocolError::InvalidResponse) when
    /// the result is not a `ReadResourceResult` (naming the JSON pointer and the URI).
    pub async fn read(&self, resource: impl ResourceUri) -> Result<Vec<ResourceContent>, Error> {
        let uri = resource
            .resource_uri()
            .map_err(|e| Error::Config(ConfigError::UriTemplate(e)))?;
        let params = serde_json::json!({ "uri": uri });
        let result = self.request_raw("resources/read", &params).await?;
        oma_mcp_core::content::map_read_result(&result)
            .map_err(|e| self.invalid("resources/read", format!("resource \"{uri}\": {e}")))
    }
}
