//! The pure mapping from a raw `tools/call` result to a [`ToolResult`] (open-multi-agent's
//! `docs/mcp.md`, "Result mapping" and "Errors"). No I/O in this module.
//!
//! [`map_call_result`] reads the raw JSON result (never an SDK-typed parse, which would drop the
//! legacy `toolResult` or reject unknown block types) and produces:
//!
//! - `data`: the legacy `toolResult` as pretty JSON if present (also when it is `null`);
//!   otherwise one line per content block (see open-multi-agent's table), joined with `\n`; when
//!   `content` yields no lines, `structuredContent` as pretty JSON if present (also `null`),
//!   then the whole result as compact JSON.
//! - `is_error`: `true` only when the result has `"isError": true` exactly.
//! - `model_output`: only when the result is not an error and at least one block converts to
//!   media (an image with a bare MIME type, a blob resource, an `http(s)` resource link).
//!
//! JSON text is written as JavaScript's `JSON.stringify` writes it, and lengths count UTF-16
//! code units, so the output is byte-identical to the reference implementation on the
//! committed cases of `tests/fixtures/mapping-cases.json`. serde_json's pretty printer is not used
//! because it prints numbers differently (`1.0`, `-0.0`, exact 64-bit integers, `1e21`; JavaScript
//! prints the parsed double: `1`, `0`, `12345678901234567000`, `1e+21`) and keeps array-index keys
//! such as `"2"` in the server's order, where a JavaScript object lists them first, ascending.
//! Numbers are exact only if the `Value` was parsed with correctly rounded floats, which is why
//! this crate enables serde_json's `float_roundtrip` feature.
//!
//! Known divergence: file names come from the `url` crate's WHATWG parse, which (2.5) treats
//! Windows-drive-letter-like segments (`C:`, `c|`) differently from Node's `URL` (it keeps
//! `c|` in `file:` URLs and does not pop such a segment with `..` in any scheme), so a URI
//! whose last or `..`-removed segment looks like a drive letter can get another file name.
//!
//! Where the reference would throw on a malformed result (a result that is not an object, a
//! `content` that is not an array), this mapping never fails: a non-object result has no
//! fields (its data is its compact JSON), and a non-array `content` has no blocks.

mod json_text;
mod media;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use media::{filename, http_url, is_bare_media_type, media_type_or_default, utf16_len};

/// What a tool call gives the model (open-multi-agent's `ToolResult`, `docs/mcp.md`, sections
/// "Result mapping" and "Errors").
///
/// Build one with [`map_call_result`] (a server's result) or [`ToolResult::failed`] (a call
/// that did not produce a result); [`ToolResult::to_json`] gives its JSON form.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolResult {
    /// The text form of the result (open-multi-agent's `docs/mcp.md`, "Text (`data`)").
    pub data: String,
    /// `true` when the server set `isError: true` or the call failed (open-multi-agent's
    /// `docs/mcp.md`, "Errors").
    pub is_error: bool,
    /// Model-visible parts, present only when the result is not an error and at least one
    /// block converts to media (open-multi-agent's `docs/mcp.md`, "Model-visible parts
    /// (`modelOutput`)").
    pub model_output: Option<Vec<ModelPart>>,
}

/// One model-visible part (open-multi-agent's `docs/mcp.md`, "Model-visible parts
/// (`modelOutput`)").
///
/// Serializes (serde) to exactly open-multi-agent's shapes:
/// `{"type":"text","text":…}`, `{"type":"image","source":{"type":"base64","media_type":…,
/// "data":…}}` and `{"type":"file","filename":…,"source":{"type":"base64","media_type":…,
/// "data":…}}` or `…"source":{"type":"url","media_type":…,"url":…}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ModelPart {
    /// `{"type":"text","text":…}`
    Text {
        /// The text.
        text: String,
    },
    /// `{"type":"image","source":{…}}`: an MCP `image` block with a bare `type/subtype` MIME.
    Image {
        /// Where the image bytes are.
        source: ImageSource,
    },
    /// `{"type":"file","filename":…,"source":{…}}`: a blob resource (base64) or an
    /// `http(s)` resource link (URL).
    File {
        /// The file name: the resource `name`, else the last URI path segment, else
        /// `mcp-resource`.
        filename: String,
        /// Where the file bytes are.
        source: FileSource,
    },
}

