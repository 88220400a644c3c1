//! The pure core of oma-mcp: the rules that need no connection, no async runtime and no I/O,
//! so a reader can test each of them with plain values.
//!
//! **The behaviour contract.** Tool names and result mapping follow open-multi-agent's
//! `connectMCPTools()` exactly, as its `docs/mcp.md` documents them; the docs here cite that
//! page's sections by title ("Tool names", "Result mapping"). Protocol behaviour cites the MCP
//! specification by revision, schema behaviour JSON Schema by keyword.
//!
//! - [`naming`]: `<prefix>_<name>` with every `/` replaced by `_`, and the collision check
//!   ("Tool names").
//! - [`result`]: the mapping from a raw `tools/call` result to a [`ToolResult`]
//!   ("Result mapping"); [`call_outcome`]: a result that asks for more input (MCP 2026-07-28);
//!   [`content`]: the results of `prompts/get`, `resources/read` and `completion/complete`
//!   mapped (a prompt's blocks as a tool result's are).
//! - [`uri_template`]: RFC 6570 URI templates, the `uriTemplate` of resource templates: each
//!   variable's operator and modifiers, and expansion; [`task`]: the rules of task-backed
//!   calls in MCP 2025-11-25 and 2026-07-28.
//! - [`snapshot`]: the canonical, committed snapshot of a server's `tools/list` and its
//!   per-item digests, and where a pin asks for them its prompts, resources, templates and
//!   instructions ([The snapshot format](#the-snapshot-format)).
//! - [`descriptor`]: [`ToolDescriptor`], one MCP tool as a model sees it (name, description,
//!   input schema, whether it is consequential), independent of any agent framework.
//! - [`consequential`]: which tools need confirmation before they run (the `consequential`
//!   entries, else a trusted `destructiveHint`), one rule for generated and discovered tools.
//! - [`drift`]: what changed between two `tools/list`s, each change classified breaking,
//!   warning or info ([Drift rules](#drift-rules)).
//! - [`config`]: [`ConnectConfig`](config::ConnectConfig), the settings of a connection
//!   (open-multi-agent's "Options"): what the runtime connects with and what `oma-mcp-build`
//!   writes into generated code.
//! - [`scan`]: the text scanner: rules over every text a model reads from a server (tool
//!   names, descriptions and schemas, prompts, resources, the instructions), each finding
//!   with a rule id, a level, a JSON pointer and an escaped excerpt; no network, no model.
//! - [`redact`]: URLs as they may be shown (credentials replaced by `***`).
//! - [`pointer`](mod@pointer): JSON pointers of local `$ref`s; [`quote`]: how server-provided
//!   text is quoted in messages (cut to an excerpt, a JSON value's kind named) and the
//!   bidirectional formatting characters that must not reach a terminal or a doc comment.
//! - [`error`]: [`Chain`](error::Chain) and [`Report`](error::Report) print any error with its
//!   causes. Each rule's error lives beside it: [`NameCollision`], [`SnapshotError`],
//!   [`DriftRefused`].
//!
//! `oma-mcp-runtime` (the client: connections, typed calls, the tool layer) and
//! `oma-mcp-build` (code generation for `build.rs`) sit on top of this crate; it imports
//! neither. It reads and writes files in two places only, each a convenience over a pure
//! function beside it: [`Snapshot::read`] (`std::fs::read` and [`Snapshot::parse`]) and a
//! cassette's `read` and `write` ([`cassette`]; the write goes through a temporary file and a
//! rename, so a reader never sees half a cassette).
//!
//! Data flows one way: server → snapshot → generated code → typed call → drift report.
//!
//! # The snapshot format
//!
//! A [`Snapshot`] file (`"format": "oma-mcp-snapshot/2"`) has every object's keys sorted,
//! 2-space indent and a trailing newline, and no timestamps, so it diffs cleanly and is
//! byte-identical across runs against the same server. It pins what a model or a user is
//! shown: the tools, and, as the pin's `pin` list says (all four by default), the server's
//! prompts, resources and resource templates, and instructions:
//!
//! ```json
//! {
//!   "capabilities": { "prompts": {}, "resources": { "subscribe": true }, "tools": {} },
//!   "format": "oma-mcp-snapshot/2",
//!   "instructions": "Search before you fetch.",
//!   "prompts": [
//!     { "descriptor": { "arguments": [{ "name": "code", "required": true }], "name": "review" },
//!       "digest": "sha256:…" }
//!   ],
//!   "protocolVersion": "2025-06-18",
//!   "resourceTemplates": [
//!     { "descriptor": { "name": "file", "uriTemplate": "file:///{path}" }, "digest": "sha256:…" }
//!   ],
//!   "resources": [
//!     { "descriptor": { "name": "readme", "uri": "memo://readme" }, "digest": "sha256:…" }
//!   ],
//!   "serverInfo": { "name": "mcp-servers/everything", "version": "2.0.0" },
//!   "source": { "args": ["stdio"], "command": "mcp-server-everything" },
//!   "tools": [
//!     { "descriptor": { "inputSchema": { "type": "object" }, "name": "echo" },
//!       "digest": "sha256:…" }
//!   ]
//! }
//! ```
//!
//! - `capabilities` is the server's `capabilities` object as sent (the `initialize` or
//!   `server/discover` result), extensions included.
//! - `instructions` is present when the pin asks for it: the server's text, or `null` when it
//!   sent none.
//! - `prompts` (from `prompts/list`: name, title, description, arguments), `resources` (from
//!   `resources/list`: uri, name, title, description, mimeType, annotations) and
//!   `resourceTemplates` (from `resources/templates/list`) are present when the pin asks for
//!   them, each entry exactly as the server listed it with its own `digest`, sorted by name
//!   (prompts, templates) or URI (resources). Each list is taken over every page, and only
//!   when the server declares the `prompts` or `resources` capability (else it is empty).
//! - `cut`, only when a bound cut a list: `{"resources": 1000}` says the server listed more
//!   than 1000 resources and the first 1000, in the server's order, are pinned.
//! - A snapshot of the tools alone, without capabilities, is written as format 1
//!   (`"format": "oma-mcp-snapshot/1"`), as every snapshot was before format 2, so those files
//!   do not change; readers take both.
//! - `tools` is sorted by the raw MCP tool name (byte order); each `descriptor` is the tool
//!   exactly as the server sent it, every field kept (also `execution`, `icons`, `_meta` and
//!   vendor keys), only with its object keys sorted.
//! - `digest` is `sha256:` + the lowercase hex SHA-256 of the descriptor's canonical JSON
//!   ([`canonical_json`](snapshot::canonical_json): RFC 8785 style, keys sorted by UTF-16
//!   code units, no whitespace; unlike RFC 8785, numbers are written as `serde_json` writes
//!   them, so `1.0` stays `1.0`).
//! - Numbers: an integer within the `i64`/`u64` range is kept exactly; any other number is
//!   kept as the nearest `f64` (`123456789012345678901234` becomes `1.2345678901234569e23`).
//!   Schemas use numbers for bounds and defaults, where this never shows; a server that
//!   needs more digits gets them rounded in the snapshot, the same on every run.
//! - `source` records where the snapshot was taken from, never a value taken from the
//!   environment: the command and arguments of a server started over stdio, or, for a server
//!   reached over streamable HTTP, its URL redacted ([`redact_url`](redact::redact_url)), its
//!   literal headers (name and value) and the names (only) of the headers whose values come
//!   from environment variables:
//!
//! ```json
//! "source": {
//!   "headers": { "X-MCP-Toolsets": "repos,issues" },
//!   "headersFromEnv": ["Authorization"],
//!   "url": "https://api.githubcopilot.com/mcp/"
//! }
//! ```
//!
//! - `invalidTools`, only when it is not 0: how many entries of the server's `tools/list`
//!   were not tool objects (`null`, a number, an object without a string `name`) and were
//!   left out of `tools` ([`split_tool_entries`](descriptor::split_tool_entries)). The client
//!   warns about each one, naming its index and what is wrong; drift reports a change of the
//!   count. A `tools` entry of the file itself without a string `name` is still an invalid
//!   snapshot.
//!
//! ```json
//! "invalidTools": 3,
//! ```
//!
//! Readers also accept a bare `tools/list` result (`{"tools": [...]}`, with an optional
//! top-level string `instructions`, other keys ignored) and a whole JSON-RPC response whose
//! `result` is one; digests are computed for those.
//!
//! # Drift rules
//!
//! [`diff`](drift::diff) compares an old [`Snapshot`] (the committed pin) with a new one (a
//! live server, or another file) and returns a [`DriftReport`]: a list of [`Change`]s, each
//! with the tool (or prompt, resource, template), a JSON pointer into its descriptor, a
//! [`ChangeKind`], a [`Severity`], a [`Direction`] and a one-line message. The engine is pure:
//! same inputs, same changes in the same order (server lines first, then tools by raw name,
//! each tool's changes in schema order, the `$ref` targets a schema leads to after it, in the
//! order first reached; then prompts, resource templates and resources by name). Items with
//! equal digests are skipped without looking inside them.
//!
//! Sources: MCP specification revision 2025-06-18, "Tools" (`Tool.inputSchema`,
//! `Tool.outputSchema`, `Tool.title`, `ToolAnnotations` and their defaults), and the JSON
//! Schema 2020-12 validation vocabulary (`type`, `enum`, `const`, `required`,
//! `dependentRequired`, the numeric, string, array, object and `contains` bounds, `pattern`)
//! and applicators (`properties`, `patternProperties`, `additionalProperties`,
//! `propertyNames`, `unevaluatedProperties`, `items`, `prefixItems`, `contains`,
//! `unevaluatedItems`, `anyOf`/`oneOf`/`allOf`, `not`, `if`/`then`/`else`, `dependentSchemas`,
//! local `$ref`: a `#…` JSON pointer, percent-decoded as a URI fragment, into the same schema,
//! followed through chains and cycles of any length).
//!
//! | change | input (what we send) | output (what we receive) |
//! |---|---|---|
//! | property removed | breaking | breaking |
//! | optional property added | info | info |
//! | required property added / property newly required | breaking | info |
//! | property no longer required | warning (the generated constructor no longer takes it; info for a `const`) | breaking |
//! | order of `required` changed among the properties required on both sides (the generated constructor's parameter order) | breaking | warning |
//! | type narrowed, became non-nullable, enum value removed, `const` added, bound tightened, `pattern` added, `additionalProperties`/`unevaluatedProperties`/`unevaluatedItems`/`additionalItems` became false, union branch removed, `allOf` branch added, `anyOf` became `oneOf` | breaking | info |
//! | type widened, became nullable, enum value added, `const` removed, bound relaxed, `pattern` removed, one of those keywords no longer false, union branch added, `allOf` branch removed, `oneOf` became `anyOf` | info | breaking |
//! | assertion added: `not`, `contains`, `dependentRequired`, `dependencies`, `if`/`then`/`else`, a `patternProperties` or `dependentSchemas` entry | breaking | info |
//! | such an assertion removed | info | breaking |
//! | type, `const`, `pattern`, `format` or such an assertion changed to an unrelated value; a `patternProperties` entry added or removed beside a constraining `additionalProperties`/`unevaluatedProperties` | breaking | breaking |
//! | a schema became invalid: not an object or a boolean (the whole input or output schema: not an object, as MCP requires) | breaking | breaking |
//! | a difference that cannot be compared: a non-local or dangling `$ref`, nesting deeper than 128 levels, an old side that was not a schema | warning | warning |
//! | output schema added / removed | | info / breaking |
//! | description or title changed (tool, annotation or any schema) | warning | warning |
//! | annotations and unknown keywords (`default`, `examples`, `readOnly`, `deprecated`, `$comment`, vendor keys, …); a bound restated with the same meaning | info | info |
//!
//! Subschemas (`properties`, `items`, `additionalProperties`, `propertyNames`, `$ref` targets,
//! branches, …) are compared keyword by keyword with the same rules; an absent
//! `minContains` is 1. When both sides hold a `$ref`, the keywords beside it apply too
//! (2019-09 and later): they are compared as a schema of their own at the referring pointer,
//! and the targets at theirs, once per pair of targets (a shared or recursive definition is
//! reported once; the keywords beside each reference to it are not skipped). When one side
//! holds a `$ref` and the other does not, the target with the keywords beside the `$ref` laid
//! over it faces the other side. A plain schema facing an `anyOf`/`oneOf` is one branch of
//! it; the keywords beside the union are compared with the plain schema's same keywords
//! (and, when they differ, left out of its branch). Enum values are matched by hash
//! (canonical JSON). Union and `allOf` branches are paired whatever their order: equal
//! branches first, then branches equal apart from their annotations (`description`, `title`,
//! `default`, `examples`, `$comment`), then branches of the same type or shape, then the rest
//! by position; each pass is hashed, so large enums and unions take linear time. `oneOf`
//! → `anyOf` at the same place widens (a value matching exactly one branch matches at least
//! one), `anyOf` → `oneOf` narrows.
//!
//! A value that narrows what the schema accepts breaks input (the generated code may send a
//! value the server now rejects); one that widens it breaks output (the server may send a
//! value the generated types cannot hold). Tools: removed → breaking, added → info.
//! Annotations (compared with the specification's defaults: `readOnlyHint` false,
//! `destructiveHint` true, `idempotentHint` false, `openWorldHint` true): `readOnlyHint`
//! true→false or `destructiveHint` false→true → breaking (the tool became more dangerous and a
//! consequential wrapper may now be missing); any other change of a hint's value → warning; a
//! hint that now states its default explicitly → info, except when the code generator's
//! `McpTool::CONSEQUENTIAL` flag (explicit `destructiveHint: true` and no explicit
//! `readOnlyHint: true`, [`consequential`]) changes: true → false, as for `destructiveHint`
//! true → absent, is a warning saying the generated code no longer marks the tool
//! consequential unless the manifest lists it; false → true, as for `destructiveHint` absent →
//! true, is a warning (or the breaking line of a more dangerous tool) saying typed calls now
//! need `.confirmed()`. Other descriptor fields (`_meta`,
//! `icons`, `execution`, vendor keys) → info; a change of `execution.taskSupport` says what
//! it means (a tool that comes to require a task is info for oma-mcp, which asks for one, and
//! the line says a client without task support can no longer call it). A different protocol
//! version or
//! `serverInfo.version` → info. More `tools/list` entries that are not tool objects than
//! the old side's `invalidTools` → warning (`invalid_tools_changed`: they are left out, so a
//! tool the server meant to offer may be missing); fewer → info.
//!
//! The rest of the surface (MCP specification revision 2025-06-18: "Lifecycle"
//! `ServerCapabilities` and `instructions`, "Prompts", "Resources"), each kind compared only
//! where both sides pin it (a live client's own reading at connect pins tools and
//! instructions, so run-time drift never reports prompts as removed); capabilities only where
//! both sides record them:
//!
//! | change | severity | kind |
//! |---|---|---|
//! | a capability removed, or an `experimental`/`extensions` entry removed | breaking | `capability_removed` |
//! | a capability added | info | `capability_added` |
//! | a capability flag (`listChanged`, `subscribe`) that was true and is not | warning | `capability_changed` |
//! | any other change inside a capability | info | `capability_changed` |
//! | instructions added or rewritten | warning | `instructions_changed` |
//! | instructions removed | info | `instructions_changed` |
//! | `serverInfo` name or title changed | info | `server_info_changed` |
//! | a format 1 pin against a reading that pins prompts or resources (once) | info | `snapshot_format_old` |
//! | a list cut by its bound on the new side (once per list) | info | `list_cut` |
//! | a pinned list the live server fails to list (`oma-mcp check`: an error answer, a timeout, a repeated cursor) | breaking | `list_unread` |
//! | a prompt, resource or resource template removed | breaking (info when a bound cut that list) | `prompt_removed`, `resource_removed`, `resource_template_removed` |
//! | a prompt, resource or resource template added | info | `prompt_added`, `resource_added`, `resource_template_added` |
//! | a prompt argument removed, or a required one added, or one newly required | breaking | `prompt_argument_removed`, `prompt_argument_required` |
//! | a prompt argument no longer required | warning | `prompt_argument_no_longer_required` |
//! | an optional prompt argument added | info | `prompt_argument_added` |
//! | a resource template whose RFC 6570 variables changed | breaking | `template_variables_changed` |
//! | a template's `uriTemplate` rewritten with the same variables | warning | `uri_template_changed` |
//! | a `mimeType` changed | warning | `mime_type_changed` |
//! | a title or description (of the item or of a prompt argument), a resource's name | warning | `title_changed`, `description_changed`, `field_changed` |
//! | any other member (`size`, `annotations`, `icons`, `_meta`, …) | info | `field_changed` |
//!
//! A change of a prompt, resource or template has the direction `prompt`, `resource` or
//! `resource_template`, and its `tool` is the prompt's or template's name or the resource's
//! URI.
//!
//! A server that answers two sessions differently ([`inconsistencies`](drift::inconsistencies),
//! `oma-mcp check --probe`: a second session under another `clientInfo`, and one under the
//! other lifecycle where the server has both) → breaking (`inconsistent_server`), every
//! difference but the protocol version, with both texts.
//!
//! Generated Rust names (added by [`rust_name_changes`](drift::rust_name_changes) and [`rust_field_changes`](drift::rust_field_changes), which
//! `oma-mcp check` and `diff` feed with the code generator's names of both sides): a tool in
//! both lists whose marker type is named differently, a name that now belongs to another tool
//! than before, and a property in both whose field is named differently → breaking
//! (`rust_name_changed`; direction `tool`, or `input`/`output` for a field). Code using the
//! old name stops compiling, or, for a name that moved, would call the other tool.
//!
//! At run time a [`DriftPolicy`] says what a connection does with the changes: `Ignore`,
//! `Log` (every change with `tracing`), `FailOnBreaking` and `FailOnAny` (refuse the
//! connection), or `Quarantine`: log every change, never refuse the connection, and withhold
//! each tool that differs from its pin ([`withheld_tools`](drift::withheld_tools)): a tool
//! whose digest differs from its pinned descriptor, a tool the pin lacks (nothing pinned,
//! nothing trusted) and a pinned tool the server no longer lists. A withheld tool is left out
//! of what a model is shown, and a call of it fails at once with
//! [`ToolWithheld`](drift::ToolWithheld), which names the tool and its first changes. A
//! tool whose text changed has a changed digest, so rewriting a description withholds the
//! tool; a tool whose digest equals the pinned one is never withheld. The runtime applies the
//! rule at connect and again after every `notifications/tools/list_changed` (MCP
//! specification 2025-06-18, "Tools — List Changed Notification").
//!
//! A pin that selects tools ([`select`]: `tools`, `exclude-tools`): every change of a tool it
//! leaves out, its input, output, text or a new scan finding in it, is info
//! ([`DriftReport::for_selection`](drift::DriftReport::for_selection)); a tool added that the
//! selection selects is info as every addition is. At run time the unselected tools are
//! neither listed nor compared.
//!
//! Cassettes of recorded sessions (`oma-mcp check`, a pin's `cassettes`): a recorded call of a
//! tool the snapshot lacks, with arguments its `inputSchema` refuses, or with an output its
//! `outputSchema` refuses, and a cassette that cannot be read → breaking (`cassette_stale`).
//!
//! The committed files on their own (`oma-mcp check --offline`, no server): a snapshot file
//! whose bytes are not [`Snapshot::to_canonical_string`] of what it holds → breaking
//! (`snapshot_not_canonical`); a snapshot whose `source` holds what looks like a credential (a
//! URL's userinfo or query value that is not `***`, a literal header named like a credential,
//! a command argument that sets one) → breaking (`snapshot_secret`). Both are server lines
//! (direction `server`, empty `tool`); a secret's `pointer` points into the file's `source`.
//!
//! The registry entry of a pin made from an MCP registry (`oma-mcp add`, a pin's `registry`
//! table): the entry deprecated, deleted or no longer found → warning; a newer version
//! published → info (`registry_status`, a server line).

pub mod call_outcome;
pub mod cassette;
pub mod config;
pub mod consequential;
pub mod content;
pub mod descriptor;
pub mod drift;
pub mod entries;
pub mod error;
pub mod naming;
pub mod pointer;
pub mod provider;
pub mod quote;
pub mod redact;
#[cfg(test)]
mod reference_cases;
pub mod result;
pub mod scan;
pub mod select;
pub mod snapshot;
pub mod task;
pub mod uri_template;

pub use call_outcome::{CallOutcome, InputRequired};
pub use descriptor::ToolDescriptor;
pub use drift::{Change, ChangeKind, Direction, DriftPolicy, DriftRefused, DriftReport, Severity};
pub use naming::{NameCollision, normalize_tool_name};
pub use result::{FileSource, ImageSource, ModelPart, ToolResult, map_call_result};
pub use snapshot::{
    ItemKind, Pin, Snapshot, SnapshotError, SnapshotItem, SnapshotSource, SnapshotTool,
};
