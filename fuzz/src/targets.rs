//! The fuzz targets: for each, a generator of its input (as one JSON value, so a failing input
//! can be saved and replayed) and the invariants it checks. A check returns `Err(what broke)`;
//! a panic inside it is caught by the runner and counts as a failure too.

use std::path::Path;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use oma_mcp_build::codegen::{GenerateOptions, generate};
use oma_mcp_build::manifest::Manifest;
use oma_mcp_runtime::connect::fuzzing::{Frame, read_frames, sse_messages};
use oma_mcp_runtime::drift::{ChangeKind, diff};
use oma_mcp_runtime::map_call_result;
use oma_mcp_runtime::snapshot::{Snapshot, SnapshotSource, SnapshotTool, digest};
use oma_mcp_runtime::validate::{InputValidator, Validator};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::generators;

/// What every generated module must be (oma-mcp-build's tests check the same).
#[path = "../../oma-mcp-build/tests/common/generated.rs"]
mod generated;

/// One fuzz target.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Its name on the command line and in `regressions/<name>/`.
    pub name: &'static str,
    /// The generator of its input.
    pub strategy: fn() -> BoxedStrategy<Value>,
    /// Its invariants: `Err(what broke)` on a violation.
    pub check: fn(&Value) -> Result<(), String>,
}

/// Every target, in the order `scripts/fuzz` runs them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "codegen",
        strategy: codegen_input,
        check: check_codegen,
    },
    Target {
        name: "mapping",
        strategy: mapping_input,
        check: check_mapping,
    },
    Target {
        name: "drift",
        strategy: drift_input,
        check: check_drift,
    },
    Target {
        name: "framing",
        strategy: framing_input,
        check: check_framing,
    },
    Target {
        name: "sse",
        strategy: sse_input,
        check: check_sse,
    },
    Target {
        name: "http",
        strategy: crate::http_answer::input,
        check: crate::http_answer::check,
    },
    Target {
        name: "snapshot",
        strategy: snapshot_input,
        check: check_snapshot,
    },
    Target {
        name: "manifest",
        strategy: manifest_input,
        check: check_manifest,
    },
    Target {
        name: "validation",
        strategy: validation_input,
        check: check_validation,
    },
    Target {
        name: "provider",
        strategy: provider_input,
        check: check_provider,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The member `key` of `input` as an array (empty when absent or not an array).
fn array<'a>(input: &'a Value, key: &str) -> &'a [Value] {
    input
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `value` with the members of every object in reverse order (a different key order, the
/// same JSON).
pub fn reverse_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .rev()
                .map(|(k, v)| (k.clone(), reverse_keys(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(reverse_keys).collect()),
        other => other.clone(),
    }
}

/// A snapshot of `tools` with no server fields; `None` when the list is rejected (a
/// descriptor without a string name, a repeated name), which is a correct outcome.
fn snapshot_of(tools: &[Value]) -> Option<Snapshot> {
    Snapshot::from_descriptors(None, None, None, tools.iter().cloned()).ok()
}

// ---------------------------------------------------------------------------------------
// codegen

/// The largest generated file a case may produce: 256 KiB plus 400 bytes per byte of input
/// JSON. Generated code grows with the schema (types, docs and the schema text itself),
/// never combinatorially; past this bound something multiplies.
fn codegen_size_bound(input_len: usize) -> usize {
    256 * 1024 + 400 * input_len
}

fn codegen_input() -> BoxedStrategy<Value> {
    (
        generators::tools(),
        prop::option::of(generators::name()),
        prop::collection::vec(
            prop_oneof![
                generators::name(),
                Just("*".to_owned()),
                Just("[".to_owned())
            ],
            0..2,
        ),
        any::<bool>(),
        offers_input(),
    )
        .prop_map(|(tools, prefix, consequential, schemars, offers)| {
            json!({
                "tools": tools,
                "prefix": prefix,
                "consequential": consequential,
                "schemars": schemars,
                "prompts": offers.0,
                "resourceTemplates": offers.1,
                "resources": offers.2,
            })
        })
        .boxed()
}

/// Prompts (arguments required or not), resource templates (RFC 6570 templates of several
/// operators, and texts that are no template) and resources, with the generators' names.
fn offers_input() -> BoxedStrategy<(Vec<Value>, Vec<Value>, Vec<Value>)> {
    let argument = (generators::name(), any::<bool>())
        .prop_map(|(name, required)| json!({"name": name, "required": required}));
    let prompt = (
        generators::name(),
        prop::collection::vec(argument, 0..4),
        prop::option::of(generators::name()),
    )
        .prop_map(|(name, arguments, description)| {
            json!({"name": name, "arguments": arguments, "description": description})
        });
    let template_text = prop_oneof![
        generators::name().prop_map(|a| format!("x://{{{a}}}")),
        (generators::name(), generators::name())
            .prop_map(|(a, b)| format!("x://{{+{a}}}{{/{b}*}}{{?{a},{b}}}{{&{b}:3}}")),
        generators::name(),
    ];
    let template = (generators::name(), template_text)
        .prop_map(|(name, text)| json!({"name": name, "uriTemplate": text}));
    let resource = (generators::name(), generators::name())
        .prop_map(|(name, path)| json!({"uri": format!("memo://{path}"), "name": name}));
    (
        prop::collection::vec(prompt, 0..4),
        prop::collection::vec(template, 0..3),
        prop::collection::vec(resource, 0..3),
    )
        .boxed()
}

/// `snapshot` with the input's prompts, resource templates and resources, each list without
/// repeated keys (the first kept), so that the list in another order gives the same items.
fn with_offers(mut snapshot: Snapshot, input: &Value, reverse: bool) -> Snapshot {
    use oma_mcp_runtime::snapshot::{ItemKind, SnapshotItems};
    for kind in ItemKind::ALL {
        let mut seen = std::collections::BTreeSet::new();
        let mut entries: Vec<Value> = array(input, kind.list_key())
            .iter()
            .filter(|e| {
                let key = e.get(kind.key_member()).and_then(Value::as_str);
                key.is_some_and(|k| seen.insert(k.to_owned()))
            })
            .cloned()
            .collect();
        if reverse {
            entries = entries.iter().rev().map(reverse_keys).collect();
        }
        let items = SnapshotItems::from_entries(kind, entries).items;
        match kind {
            ItemKind::Prompt => snapshot.prompts = items,
            ItemKind::Resource => snapshot.resources = items,
            _ => snapshot.resource_templates = items,
        }
    }
    snapshot
}

/// The [`GenerateOptions`] a codegen input asks for.
pub fn codegen_options(input: &Value) -> GenerateOptions {
    let mut options = GenerateOptions::default()
        .with_consequential(
            array(input, "consequential")
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned),
        )
        .with_schemars(input["schemars"] == true);
    if let Some(prefix) = input["prefix"].as_str() {
        options = options.with_name_prefix(prefix);
    }
    options
}

