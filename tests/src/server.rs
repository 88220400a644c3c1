//! The normal mode: an MCP server built with rmcp's server side (`#[tool_router]`).

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, CompleteRequestParams, CompleteResult, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter,
    UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, Json, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{AUDIO_WAV_BASE64, BLOB_BASE64, SERVER_NAME, TINY_PNG_BASE64};

/// `echo` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EchoArgs {
    /// The text to echo back.
    pub message: String,
}

/// `add` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AddArgs {
    /// Left operand.
    pub a: i64,
    /// Right operand.
    pub b: i64,
}

/// `sleep` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SleepArgs {
    /// How long to sleep before answering, in milliseconds.
    pub ms: u64,
}

/// The kind of a pet: a plain string enum, `"cat"` or `"dog"`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PetKind {
    // No doc comments here: they would turn the schema's `enum` into a `oneOf` of `const`s.
    Cat,
    Dog,
}

/// A pet (a nested object argument).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Pet {
    /// The pet's name.
    pub name: String,
    /// The pet's kind.
    pub kind: PetKind,
}

/// `describe_pet` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DescribePetArgs {
    /// The pet.
    pub pet: Pet,
    /// Optional tags.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
}

/// `structured` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct StructuredArgs {
    /// The city to report on.
    pub city: String,
}

/// `structured` output (its JSON schema becomes the tool's `outputSchema`).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Weather {
    /// The city asked for.
    pub city: String,
    /// Always 21.
    pub temperature_c: i64,
    /// Always `sunny`.
    pub conditions: String,
}

/// `get_env` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GetEnvArgs {
    /// The environment variable to read.
    pub name: String,
}

/// `exit` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExitArgs {
    /// The exit code (default 0).
    #[serde(default)]
    pub code: i32,
}

/// `big` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BigArgs {
    /// How many `x` characters the text block holds.
    pub bytes: usize,
}

/// The test server (normal mode).
#[derive(Debug, Clone)]
pub struct TestServer {
    tool_router: ToolRouter<Self>,
}

impl Default for TestServer {
    fn default() -> Self {
        Self::new()
    }
}

/// Parses a `CallToolResult` written as JSON (the exact wire shape we want to send).
fn from_json(value: Value) -> Result<CallToolResult, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