/// The `source` of an image part: `{"type":"base64","media_type":…,"data":…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ImageSource {
    /// Inline base64 data, passed through unchanged (the mapping does not validate base64).
    Base64 {
        /// The image's bare `type/subtype`, e.g. `image/png`.
        media_type: String,
        /// The base64 payload exactly as the server sent it.
        data: String,
    },
}

/// The `source` of a file part: `{"type":"base64","media_type":…,"data":…}` or
/// `{"type":"url","media_type":…,"url":…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum FileSource {
    /// Inline base64 data from a `resource` block's `blob`.
    Base64 {
        /// The blob's bare `mimeType`, else `application/octet-stream`.
        media_type: String,
        /// The base64 payload exactly as the server sent it.
        data: String,
    },
    /// A `resource_link` to an `http:` or `https:` URL.
    Url {
        /// The link's bare `mimeType`, else `application/octet-stream`.
        media_type: String,
        /// The link's `uri`, exactly as the server sent it (not normalized).
        url: String,
    },
}

impl ModelPart {
    /// This part as JSON, the same value its `Serialize` impl produces (built directly, so it
    /// cannot fail).
    pub fn to_json(&self) -> Value {
        match self {
            Self::Text { text } => json!({"type": "text", "text": text}),
            Self::Image {
                source: ImageSource::Base64 { media_type, data },
            } => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": media_type, "data": data},
            }),
            Self::File { filename, source } => {
                let source = match source {
                    FileSource::Base64 { media_type, data } => {
                        json!({"type": "base64", "media_type": media_type, "data": data})
                    }
                    FileSource::Url { media_type, url } => {
                        json!({"type": "url", "media_type": media_type, "url": url})
                    }
                };
                json!({"type": "file", "filename": filename, "source": source})
            }
        }
    }
}

impl ToolResult {
    /// A successful text-only result: `data`, `is_error: false`, no model output (for tools
    /// written in Rust; see oma-mcp-runtime's `ToolDefinition`).
    pub fn text(data: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            is_error: false,
            model_output: None,
        }
    }

    /// An error result: `data` is `message` verbatim, `is_error: true`, no model output (the
    /// open-multi-agent executor's `errorResult`).
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            data: message.into(),
            is_error: true,
            model_output: None,
        }
    }

    /// The failed-call result of open-multi-agent's `docs/mcp.md` ("Errors"): a thrown
    /// or rejected call becomes `MCP tool "<raw_name>" failed: <message>` with `is_error` and no
    /// model output. `raw_name` is the server's tool name, not the prefixed framework name.
    pub fn failed(raw_name: &str, message: &str) -> Self {
        Self {
            data: format!("MCP tool \"{raw_name}\" failed: {message}"),
            is_error: true,
            model_output: None,
        }
    }

    /// The JSON form `{"data": <string>, "isError": <bool>, "modelOutput": [<parts>] | null}`
    /// (keys in that order; parts as [`ModelPart::to_json`]). Used by the CLI's
    /// `--format json`.
    pub fn to_json(&self) -> Value {
        let model_output = match &self.model_output {
            Some(parts) => Value::Array(parts.iter().map(ModelPart::to_json).collect()),
            None => Value::Null,
        };
        json!({"data": self.data, "isError": self.is_error, "modelOutput": model_output})
    }
}