/// Generation from any tool list (with prompts, resources and resource templates): never
/// panics (the runner catches it), is bounded in size,
/// parses as a Rust file laid out by the generator's rules, keeps every tool's name,
/// description and digest and the snapshot's text as the exact values of its string literals
/// (`generated::check`), and is deterministic: the same list twice, and the list in reverse
/// with every object's keys reversed, give byte-identical code, warnings and errors.
pub fn check_codegen(input: &Value) -> Result<(), String> {
    let tools = array(input, "tools");
    let options = codegen_options(input);
    let Some(snapshot) = snapshot_of(tools) else {
        return Ok(());
    };
    let snapshot = with_offers(snapshot, input, false);
    let reordered: Vec<Value> = tools.iter().rev().map(reverse_keys).collect();
    let reordered = snapshot_of(&reordered)
        .ok_or("the tool list in reverse with keys reversed was rejected, the original not")?;
    let reordered = with_offers(reordered, input, true);
    let render = |s: &Snapshot| match generate(s, &options) {
        Ok(g) => Ok((g.code, g.warnings)),
        Err(e) => Err(e.to_string()),
    };
    let first = render(&snapshot);
    if render(&snapshot) != first {
        return Err("generating twice from one snapshot gave different results".into());
    }
    if render(&reordered) != first {
        return Err(
            "generating from the same tools in another order (list and keys) gave different results"
                .into(),
        );
    }
    let Ok((code, _warnings)) = first else {
        return Ok(());
    };
    let bound = codegen_size_bound(input.to_string().len());
    if code.len() > bound {
        return Err(format!(
            "the generated code is {} bytes, over the bound of {bound}",
            code.len()
        ));
    }
    generated::check(&code, &snapshot).map_err(|e| format!("the generated code: {e}"))
}

