//! Connecting to an MCP server over stdio (seed, "Connecting to a server").

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::{Error, ToolResult};

/// Options of [`connect_mcp_tools`] (seed, "Options").
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectConfig {
    /// Executable to spawn.
    pub command: String,
    /// Arguments.
    pub args: Vec<String>,
    /// Environment.
    pub env: BTreeMap<String, String>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// Name prefix.
    pub name_prefix: Option<String>,
    /// Timeout.
    pub request_timeout: Duration,
    /// Client name.
    pub client_name: String,
    /// Client version.
    pub client_version: String,
}

/// A discovered tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DiscoveredTool {
    /// Normalized name.
    pub name: String,
    /// Raw MCP name.
    pub mcp_name: String,
    /// Raw descriptor.
    pub descriptor: Value,
}

/// A connected client.
#[derive(Debug)]
pub struct McpClient {}

/// Connects.
pub async fn connect_mcp_tools(config: ConnectConfig) -> Result<McpClient, Error> {
    todo!("{config:?}")
}

impl McpClient {
    /// Calls a tool, mapped.
    pub async fn call_tool(&self, raw_name: &str, args: Option<Map<String, Value>>) -> ToolResult {
        todo!("{raw_name}{args:?}")
    }
}