/// Maps a raw `tools/call` result object to a [`ToolResult`] (open-multi-agent's `docs/mcp.md`,
/// "Result mapping" and the first rule of "Errors").
///
/// `result` is the JSON-RPC `result` member as the server sent it. Pure and total: never
/// panics and never fails. Media payloads are copied once, into their [`ModelPart`], and only
/// when a `model_output` is produced.
///
/// ```
/// # use oma_mcp_core::map_call_result;
/// let r = map_call_result(&serde_json::json!({
///     "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AAAA"}],
/// }));
/// assert_eq!(r.data, "a\n[image image/*; base64 length=4]");
/// assert!(!r.is_error && r.model_output.is_none());
/// ```
pub fn map_call_result(result: &Value) -> ToolResult {
    let field = |key: &str| result.as_object().and_then(|fields| fields.get(key));
    let is_error = matches!(field("isError"), Some(Value::Bool(true)));
    if let Some(data) = text_blocks_only(result) {
        return ToolResult {
            data,
            is_error,
            model_output: None,
        };
    }
    // `null` and non-object blocks are skipped; arrays count as (field-less) blocks, as
    // `typeof [] === 'object'` in the reference.
    let blocks: Vec<&Value> = match field("content") {
        Some(Value::Array(items)) => items
            .iter()
            .filter(|b| b.is_object() || b.is_array())
            .collect(),
        _ => Vec::new(),
    };
    // An error result stays text-only, so its blocks are not even classified.
    let media: Vec<Option<Media<'_>>> = blocks
        .iter()
        .map(|block| if is_error { None } else { Media::of(block) })
        .collect();
    let has_media = media.iter().any(Option::is_some);

    if let Some(tool_result) = field("toolResult") {
        // The legacy value wins; with media, the model sees it followed by the media parts.
        let data = json_text::stringify_pretty(tool_result);
        let model_output = has_media.then(|| {
            let mut parts = vec![ModelPart::Text { text: data.clone() }];
            for item in media.into_iter().flatten() {
                item.push_parts(false, &mut parts);
            }
            parts
        });
        return ToolResult {
            data,
            is_error,
            model_output,
        };
    }

    let lines: Vec<String> = blocks.iter().map(|block| block_text(block)).collect();
    if lines.is_empty() {
        let data = match field("structuredContent") {
            Some(structured) => json_text::stringify_pretty(structured),
            None => json_text::stringify_compact(result),
        };
        return ToolResult {
            data,
            is_error,
            model_output: None,
        };
    }
    let data = lines.join("\n");
    let model_output = has_media.then(|| {
        let mut parts = Vec::with_capacity(lines.len() + 1);
        for (line, item) in lines.into_iter().zip(media) {
            match item {
                Some(item) => item.push_parts(true, &mut parts),
                // A non-media block's part is its text line (for a text block, the text).
                None => parts.push(ModelPart::Text { text: line }),
            }
        }
        parts
    });
    ToolResult {
        data,
        is_error,
        model_output,
    }
}

/// The `data` of the most common result, `content` with only `text` blocks (each an object
/// with `"type": "text"` and a string `text`) and no `toolResult`: the texts joined with `\n`,
/// built in one allocation. `None` for any other result (the general path then). Gives what
/// the general path gives for such a result: each block's line is its text, and no text
/// block converts to media.
fn text_blocks_only(result: &Value) -> Option<String> {
    fn text(block: &Value) -> Option<&str> {
        let fields = block.as_object()?;
        (fields.get("type")?.as_str()? == "text").then_some(())?;
        fields.get("text")?.as_str()
    }
    let fields = result.as_object()?;
    if fields.contains_key("toolResult") {
        return None;
    }
    let Some(Value::Array(blocks)) = fields.get("content") else {
        return None;
    };
    let (first, rest) = blocks.split_first()?;
    let first = text(first)?;
    let mut len = first.len();
    for block in rest {
        len += 1 + text(block)?.len();
    }
    let mut data = String::with_capacity(len);
    data.push_str(first);
    // Every block passed `text` above, so nothing is filtered out here.
    for text in rest.iter().filter_map(text) {
        data.push('\n');
        data.push_str(text);
    }
    Some(data)
}

/// The fields of a block or resource; arrays (and any other non-object) have none.
fn fields_of(value: &Value) -> Option<&Map<String, Value>> {
    value.as_object()
}