// ---------------------------------------------------------------------------------------
// mapping

fn mapping_input() -> BoxedStrategy<Value> {
    generators::call_result()
}

/// Result mapping of any `tools/call` result: never panics; without a legacy `toolResult`,
/// the text of every `text` block appears in `data`; `is_error` is exactly `"isError": true`;
/// an error has no `model_output`; the same result re-serialized (compact and pretty) maps to
/// the same output.
pub fn check_mapping(result: &Value) -> Result<(), String> {
    let mapped = map_call_result(result);
    let _ = mapped.to_json();
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    if mapped.is_error != is_error {
        return Err(format!(
            "is_error is {}, the result's isError says {is_error}",
            mapped.is_error
        ));
    }
    if mapped.is_error && mapped.model_output.is_some() {
        return Err("an isError result has a model_output".into());
    }
    if result.get("toolResult").is_none() {
        for block in array(result, "content") {
            if block.get("type").and_then(Value::as_str) == Some("text")
                && let Some(text) = block.get("text").and_then(Value::as_str)
                && !mapped.data.contains(text)
            {
                return Err(format!("the text block {text:?} is not in data"));
            }
        }
    }
    for (how, text) in [
        ("compact", serde_json::to_string(result)),
        ("pretty", serde_json::to_string_pretty(result)),
    ] {
        let text = text.map_err(|e| format!("cannot serialize the result: {e}"))?;
        let reparsed: Value = serde_json::from_str(&text)
            .map_err(|e| format!("the {how} re-serialized result does not parse: {e}"))?;
        if map_call_result(&reparsed) != mapped {
            return Err(format!(
                "the {how} re-serialized result maps to another output"
            ));
        }
    }
    check_content(result)
}

/// The result's blocks as a prompt's messages (`prompts/get`): accepted, each message's text
/// exactly its block's mapped text; and the result read as a `resources/read` and a
/// `completion/complete` result: an answer or a `ShapeError`, never a panic.
fn check_content(result: &Value) -> Result<(), String> {
    use oma_mcp_runtime::content::{map_complete_result, map_prompt_result, map_read_result};
    if let Some(Value::Array(blocks)) = result.get("content") {
        let messages: Vec<Value> = blocks
            .iter()
            .map(|block| json!({"role": "assistant", "content": block}))
            .collect();
        let prompt = map_prompt_result(&json!({ "messages": messages }))
            .map_err(|e| format!("a prompt of the result's blocks was refused: {e}"))?;
        for (message, block) in prompt.messages.iter().zip(blocks) {
            let single = map_call_result(&json!({ "content": [block] }));
            if message.text != single.data || &message.content != block {
                return Err(format!(
                    "a prompt message's text {:?} is not its block's {:?}",
                    message.text, single.data
                ));
            }
        }
    }
    let _ = map_read_result(result);
    let _ = map_complete_result(result);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// drift

/// Two tool lists: `a`, and `b` made of some of `a`'s tools (kept, or with a changed
/// schema) and new ones, so the pairs share names often.
fn drift_input() -> BoxedStrategy<Value> {
    (
        generators::tools(),
        generators::tools(),
        prop::collection::vec(0u8..3, 4),
    )
        .prop_map(|(a, fresh, picks)| {
            let mut b = Vec::new();
            for (i, tool) in a.iter().enumerate() {
                match picks.get(i).copied().unwrap_or(0) {
                    0 => b.push(tool.clone()),
                    1 => {
                        if let Some(other) = fresh.get(i) {
                            let mut changed = other.clone();
                            changed["name"] = tool["name"].clone();
                            b.push(changed);
                        }
                    }
                    _ => {}
                }
            }
            b.extend(fresh.into_iter().skip(a.len()));
            json!({ "a": a, "b": b })
        })
        .boxed()
}

/// The names of the tools added and removed in a report.
fn added_removed(changes: &[oma_mcp_runtime::Change]) -> (Vec<String>, Vec<String>) {
    let names = |kind: ChangeKind| {
        let mut names: Vec<String> = changes
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| c.tool.clone())
            .collect();
        names.sort();
        names
    };
    (names(ChangeKind::ToolAdded), names(ChangeKind::ToolRemoved))
}