#[tool_router(router = tool_router)]
impl TestServer {
    /// A server with every tool below.
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// `echo {message}` → text `Echo: <message>`.
    #[tool(description = "Echoes the message back as `Echo: <message>`")]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        format!("Echo: {}", args.message)
    }

    /// `add {a, b}` → the sum as text.
    #[tool(description = "Adds two integers and returns the sum as text")]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        a.saturating_add(b).to_string()
    }

    /// An image block (a 1x1 PNG) and a text block.
    #[tool(description = "Returns a 1x1 PNG image block followed by a text block")]
    async fn tiny_image(&self) -> Result<CallToolResult, ErrorData> {
        from_json(json!({"content": [
            {"type": "image", "data": TINY_PNG_BASE64, "mimeType": "image/png"},
            {"type": "text", "text": "A 1x1 PNG."}
        ]}))
    }

    /// Two `resource_link` blocks: an https URL with a description and a `file:` URI.
    #[tool(description = "Returns two resource_link blocks (https and file:)")]
    async fn resource_links(&self) -> Result<CallToolResult, ErrorData> {
        from_json(json!({"content": [
            {"type": "resource_link", "uri": "https://example.com/docs/readme.md",
             "name": "readme.md", "description": "The project readme", "mimeType": "text/markdown"},
            {"type": "resource_link", "uri": "file:///tmp/oma-mcp/notes.txt", "name": "notes.txt"}
        ]}))
    }

    /// An embedded text resource and an embedded blob resource.
    #[tool(description = "Returns an embedded text resource and an embedded blob resource")]
    async fn embedded_resource(&self) -> Result<CallToolResult, ErrorData> {
        from_json(json!({"content": [
            {"type": "resource", "resource":
                {"uri": "memo://greeting", "mimeType": "text/plain", "text": "Hello from a resource"}},
            {"type": "resource", "resource":
                {"uri": "memo://data.bin", "mimeType": "application/octet-stream", "blob": BLOB_BASE64}}
        ]}))
    }

    /// An audio block.
    #[tool(description = "Returns an audio block (audio/wav)")]
    async fn audio(&self) -> Result<CallToolResult, ErrorData> {
        from_json(json!({"content": [
            {"type": "audio", "data": AUDIO_WAV_BASE64, "mimeType": "audio/wav"}
        ]}))
    }

    /// A result with `isError: true`.
    #[tool(description = "Always returns an isError result")]
    async fn fail(&self) -> Result<CallToolResult, ErrorData> {
        from_json(
            json!({"content": [{"type": "text", "text": "This tool always fails"}], "isError": true}),
        )
    }

    /// Sleeps `ms` milliseconds, then answers `Slept <ms> ms`.
    #[tool(description = "Sleeps for `ms` milliseconds, then answers")]
    async fn sleep(&self, Parameters(SleepArgs { ms }): Parameters<SleepArgs>) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("Slept {ms} ms")
    }

    /// A nested object argument with a string enum and an optional array.
    #[tool(description = "Describes a pet: `<name> is a <kind>` plus its tags")]
    async fn describe_pet(
        &self,
        Parameters(DescribePetArgs { pet, tags }): Parameters<DescribePetArgs>,
    ) -> String {
        let kind = match pet.kind {
            PetKind::Cat => "cat",
            PetKind::Dog => "dog",
        };
        match tags {
            Some(tags) if !tags.is_empty() => {
                format!("{} is a {kind}, tagged: {}", pet.name, tags.join(", "))
            }
            _ => format!("{} is a {kind}", pet.name),
        }
    }

    /// `structuredContent` with an `outputSchema`.
    #[tool(description = "Returns the weather as structuredContent (with an outputSchema)")]
    async fn structured(
        &self,
        Parameters(StructuredArgs { city }): Parameters<StructuredArgs>,
    ) -> Json<Weather> {
        Json(Weather {
            city,
            temperature_c: 21,
            conditions: "sunny".to_owned(),
        })
    }

    /// The value of an environment variable of the server, or `<unset>`.
    #[tool(description = "Returns the server's value of an environment variable, or <unset>")]
    async fn get_env(&self, Parameters(GetEnvArgs { name }): Parameters<GetEnvArgs>) -> String {
        std::env::var(&name).unwrap_or_else(|_| "<unset>".to_owned())
    }

    /// Exits the server process immediately, without answering.
    #[tool(description = "Exits the server process at once, without answering")]
    async fn exit(&self, Parameters(ExitArgs { code }): Parameters<ExitArgs>) -> String {
        std::process::exit(code)
    }

    /// A text block of `bytes` times `x`.
    #[tool(description = "Returns a text block of `bytes` times `x`")]
    async fn big(&self, Parameters(BigArgs { bytes }): Parameters<BigArgs>) -> String {
        "x".repeat(bytes)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions("oma-mcp's own deterministic test server")
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        crate::surface::prompts()
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        crate::surface::prompt(&request).map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        crate::surface::resources(request.as_ref())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        crate::surface::resource_templates()
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if let Some(read) = crate::surface::read_subscriptions(&request.uri, &context.peer).await {
            return read.map(Into::into);
        }
        crate::surface::read(&request).map(Into::into)
    }

    #[allow(deprecated)] // `resources/subscribe`, before MCP 2026-07-28
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::surface::subscribe(&request.uri, &context.peer).await
    }

    #[allow(deprecated)] // `resources/unsubscribe`, before MCP 2026-07-28
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::surface::unsubscribe(&request.uri);
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        crate::surface::complete(&request)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(crate::surface::accepted_subscriptions(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        crate::surface::listen(context).await
    }
}