/// The string field `key` of `fields`, if it is a string.
fn str_field<'a>(fields: Option<&'a Map<String, Value>>, key: &str) -> Option<&'a str> {
    fields?.get(key)?.as_str()
}

/// The text line of one content block (open-multi-agent's `docs/mcp.md`, "Text (`data`)" table):
/// the known form for `text`, `image`, `audio`, `resource` and `resource_link` blocks, else
/// `[<type>]` (type as JavaScript's `String()`, `unknown` when absent or null) and the block as
/// pretty JSON.
fn block_text(block: &Value) -> String {
    known_block_text(block).unwrap_or_else(|| {
        let label = match fields_of(block).and_then(|f| f.get("type")) {
            None | Some(Value::Null) => "unknown".to_owned(),
            Some(ty) => json_text::js_string(ty),
        };
        format!("[{label}]\n{}", json_text::stringify_pretty(block))
    })
}

/// The contract's text form of a known block type, `None` when the block does not have the
/// fields that form needs (then [`block_text`] falls back to pretty JSON).
fn known_block_text(block: &Value) -> Option<String> {
    let fields = fields_of(block);
    let ty = str_field(fields, "type")?;
    match ty {
        "text" => str_field(fields, "text").map(str::to_owned),
        "image" | "audio" => {
            let data = str_field(fields, "data")?;
            let star = if ty == "image" { "image/*" } else { "audio/*" };
            let mime = str_field(fields, "mimeType").unwrap_or(star);
            Some(format!("[{ty} {mime}; base64 length={}]", utf16_len(data)))
        }
        "resource" => {
            let resource = fields?.get("resource")?;
            if !(resource.is_object() || resource.is_array()) {
                return None;
            }
            let r = fields_of(resource);
            let uri = str_field(r, "uri").unwrap_or("");
            if let Some(text) = str_field(r, "text") {
                Some(format!("[resource {uri}]\n{text}"))
            } else if let Some(blob) = str_field(r, "blob") {
                let mime = str_field(r, "mimeType").unwrap_or("");
                Some(format!(
                    "[resource {uri}; mimeType={mime}; blob base64 length={}]",
                    utf16_len(blob)
                ))
            } else {
                Some(format!("[resource {uri}]"))
            }
        }
        "resource_link" => {
            let name = json_text::quote(str_field(fields, "name").unwrap_or(""));
            let uri = json_text::quote(str_field(fields, "uri").unwrap_or(""));
            let head = format!("[resource_link name={name} uri={uri}]");
            match str_field(fields, "description") {
                Some(desc) if !desc.is_empty() => Some(format!("{head}\n{desc}")),
                _ => Some(head),
            }
        }
        _ => None,
    }
}

/// A block that converts to media (open-multi-agent's `docs/mcp.md`, "Model-visible parts"),
/// borrowing from the result so nothing is copied until its parts are built.
#[derive(Debug, Clone, Copy)]
enum Media<'a> {
    /// An `image` with string `data` and a bare `type/subtype` `mimeType`.
    Image { media_type: &'a str, data: &'a str },
    /// A `resource` whose `resource` has a string `blob` (and no string `text`).
    Blob {
        resource: &'a Map<String, Value>,
        blob: &'a str,
    },
    /// A `resource_link` whose `uri` is an `http:` or `https:` URL.
    Link {
        block: &'a Map<String, Value>,
        url: &'a str,
    },
}

impl<'a> Media<'a> {
    /// `Some` when `block` converts to media, else `None` (text, audio, an image with an
    /// invalid MIME type, a text resource, a non-HTTP link, unknown types).
    fn of(block: &'a Value) -> Option<Self> {
        let fields = block.as_object()?;
        match fields.get("type")?.as_str()? {
            "image" => {
                let data = fields.get("data")?.as_str()?;
                let media_type = fields.get("mimeType")?.as_str()?;
                is_bare_media_type(media_type).then_some(Self::Image { media_type, data })
            }
            "resource" => {
                let resource = fields.get("resource")?.as_object()?;
                if resource.get("text").is_some_and(Value::is_string) {
                    return None;
                }
                let blob = resource.get("blob")?.as_str()?;
                Some(Self::Blob { resource, blob })
            }
            "resource_link" => {
                let url = http_url(fields.get("uri")?.as_str()?)?;
                Some(Self::Link { block: fields, url })
            }
            _ => None,
        }
    }