/// Drift of any pair: never panics (and is bounded on recursive schemas: the runner's
/// watchdog); `diff(a, a)` is empty; the tools added in `diff(a, b)` are the tools removed in
/// `diff(b, a)` and the other way round, and are exactly the names only in `b` (only in `a`).
pub fn check_drift(input: &Value) -> Result<(), String> {
    let (Some(a), Some(b)) = (
        snapshot_of(array(input, "a")),
        snapshot_of(array(input, "b")),
    ) else {
        return Ok(());
    };
    for (side, s) in [("a", &a), ("b", &b)] {
        let same = diff(s, s);
        if !same.is_empty() {
            return Err(format!(
                "diff({side}, {side}) is not empty: {}",
                same.to_json()
            ));
        }
    }
    let forward = diff(&a, &b);
    let backward = diff(&b, &a);
    let _ = (forward.to_json(), backward.to_json());
    let (added, removed) = added_removed(&forward.changes);
    let (back_added, back_removed) = added_removed(&backward.changes);
    if added != back_removed || removed != back_added {
        return Err(format!(
            "diff(a, b) adds {added:?} and removes {removed:?}, but diff(b, a) adds \
             {back_added:?} and removes {back_removed:?}"
        ));
    }
    let only = |x: &Snapshot, y: &Snapshot| -> Vec<String> {
        x.tools
            .iter()
            .filter(|t| y.tool(t.name()).is_none())
            .map(|t| t.name().to_owned())
            .collect()
    };
    if added != only(&b, &a) || removed != only(&a, &b) {
        return Err(format!(
            "diff(a, b) adds {added:?} and removes {removed:?}; the names only in b are {:?}, \
             only in a {:?}",
            only(&b, &a),
            only(&a, &b)
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// framing

fn framing_input() -> BoxedStrategy<Value> {
    split_input(
        generators::stdout_bytes(),
        prop_oneof![16usize..200, 4000usize..5000, Just(1usize << 20)].boxed(),
    )
}

/// A stream of `bytes`, up to 12 points to split it at (sorted, distinct) and a size `limit`:
/// the input of the framing and SSE targets ([`bytes_cuts_limit`] reads it back).
fn split_input(bytes: BoxedStrategy<Vec<u8>>, limit: BoxedStrategy<usize>) -> BoxedStrategy<Value> {
    (
        bytes,
        prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        limit,
    )
        .prop_map(|(bytes, cuts, limit)| {
            let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            cuts.sort_unstable();
            cuts.dedup();
            json!({ "bytes": bytes, "cuts": cuts, "limit": limit })
        })
        .boxed()
}

/// A reader that hands out `data` in pieces ending at `cuts` (as pipe reads would), never
/// pending.
struct Pieces {
    data: Vec<u8>,
    cuts: Vec<usize>,
    pos: usize,
}

impl Pieces {
    fn available(&self) -> &[u8] {
        let end = self
            .cuts
            .iter()
            .copied()
            .find(|&c| c > self.pos)
            .unwrap_or(self.data.len())
            .min(self.data.len());
        &self.data[self.pos..end]
    }
}

impl tokio::io::AsyncRead for Pieces {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let available = self.available();
        let n = available.len().min(buf.remaining());
        buf.put_slice(&available[..n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncBufRead for Pieces {
    fn poll_fill_buf(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<&[u8]>> {
        Poll::Ready(Ok(self.get_mut().available()))
    }

    fn consume(mut self: std::pin::Pin<&mut Self>, amt: usize) {
        self.pos = (self.pos + amt).min(self.data.len());
    }
}

/// The frames of `data` read in pieces ending at `cuts` with line limit `limit`. The reader
/// is never pending, so one poll completes the read.
fn frames(data: &[u8], cuts: &[usize], limit: usize) -> Result<Vec<Frame>, String> {
    let mut reader = Pieces {
        data: data.to_vec(),
        cuts: cuts.to_vec(),
        pos: 0,
    };
    let future = pin!(read_frames(&mut reader, limit));
    let mut future = future;
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(result) => result.map_err(|e| format!("reading failed: {e}")),
        Poll::Pending => Err("the reader is pending on a reader that never is".into()),
    }
}

/// The `bytes`, `cuts` and `limit` of a framing or SSE input (the limit 1 MiB when absent).
fn bytes_cuts_limit(input: &Value) -> (Vec<u8>, Vec<usize>, usize) {
    let bytes = array(input, "bytes")
        .iter()
        .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
        .collect();
    let cuts = array(input, "cuts")
        .iter()
        .filter_map(|c| c.as_u64().and_then(|c| usize::try_from(c).ok()))
        .collect();
    let limit = input["limit"]
        .as_u64()
        .and_then(|l| usize::try_from(l).ok())
        .unwrap_or(1 << 20);
    (bytes, cuts, limit)
}

/// Framing of any byte stream split anywhere: never panics; the split stream gives the same
/// messages (bytes and classification) as the unsplit one; and both match the lines of the
/// stream cut at each `\n` (a trailing `\r` dropped, all-whitespace lines skipped, lines
/// over the limit reported with their length and first 4096 bytes).
pub fn check_framing(input: &Value) -> Result<(), String> {
    let (bytes, cuts, limit) = bytes_cuts_limit(input);
    let whole = frames(&bytes, &[], limit)?;
    let split = frames(&bytes, &cuts, limit)?;
    if whole != split {
        return Err(format!(
            "split at {cuts:?}, the stream gives {split:?}; unsplit {whole:?}"
        ));
    }
    let mut expected = Vec::new();
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        if line.len() > limit {
            expected.push((
                None,
                Some((line.len(), line[..line.len().min(4096)].to_vec())),
            ));
        } else {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if !line.iter().all(u8::is_ascii_whitespace) {
                expected.push((Some(line.to_vec()), None));
            }
        }
    }
    let got: Vec<_> = whole
        .iter()
        .map(|f| match f {
            Frame::Message { line, .. } => (Some(line.clone()), None),
            Frame::TooLong { len, head, .. } => (None, Some((*len, head.clone()))),
            _ => (None, None),
        })
        .collect();
    if got != expected {
        return Err(format!(
            "the reader gives {got:?}; the stream's lines are {expected:?}"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// sse

fn sse_input() -> BoxedStrategy<Value> {
    split_input(
        generators::sse_body(),
        prop_oneof![Just(8usize), 16usize..200, Just(1usize << 20)].boxed(),
    )
}

/// `data` cut into chunks ending at `cuts` (as network reads would deliver it).
pub(crate) fn chunks(data: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&data.len())) {
        let cut = cut.clamp(start, data.len());
        out.push(data[start..cut].to_vec());
        start = cut;
    }
    out
}

/// The messages and end of an SSE body read as the transport reads it; the reader never
/// waits (the body is in memory), so one current-thread runtime runs it to the end.
fn sse(data: &[u8], cuts: &[usize], limit: usize) -> Result<(Vec<String>, String), String> {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| format!("no runtime: {e}"))
        .map(|rt| rt.block_on(sse_messages(chunks(data, cuts), limit)))
}

/// The messages of an SSE body by the WHATWG HTML standard's "event stream interpretation"
/// (a leading BOM dropped; lines end at CRLF, LF or CR; a blank line dispatches the event when
/// its data buffer is not empty; one space after the colon dropped; an unfinished event at
/// the end discarded), then the transport's keep-alive rule: only events of type `message`
/// whose data is neither blank nor `{}`.
fn whatwg_messages(text: &str) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(['\r', '\n']) {
        lines.push(&rest[..at]);
        rest = if rest[at..].starts_with("\r\n") {
            &rest[at + 2..]
        } else {
            &rest[at + 1..]
        };
    }
    let mut messages = Vec::new();
    let (mut data, mut kind) = (String::new(), String::new());
    for line in lines {
        if line.is_empty() {
            if !data.is_empty() {
                data.pop();
                let keep_alive =
                    !kind.is_empty() && kind != "message" || matches!(data.trim(), "" | "{}");
                if !keep_alive {
                    messages.push(std::mem::take(&mut data));
                }
            }
            data.clear();
            kind.clear();
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "event" => kind = value.to_owned(),
            _ => {}
        }
    }
    messages
}

/// The SSE reader of the streamable HTTP transport on any body split anywhere: never panics;
/// the split body gives the same messages and the same end as the unsplit one; no message is
/// over the limit; and a body of valid UTF-8 whose events all fit gives the messages the
/// WHATWG event stream interpretation gives.
pub fn check_sse(input: &Value) -> Result<(), String> {
    let (bytes, cuts, limit) = bytes_cuts_limit(input);
    let whole = sse(&bytes, &[], limit)?;
    let split = sse(&bytes, &cuts, limit)?;
    if whole != split {
        return Err(format!(
            "split at {cuts:?}, the body gives {split:?}; unsplit {whole:?}"
        ));
    }
    let (messages, end) = whole;
    if let Some(long) = messages.iter().find(|m| m.len() > limit) {
        return Err(format!(
            "a message of {} bytes passed the limit {limit}",
            long.len()
        ));
    }
    if let Ok(text) = std::str::from_utf8(&bytes)
        && end.starts_with("Ended")
    {
        let expected = whatwg_messages(text);
        if messages != expected {
            return Err(format!(
                "the reader gives {messages:?} ({end}); the WHATWG interpretation gives \
                 {expected:?}"
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// snapshot

fn snapshot_input() -> BoxedStrategy<Value> {
    (
        generators::tools(),
        prop::option::of(generators::json()),
        prop::option::of(generators::name()),
        prop::option::of(prop_oneof![
            (
                generators::name(),
                prop::collection::vec(generators::text(), 0..3),
            )
                .prop_map(|(command, args)| json!({"command": command, "args": args})),
            (
                generators::text(),
                prop::collection::btree_map(generators::text(), generators::text(), 0..3),
                prop::collection::vec(generators::text(), 0..3),
            )
                .prop_map(|(url, headers, names)| {
                    json!({"url": url, "headers": headers, "headersFromEnv": names})
                }),
        ]),
    )
        .prop_map(|(tools, server_info, protocol, source)| {
            json!({
                "tools": tools,
                "serverInfo": server_info,
                "protocolVersion": protocol,
                "source": source,
            })
        })
        .boxed()
}

/// Snapshots of any tool list: `parse(write(s)) == s`; canonicalizing twice equals once
/// (the parsed file writes the same bytes); the digest of each tool does not depend on key
/// order or whitespace (descriptors with reversed keys, and the file reformatted compact or
/// with reversed keys, parse to the same snapshot).
pub fn check_snapshot(input: &Value) -> Result<(), String> {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let source = input["source"].as_object().map(|s| match s.get("url") {
        // A URL source: redacted as recorded, literal headers, names from the environment.
        Some(url) => {
            let mut source = SnapshotSource::http(url.as_str().unwrap_or_default());
            for (name, value) in s
                .get("headers")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                source = source.with_header(name, value.as_str().unwrap_or_default());
            }
            for name in strings(s.get("headersFromEnv")) {
                source = source.with_env_header(name);
            }
            source
        }
        None => SnapshotSource::new(
            s.get("command").and_then(Value::as_str).unwrap_or_default(),
            strings(s.get("args")),
        ),
    });
    let server_info = Some(input["serverInfo"].clone()).filter(|v| !v.is_null());
    let protocol = input["protocolVersion"].as_str().map(str::to_owned);
    let Ok(snapshot) = Snapshot::from_descriptors(
        server_info,
        protocol,
        source,
        array(input, "tools").iter().cloned(),
    ) else {
        return Ok(());
    };
    let path = Path::new("fuzz.snapshot.json");
    let text = snapshot.to_canonical_string();
    let parsed = Snapshot::parse(&text, path)
        .map_err(|e| format!("the canonical text does not parse: {e}"))?;
    if parsed != snapshot {
        return Err("parse(write(s)) differs from s".into());
    }
    if parsed.to_canonical_string() != text {
        return Err("canonicalizing twice differs from once".into());
    }
    for tool in &snapshot.tools {
        let raw = &tool.descriptor;
        for (how, other) in [
            ("with reversed keys", reverse_keys(raw)),
            (
                "re-parsed from pretty JSON",
                serde_json::from_str(&serde_json::to_string_pretty(raw).unwrap_or_default())
                    .unwrap_or(Value::Null),
            ),
        ] {
            if digest(&other) != tool.digest {
                return Err(format!(
                    "the digest of tool {:?} {how} differs",
                    tool.name()
                ));
            }
            let rebuilt = SnapshotTool::from_descriptor(other)
                .map_err(|e| format!("the descriptor {how} is rejected: {e}"))?;
            if rebuilt != *tool {
                return Err(format!("tool {:?} {how} differs", tool.name()));
            }
        }
    }
    let file: Value =
        serde_json::from_str(&text).map_err(|e| format!("the canonical text is not JSON: {e}"))?;
    for (how, other) in [
        ("compact", serde_json::to_string(&file)),
        (
            "with reversed keys",
            serde_json::to_string_pretty(&reverse_keys(&file)),
        ),
    ] {
        let other = other.map_err(|e| format!("cannot serialize the file: {e}"))?;
        let reparsed = Snapshot::parse(&other, path)
            .map_err(|e| format!("the file reformatted {how} does not parse: {e}"))?;
        if reparsed != snapshot {
            return Err(format!(
                "the file reformatted {how} parses to another snapshot"
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// manifest

fn manifest_input() -> BoxedStrategy<Value> {
    generators::manifest_text()
        .prop_map(|toml| json!({ "toml": toml }))
        .boxed()
}

/// Manifests from any text: an error or a value, never a panic; an error has a message; for
/// a value, every server's derived settings can be built, and the module generated for it (no
/// tools: `connect_config()` and `connect()`) parses as Rust items and keeps the generator's
/// layout (`generated::check`).
pub fn check_manifest(input: &Value) -> Result<(), String> {
    let text = input["toml"].as_str().unwrap_or_default();
    let manifest = match Manifest::parse(text, Path::new("fuzz/oma-mcp.toml")) {
        Ok(m) => m,
        Err(e) if e.to_string().is_empty() => return Err("an error without a message".into()),
        Err(_) => return Ok(()),
    };
    for pin in manifest.servers.values() {
        let _ = (pin.connect_config(), pin.snapshot_source());
        let options = pin.generate_options();
        if options.consequential_policy().is_err() {
            continue;
        }
        // A module of no tools: the header, `connect_config()` and `connect()`.
        let empty = oma_mcp_runtime::Snapshot::default();
        let code = match oma_mcp_build::generate(&empty, &options) {
            Ok(generated) => generated.code,
            Err(e) => {
                return Err(format!(
                    "server {:?}: a module of no tools does not generate: {e}",
                    pin.name
                ));
            }
        };
        generated::check(&code, &empty).map_err(|e| {
            format!(
                "the module of server {:?} is not what generated code must be ({e}): {code}",
                pin.name
            )
        })?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// validation

fn validation_input() -> BoxedStrategy<Value> {
    // Besides any JSON, long runs of one character followed by another: the input that makes
    // a backtracking regex (`(a+)+$`) take exponential time.
    let instance = prop_oneof![
        4 => generators::json(),
        1 => (1usize..64, any::<bool>()).prop_map(|(n, nested)| {
            let text = Value::String(format!("{}!", "a".repeat(n)));
            if nested { json!({ "a": text, "x": [text] }) } else { text }
        }),
    ];
    (generators::schema(), instance)
        .prop_map(|(schema, instance)| json!({"schema": schema, "instance": instance}))
        .boxed()
}

/// Validation of any instance against any schema: an error or a value, never a panic;
/// problems are never empty, sorted and without duplicates; validating twice gives the same
/// answer.
pub fn check_validation(input: &Value) -> Result<(), String> {
    let schema = &input["schema"];
    let instance = &input["instance"];
    let _ = InputValidator::new("fuzz", schema.clone()).check(instance);
    let Ok(validator) = Validator::new("fuzz", schema) else {
        return Ok(());
    };
    let first = validator.validate(instance);
    if let Err(problems) = &first {
        if problems.is_empty() {
            return Err("validation failed with no problem".into());
        }
        if problems.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!("problems not sorted or repeated: {problems:?}"));
        }
    }
    if validator.validate(instance) != first {
        return Err("validating twice gave different answers".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// provider

fn provider_input() -> BoxedStrategy<Value> {
    generators::tool()
}

/// For each provider: the tool's form breaks none of the provider's rules (or is refused for
/// an expected reason), is the same twice, and its arguments round-trip
/// ([`crate::providers::check`]).
pub fn check_provider(input: &Value) -> Result<(), String> {
    let Some(descriptor) = oma_mcp_runtime::descriptor::ToolDescriptor::from_mcp(None, input)
    else {
        return Ok(());
    };
    for provider in oma_mcp_runtime::provider::Provider::ALL {
        crate::providers::check(&descriptor, provider).map_err(|e| format!("{provider}: {e}"))?;
    }
    Ok(())
}