    /// Appends this block's parts to `out`; with `with_text` false only its non-text parts
    /// (the legacy `toolResult` case).
    fn push_parts(self, with_text: bool, out: &mut Vec<ModelPart>) {
        match self {
            Self::Image { media_type, data } => out.push(ModelPart::Image {
                source: ImageSource::Base64 {
                    media_type: media_type.to_owned(),
                    data: data.to_owned(),
                },
            }),
            Self::Blob { resource, blob } => {
                let filename = filename(resource);
                if with_text {
                    let label = match resource.get("uri").and_then(Value::as_str) {
                        Some(uri) if !uri.is_empty() => uri,
                        _ => filename.as_str(),
                    };
                    out.push(ModelPart::Text {
                        text: format!("[resource {label}]"),
                    });
                }
                out.push(ModelPart::File {
                    source: FileSource::Base64 {
                        media_type: media_type_or_default(resource).to_owned(),
                        data: blob.to_owned(),
                    },
                    filename,
                });
            }
            Self::Link { block, url } => {
                if with_text
                    && let Some(desc) = block.get("description").and_then(Value::as_str)
                    && !desc.is_empty()
                {
                    out.push(ModelPart::Text {
                        text: desc.to_owned(),
                    });
                }
                out.push(ModelPart::File {
                    filename: filename(block),
                    source: FileSource::Url {
                        media_type: media_type_or_default(block).to_owned(),
                        url: url.to_owned(),
                    },
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_shapes_match_to_json() {
        let parts = vec![
            ModelPart::Text { text: "t".into() },
            ModelPart::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: "AAAA".into(),
                },
            },
            ModelPart::File {
                filename: "f.pdf".into(),
                source: FileSource::Base64 {
                    media_type: "application/pdf".into(),
                    data: "AAAA".into(),
                },
            },
            ModelPart::File {
                filename: "u".into(),
                source: FileSource::Url {
                    media_type: "text/csv".into(),
                    url: "https://e.com/u".into(),
                },
            },
        ];
        for part in &parts {
            let text = serde_json::to_string(part).unwrap();
            assert_eq!(text, serde_json::to_string(&part.to_json()).unwrap());
            let back: ModelPart = serde_json::from_str(&text).unwrap();
            assert_eq!(&back, part);
        }
        assert_eq!(
            serde_json::to_string(&parts[3]).unwrap(),
            r#"{"type":"file","filename":"u","source":{"type":"url","media_type":"text/csv","url":"https://e.com/u"}}"#
        );
    }

    #[test]
    fn to_json_shape() {
        let r = ToolResult::failed("slow/tool", "boom");
        assert_eq!(
            serde_json::to_string(&r.to_json()).unwrap(),
            r#"{"data":"MCP tool \"slow/tool\" failed: boom","isError":true,"modelOutput":null}"#
        );
    }

    #[test]
    fn is_error_only_when_exactly_true() {
        for v in [json!("true"), json!(1), json!(null), json!(false)] {
            let r =
                map_call_result(&json!({"content": [{"type": "text", "text": "x"}], "isError": v}));
            assert!(!r.is_error, "{v}");
        }
    }

    #[test]
    fn null_present_versus_absent() {
        assert_eq!(map_call_result(&json!({"toolResult": null})).data, "null");
        assert_eq!(
            map_call_result(&json!({"structuredContent": null})).data,
            "null"
        );
        assert_eq!(
            map_call_result(&json!({"content": null})).data,
            "{\"content\":null}"
        );
    }

    #[test]
    fn odd_shapes_never_panic() {
        let cases = [
            (json!(null), "null"),
            (json!(5), "5"),
            (json!([1, 2.0]), "[1,2]"),
            (json!({"content": "str"}), "{\"content\":\"str\"}"),
            (
                json!({"content": {"type": "text"}}),
                "{\"content\":{\"type\":\"text\"}}",
            ),
            (json!({"content": [[1]]}), "[unknown]\n[\n  1\n]"),
            (
                json!({"content": [{"type": 5}]}),
                "[5]\n{\n  \"type\": 5\n}",
            ),
            (
                json!({"content": [{"type": null}]}),
                "[unknown]\n{\n  \"type\": null\n}",
            ),
            (
                json!({"content": [{"type": ["a", "b"]}]}),
                "[a,b]\n{\n  \"type\": [\n    \"a\",\n    \"b\"\n  ]\n}",
            ),
            (
                json!({"content": [{"type": "image", "data": 1}]}),
                "[image]\n{\n  \"type\": \"image\",\n  \"data\": 1\n}",
            ),
            (
                json!({"content": [{"type": "resource", "resource": "x"}]}),
                "[resource]\n{\n  \"type\": \"resource\",\n  \"resource\": \"x\"\n}",
            ),
            (
                json!({"content": [{"type": "resource", "resource": []}]}),
                "[resource ]",
            ),
        ];
        for (input, want) in cases {
            let r = map_call_result(&input);
            assert_eq!(r.data, want, "{input}");
            assert!(r.model_output.is_none());
        }
    }

    #[test]
    fn blob_without_uri_is_labelled_by_filename() {
        let r = map_call_result(&json!({"content": [
            {"type": "resource", "resource": {"name": "n.bin", "uri": "", "blob": "AA"}},
        ]}));
        assert_eq!(
            r.model_output.unwrap().first(),
            Some(&ModelPart::Text {
                text: "[resource n.bin]".into()
            })
        );
    }

    #[test]
    fn text_only_results_join_every_block_in_one_string() {
        let result = json!({"isError": true, "content": [
            {"type": "text", "text": "first"},
            {"type": "text", "text": ""},
            {"type": "text", "text": "h\u{e9}llo"},
        ]});
        let joined = "first\n\nh\u{e9}llo";
        let data = text_blocks_only(&result).unwrap();
        // One allocation of exactly the joined length (`Vec::with_capacity` gives exactly
        // the capacity asked for).
        assert_eq!((data.as_str(), data.capacity()), (joined, joined.len()));
        let mapped = map_call_result(&result);
        assert_eq!(
            (mapped.data.as_str(), mapped.is_error, mapped.model_output),
            (joined, true, None)
        );
        // Anything but text blocks only takes the general path.
        for other in [
            json!({"content": []}),
            json!({"content": [{"type": "text", "text": "a"}, null]}),
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": 1}]}),
            json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AA"}]}),
            json!({"content": [{"text": "a"}]}),
            json!({"content": [{"type": "text", "text": "a"}], "toolResult": "b"}),
            json!({"content": {"type": "text", "text": "a"}}),
            json!([{"type": "text", "text": "a"}]),
        ] {
            assert_eq!(text_blocks_only(&other), None, "{other}");
        }
        assert_eq!(
            map_call_result(&json!({"content": [{"type": "text", "text": "a"}, null]})).data,
            "a"
        );
    }

    #[test]
    fn tool_result_with_media_keeps_only_media_parts() {
        let r = map_call_result(&json!({
            "toolResult": [1],
            "content": [
                {"type": "resource", "resource": {"uri": "file:///a/b.bin", "blob": "AA"}},
                {"type": "resource_link", "uri": "https://e.com/x", "description": "d"},
                {"type": "audio", "data": "AA"},
            ],
        }));
        assert_eq!(r.data, "[\n  1\n]");
        let kinds: Vec<_> = r
            .model_output
            .unwrap()
            .iter()
            .map(|p| p.to_json()["type"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(kinds, ["text", "file", "file"]);
    }
}
