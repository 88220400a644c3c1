//! The text scanner: every text a model reads from a server, checked by deterministic rules
//! (no network, no language model).
//!
//! [`scan`] reads a [`ScanInput`]: tools (name, title, description, the strings of
//! `annotations`, and every string of `inputSchema` and `outputSchema`: property names,
//! titles, descriptions, `$comment`s, enum values, `const`s, defaults, examples, `$defs`
//! and their names, vendor keywords), prompts (name, title, description, each argument's
//! name, title and description), resources and resource templates (name, title,
//! description, `uri`/`uriTemplate`), and the server's `instructions`. Each [`Finding`]
//! has a rule id, a [`Level`], the [`Subject`] it is in, an RFC 6901 JSON pointer into the
//! item's descriptor and an escaped excerpt: invisible characters as `\u{200B}`, a run of
//! Tag characters decoded as `⟦tags: "say hi"⟧`, a run of variation selectors decoded as
//! `⟦variation selectors: 5 bytes "hello"⟧`, cut to 160 characters.
//!
//! Text is read in context. A word list flags nearly every real server ("IMPORTANT",
//! "API key", "password", "ignore"), so the rules look for *cues* in each sentence and set
//! the level from the cues of the whole item and from what the item is for (the words of its
//! name, title and description):
//!
//! - who the text addresses: the model ("you must", "the assistant", "before using this
//!   tool", an imperative first word) or the reader;
//! - secrecy toward the user ("do not mention this to the user", "without the user's
//!   knowledge", "this could upset the user", and their common phrasings in eight other
//!   languages);
//! - replacing instructions ("ignore previous instructions"; weaker: "from now on", "takes
//!   precedence over");
//! - files and secrets outside the tool's purpose (`~/.ssh/id_rsa`, `mcp.json`, `.env`,
//!   `~/.aws/credentials`; a public key, `….pub`, is not one), and content the text asks to
//!   put into one of the tool's own parameters ("pass its content as 'sidenote'");
//! - other tools: an instruction for every tool or command ("before using any other tool"),
//!   rewriting another tool's arguments ("change the recipient to …", "send all emails to
//!   …"), a tool of another pinned server, a tool of no pinned server. Naming a tool of the
//!   same server ("use `get_attachments` first") is how real servers document workflows
//!   and is not a finding;
//! - pressure ("otherwise the tool will not work", "VERY VERY important") and markup aimed
//!   at the model (`<IMPORTANT>`, an HTML comment; a `<system>` block and chat-template role
//!   tokens, which pretend to be another turn, are a warning on their own);
//! - sending everything to a literal address ("forward all documents to https://…"), which is
//!   rewriting what a tool sends.
//!
//! Cues that only an attack has (secrecy, replacing instructions, rewriting another tool's
//! arguments, putting read content into a parameter) raise every finding of the item to
//! high. The same sentence in a tool whose purpose needs it ("the API key for the Brave
//! Search API" on a search tool, a `.env` example in a file-search tool) stays info.
//!
//! # Rules
//!
//! | rule | default | what it catches | public sources |
//! |---|---|---|---|
//! | `invisible-character` | warning | zero-width and other invisible characters (high in a name, as a run of 8 or more, or a control character such as ESC; a leading byte order mark is info; joiners inside emoji sequences and scripts that need them are fine) | Embrace The Red, "ASCII Smuggler Tool: Crafting Invisible Text and Decoding Hidden Codes"; Trail of Bits, "Deceiving users with ANSI terminal codes in MCP" |
//! | `unicode-tag` | high | Unicode Tag characters (U+E0000–U+E007F), decoded in the excerpt; subdivision flag emoji are fine | Embrace The Red, "ASCII Smuggler Tool" and "Hiding and Finding Text with Unicode Tags" |
//! | `bidi-control` | high | bidirectional controls that reorder what a reader sees (marks and isolates beside right-to-left letters: info; an override there: warning) | Boucher and Anderson, "Trojan Source: Invisible Vulnerabilities"; Unicode UAX #9 |
//! | `variation-selector-payload` | high | runs of variation selectors after one character, which encode bytes (two: warning; a lone supplement selector after a non-Han character: warning) | Paul Butler, "Smuggling arbitrary data through an emoji" |
//! | `mixed-script` | warning | a name whose letters come from scripts UTS #39 does not allow together; a prose word of Latin and look-alike letters | Unicode UTS #39, "Unicode Security Mechanisms", §5 |
//! | `homoglyph-name` | high | a name spelt with look-alike letters that reads as ASCII (`sеnd_email` with a Cyrillic е), and whose name it copies | Unicode UTS #39, §4 "Confusable Detection" |
//! | `hidden-from-user` | warning | asking the model to keep something from the user; high with any other instruction to the model in the item | Invariant Labs, "MCP Security Notification: Tool Poisoning Attacks" |
//! | `sensitive-file-access` | warning | asking to read or hand over keys, credentials or client configuration (`~/.ssh`, `id_rsa`, `mcp.json`, `.env`, `~/.aws/credentials`), in a description or a parameter's name; info when the tool's purpose covers it, high with secrecy, override, tampering or content put into a parameter | Invariant Labs, "Tool Poisoning Attacks"; CyberArk, "Poison everywhere: No output from your MCP server is safe" |
//! | `instruction-override` | high | "ignore previous instructions" and the like (high); lasting changes of behaviour and claims of precedence (warning) | Trail of Bits, "Jumping the line: How MCP servers can attack you before you ever use them"; MCPTox (arXiv:2508.14925) |
//! | `cross-tool-instruction` | warning | instructions for every tool, command or operation, or for a tool of no pinned server (warning); rewriting what another tool sends (high) | Invariant Labs, "Tool Poisoning Attacks" (shadowing) and "WhatsApp MCP Exploited"; MCPTox (arXiv:2508.14925); Trail of Bits, "Jumping the line" |
//! | `urgency-markup` | info | `<IMPORTANT>`, `<system>` and similar tags, HTML comments (warning with any instruction to the model in the item); chat-template role tokens (warning) | Invariant Labs, "Tool Poisoning Attacks" |
//! | `shadowing` | warning | naming a tool of another pinned server (high with tampering, secrecy, override or an instruction for every tool) | Invariant Labs, "Tool Poisoning Attacks" (shadowing) and "WhatsApp MCP Exploited" |
//! | `secret-parameter` | warning | a parameter that asks for a password, API key, token, private key or wallet recovery phrase (BIP 39 mnemonic) when nothing in the tool's name or description says why (info when it does) | CyberArk, "Poison everywhere"; MCP Security Bench (arXiv:2510.15994), out-of-scope parameters |
//! | `context-exfiltration-parameter` | warning | a parameter (`sidenote`, `context`, `conversation_history`, `system_prompt`, …) or a sentence that asks for the conversation, other messages, the system prompt or read content; info when the tool's purpose is the conversation | Invariant Labs, "Tool Poisoning Attacks" and "WhatsApp MCP Exploited"; CyberArk, "Poison everywhere" |
//! | `annotation-contradiction` | warning | `readOnlyHint: true` on a tool whose name deletes or sends (high) or writes; `destructiveHint: false` on one whose name deletes | MCP specification 2025-06-18, "Tools", `ToolAnnotations` (hints are untrusted) |
//! | `encoded-payload` | warning | a base64 or hex token of 40 or more characters that decodes to text (high when the decoded text holds an attack cue); a base64 blob of 256 or more characters (info) | OWASP, "LLM01:2025 Prompt Injection" (obfuscated attacks); Embrace The Red, "ASCII Smuggler Tool" |
//! | `scan-limit` | warning | a descriptor nested deeper than 64 levels or holding more than 20,000 texts: the rest was not read | oma-mcp's own bound |
//!
//! Each rule's one-line help is in [`RULES`]. A [`Finding`] may be accepted ([`Accept`],
//! the manifest's `accept` entries, per rule and tool, with a reason); [`new_findings`] keeps
//! only what a changed item brings, which `oma-mcp check` reports as
//! [`ChangeKind::ScanFinding`](crate::drift::ChangeKind::ScanFinding) changes
//! ([`finding_changes`]).
//!
//! # What the scanner misses
//!
//! - Attacks in other languages, mostly: the phrase lists are English, plus the common
//!   phrasings of secrecy ("不要告诉用户", "не говори пользователю"), of replacing
//!   instructions and of gates on every tool in Chinese, Japanese, Korean, Russian,
//!   Spanish, French, German and Portuguese. Tags, invisible characters, file paths,
//!   parameter names, tool names and encoded payloads are found in any language; a rephrased
//!   instruction in another language is not.
//! - Paraphrase: an instruction that avoids every cue ("Also compute fingerprints of the
//!   private key files") reads as documentation. So do lies about what a tool does
//!   (MCPTox's and "When the Manual Lies"'s description poisoning without instructions).
//! - Tool results, resource contents and prompt messages: the scanner reads what the
//!   server lists, not what it returns (CyberArk's "advanced tool poisoning" in outputs).
//! - Fields clients do not pass to models: `_meta`, `icons`, `execution` and unknown
//!   top-level fields of a tool.
//! - Look-alikes beyond the small table of Cyrillic, Greek and Armenian letters, fullwidth
//!   forms and mathematical letters; scripts are told apart for the ones that have
//!   look-alikes and for the mixes UTS #39 allows.
//! - Shadowing by a tool of a server that is not pinned beside this one: only tool names of
//!   [`ScanInput::other_servers`] are known.

mod chars;
mod context;
mod params;
mod phrases;
mod rules;
#[cfg(test)]
mod tests;
mod text;
mod walk;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::drift::{Change, Direction, Severity};
use crate::snapshot::{ItemKind, Snapshot, digest};

/// How much a finding matters. Ordered: `Info < Warning < High`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// What a reviewer may want to see, which should not stop a build.
    Info,
    /// Text aimed at the model, or characters a reader cannot see, that need a look.
    Warning,
    /// A known attack pattern.
    High,
}

impl Level {
    /// `info`, `warning` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::High => "high",
        }
    }

    /// The level named `name` (`info`, `warning` or `high`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "info" => Some(Level::Info),
            "warning" => Some(Level::Warning),
            "high" => Some(Level::High),
            _ => None,
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule: its id, the level it reports without other cues, one line of help and the
/// public sources it follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RuleInfo {
    /// The id findings and `accept` entries use (`unicode-tag`).
    pub id: &'static str,
    /// The level without other cues (context can lower or raise it; the module docs say how).
    pub level: Level,
    /// One line of help.
    pub help: &'static str,
    /// Public write-ups and standards the rule follows (title, and URL where there is one).
    pub sources: &'static [&'static str],
}

const INVARIANT_POISONING: &str = "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\", https://invariantlabs.ai/blog/mcp-security-notification-tool-poisoning-attacks";
const INVARIANT_WHATSAPP: &str = "Invariant Labs, \"WhatsApp MCP Exploited: Exfiltrating your message history via MCP\", https://invariantlabs.ai/blog/whatsapp-mcp-exploited";
const TOB_LINE_JUMPING: &str = "Trail of Bits, \"Jumping the line: How MCP servers can attack you before you ever use them\", https://blog.trailofbits.com/2025/04/21/jumping-the-line-how-mcp-servers-can-attack-you-before-you-ever-use-them/";
const TOB_ANSI: &str = "Trail of Bits, \"Deceiving users with ANSI terminal codes in MCP\", https://blog.trailofbits.com/2025/04/29/deceiving-users-with-ansi-terminal-codes-in-mcp/";
const CYBERARK: &str = "CyberArk, \"Poison everywhere: No output from your MCP server is safe\", https://www.cyberark.com/resources/threat-research-blog/poison-everywhere-no-output-from-your-mcp-server-is-safe";
const MCPTOX: &str = "Wang et al., \"MCPTox: A Benchmark for Tool Poisoning Attack on Real-World MCP Servers\", https://arxiv.org/abs/2508.14925";
const MSB: &str = "Zhang et al., \"MCP Security Bench (MSB): Benchmarking Attacks Against Model Context Protocol in LLM Agents\", https://arxiv.org/abs/2510.15994";
const ASCII_SMUGGLER: &str = "Embrace The Red, \"ASCII Smuggler Tool: Crafting Invisible Text and Decoding Hidden Codes\", https://embracethered.com/blog/posts/2024/hiding-and-finding-text-with-unicode-tags/";
const TROJAN_SOURCE: &str = "Boucher and Anderson, \"Trojan Source: Invisible Vulnerabilities\", https://trojansource.codes/";
const EMOJI_SMUGGLING: &str = "Paul Butler, \"Smuggling arbitrary data through an emoji\", https://paulbutler.org/2025/smuggling-arbitrary-data-through-an-emoji/";
const UTS39: &str = "Unicode Technical Standard #39, \"Unicode Security Mechanisms\", https://www.unicode.org/reports/tr39/";
const MCP_TOOLS: &str = "MCP specification 2025-06-18, \"Tools\" (ToolAnnotations), https://modelcontextprotocol.io/specification/2025-06-18/server/tools";
const OWASP_LLM01: &str = "OWASP, \"LLM01:2025 Prompt Injection\", https://genai.owasp.org/llmrisk/llm01-prompt-injection/";

/// Every rule, in the order findings of one text are reported.
pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        id: "unicode-tag",
        level: Level::High,
        help: "Unicode Tag characters (U+E0000–U+E007F) hide ASCII text that the model reads and a person does not see (ASCII smuggling).",
        sources: &[ASCII_SMUGGLER],
    },
    RuleInfo {
        id: "bidi-control",
        level: Level::High,
        help: "Bidirectional control characters make text display in another order than the model reads it.",
        sources: &[TROJAN_SOURCE],
    },
    RuleInfo {
        id: "invisible-character",
        level: Level::Warning,
        help: "Zero-width, invisible or control characters hide text or split words so that a reader and the model see different things.",
        sources: &[ASCII_SMUGGLER, TOB_ANSI],
    },
    RuleInfo {
        id: "variation-selector-payload",
        level: Level::High,
        help: "A run of variation selectors after one character encodes hidden bytes.",
        sources: &[EMOJI_SMUGGLING],
    },
    RuleInfo {
        id: "homoglyph-name",
        level: Level::High,
        help: "A name spelt with look-alike letters from another script reads as a different ASCII name.",
        sources: &[UTS39],
    },
    RuleInfo {
        id: "mixed-script",
        level: Level::Warning,
        help: "A name or word mixes letters of scripts that are not written together.",
        sources: &[UTS39],
    },
    RuleInfo {
        id: "instruction-override",
        level: Level::High,
        help: "The text tries to replace the instructions the model has, or claims precedence over them.",
        sources: &[TOB_LINE_JUMPING, MCPTOX],
    },
    RuleInfo {
        id: "hidden-from-user",
        level: Level::Warning,
        help: "The text asks the model to keep something from the user.",
        sources: &[INVARIANT_POISONING],
    },
    RuleInfo {
        id: "sensitive-file-access",
        level: Level::Warning,
        help: "The text asks to read or hand over keys, credentials or client configuration that the tool's purpose does not need.",
        sources: &[INVARIANT_POISONING, CYBERARK],
    },
    RuleInfo {
        id: "context-exfiltration-parameter",
        level: Level::Warning,
        help: "A parameter or sentence asks for the conversation, other messages, the system prompt or content read elsewhere.",
        sources: &[INVARIANT_POISONING, INVARIANT_WHATSAPP, CYBERARK],
    },
    RuleInfo {
        id: "cross-tool-instruction",
        level: Level::Warning,
        help: "The text instructs the model about other tools: every tool or command, a tool of no pinned server, or another tool's arguments.",
        sources: &[
            INVARIANT_POISONING,
            INVARIANT_WHATSAPP,
            MCPTOX,
            TOB_LINE_JUMPING,
        ],
    },
    RuleInfo {
        id: "shadowing",
        level: Level::Warning,
        help: "The text names a tool of another pinned server, which can change how the model uses that server.",
        sources: &[INVARIANT_POISONING, INVARIANT_WHATSAPP],
    },
    RuleInfo {
        id: "secret-parameter",
        level: Level::Warning,
        help: "A parameter asks for a password, API key, token, private key or wallet recovery phrase that the tool's purpose does not explain.",
        sources: &[CYBERARK, MSB],
    },
    RuleInfo {
        id: "urgency-markup",
        level: Level::Info,
        help: "Markup aimed at the model (<IMPORTANT>, <system>, HTML comments, chat-template role tokens).",
        sources: &[INVARIANT_POISONING],
    },
    RuleInfo {
        id: "annotation-contradiction",
        level: Level::Warning,
        help: "An annotation contradicts the tool: readOnlyHint true on a tool that deletes, sends or writes; destructiveHint false on one that deletes.",
        sources: &[MCP_TOOLS],
    },
    RuleInfo {
        id: "encoded-payload",
        level: Level::Warning,
        help: "A long base64 or hex token that decodes to text hides words from a reader.",
        sources: &[OWASP_LLM01, ASCII_SMUGGLER],
    },
    RuleInfo {
        id: "scan-limit",
        level: Level::Warning,
        help: "The descriptor nests deeper than 64 levels or holds more than 20,000 texts; the rest was not read.",
        sources: &[],
    },
];

/// The rule with id `id`.
///
/// ```
/// assert_eq!(oma_mcp_core::scan::rule("unicode-tag").map(|r| r.id), Some("unicode-tag"));
/// assert!(oma_mcp_core::scan::rule("no-such-rule").is_none());
/// ```
pub fn rule(id: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.id == id)
}

/// What a finding is in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Subject {
    /// The server's `instructions`.
    Instructions,
    /// A tool, by raw MCP name.
    Tool(String),
    /// A prompt, by name.
    Prompt(String),
    /// A resource, by `uri`.
    Resource(String),
    /// A resource template, by `name` (as a snapshot keys it; its `uriTemplate` may change).
    ResourceTemplate(String),
}

impl Subject {
    /// The tool's or prompt's name, the resource's URI or the template; empty for the
    /// instructions.
    pub fn name(&self) -> &str {
        match self {
            Subject::Instructions => "",
            Subject::Tool(n)
            | Subject::Prompt(n)
            | Subject::Resource(n)
            | Subject::ResourceTemplate(n) => n,
        }
    }

    /// `tool`, `prompt`, `resource`, `resource_template` or `instructions`.
    pub fn kind(&self) -> &'static str {
        match self {
            Subject::Instructions => "instructions",
            Subject::Tool(_) => "tool",
            Subject::Prompt(_) => "prompt",
            Subject::Resource(_) => "resource",
            Subject::ResourceTemplate(_) => "resource_template",
        }
    }
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Subject::Instructions => f.write_str("instructions"),
            other => write!(f, "{} {}", other.kind(), crate::quote::quoted(other.name())),
        }
    }
}

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// The rule's id ([`RULES`]).
    pub rule: &'static str,
    /// How much it matters.
    pub level: Level,
    /// What it is in.
    pub subject: Subject,
    /// An RFC 6901 JSON pointer into the item's descriptor
    /// (`/inputSchema/properties/note/description`); empty for the instructions.
    pub pointer: String,
    /// The text around the place, escaped (invisible characters as `\u{200B}`, Tag
    /// characters decoded as `⟦tags: "…"⟧`), at most 160 characters plus `…` marks.
    pub excerpt: String,
    /// One line for a human.
    pub message: String,
    /// The reason of the manifest's `accept` entry that covers this finding.
    pub accepted: Option<String>,
}

impl Finding {
    /// A finding (not accepted).
    pub fn new(
        rule: &'static str,
        level: Level,
        subject: Subject,
        pointer: String,
        excerpt: String,
        message: String,
    ) -> Self {
        Self {
            rule,
            level,
            subject,
            pointer,
            excerpt,
            message,
            accepted: None,
        }
    }
}

/// What [`scan`] reads: raw MCP descriptors (as `tools/list`, `prompts/list`,
/// `resources/list` and `resources/templates/list` send them), the server's
/// `instructions`, and the tool names of the other pinned servers.
///
/// ```
/// use oma_mcp_core::scan::{scan, ScanInput};
/// let tool = serde_json::json!({"name": "add", "description": "Adds two numbers.", "inputSchema": {"type": "object"}});
/// let input = ScanInput::new().tools([&tool]).other_servers("mail", ["send_email"]);
/// assert!(scan(&input).is_empty());
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct ScanInput<'a> {
    tools: Vec<&'a Value>,
    prompts: Vec<&'a Value>,
    resources: Vec<&'a Value>,
    resource_templates: Vec<&'a Value>,
    instructions: Option<&'a str>,
    others: Vec<(String, BTreeSet<String>)>,
}

impl<'a> ScanInput<'a> {
    /// Nothing to read yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Everything a snapshot pins: its tools, prompts, resources and resource templates
    /// (their descriptors, as the server sent them) and its instructions.
    pub fn from_snapshot(snapshot: &'a Snapshot) -> Self {
        let items = |kind| snapshot.items(kind).iter().map(|i| &i.descriptor);
        Self::new()
            .tools(snapshot.tools.iter().map(|t| &t.descriptor))
            .prompts(items(ItemKind::Prompt))
            .resources(items(ItemKind::Resource))
            .resource_templates(items(ItemKind::ResourceTemplate))
            .instructions(snapshot.instructions.as_deref())
    }

    /// Adds tool descriptors.
    pub fn tools(mut self, tools: impl IntoIterator<Item = &'a Value>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Adds prompt descriptors.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = &'a Value>) -> Self {
        self.prompts.extend(prompts);
        self
    }

    /// Adds resource descriptors.
    pub fn resources(mut self, resources: impl IntoIterator<Item = &'a Value>) -> Self {
        self.resources.extend(resources);
        self
    }

    /// Adds resource template descriptors.
    pub fn resource_templates(mut self, templates: impl IntoIterator<Item = &'a Value>) -> Self {
        self.resource_templates.extend(templates);
        self
    }

    /// Sets the server's `instructions`.
    pub fn instructions(mut self, instructions: Option<&'a str>) -> Self {
        self.instructions = instructions;
        self
    }

    /// Adds another pinned server and its tool names, for the `shadowing` rule and for
    /// look-alike names.
    pub fn other_servers(
        mut self,
        server: impl Into<String>,
        tools: impl IntoIterator<Item = impl AsRef<str>>,
    ) -> Self {
        self.others.push((
            server.into(),
            tools
                .into_iter()
                .map(|t| t.as_ref().to_lowercase())
                .collect(),
        ));
        self
    }

    /// Every item with its subject, walked texts, annotations and digest, in report order:
    /// instructions, tools, prompts, resources, resource templates, each by name.
    fn items(&self) -> Vec<Item<'a>> {
        let mut out = Vec::new();
        if let Some(text) = self.instructions {
            let mut walked = walk::Walked::default();
            walked.texts.push(walk::Text {
                pointer: String::new(),
                kind: walk::Kind::Prose,
                text,
                param: None,
            });
            out.push(Item {
                subject: Subject::Instructions,
                walked,
                annotations: None,
                digest: text.to_owned(),
            });
        }
        push_sorted(
            &mut out,
            &self.tools,
            "name",
            Subject::Tool,
            walk::tool,
            true,
        );
        push_sorted(
            &mut out,
            &self.prompts,
            "name",
            Subject::Prompt,
            walk::prompt,
            false,
        );
        push_sorted(
            &mut out,
            &self.resources,
            "uri",
            Subject::Resource,
            walk::resource,
            false,
        );
        push_sorted(
            &mut out,
            &self.resource_templates,
            "name",
            Subject::ResourceTemplate,
            walk::resource,
            false,
        );
        out
    }
}

/// One item to scan.
struct Item<'a> {
    subject: Subject,
    walked: walk::Walked<'a>,
    annotations: Option<&'a Value>,
    /// The descriptor's digest (the instructions: their text), for [`new_findings`].
    digest: String,
}

/// `items` sorted by their `key` (a name or URI) as items of one kind; `annotated`: their
/// `annotations` are tool annotations, which the rules compare with what the tool does.
fn push_sorted<'a>(
    out: &mut Vec<Item<'a>>,
    items: &[&'a Value],
    key: &str,
    subject: fn(String) -> Subject,
    walker: fn(&'a Value) -> walk::Walked<'a>,
    annotated: bool,
) {
    let name = |v: &Value| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut sorted = items.to_vec();
    sorted.sort_by_key(|v| name(v));
    for v in sorted {
        out.push(Item {
            subject: subject(name(v)),
            walked: walker(v),
            // Only tools have annotations that the rules compare with what they do.
            annotations: v.get("annotations").filter(|_| annotated),
            digest: digest(v),
        });
    }
}

/// Every finding of `input`, in a deterministic order: the instructions, then tools,
/// prompts, resources and resource templates by name; within an item, texts in descriptor
/// order (name, title, description, annotations, input schema, output schema), then rules in
/// [`RULES`] order. One finding per rule and pointer.
pub fn scan(input: &ScanInput<'_>) -> Vec<Finding> {
    let siblings: BTreeSet<String> = input
        .tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .map(str::to_lowercase)
        .collect();
    let sibling_tails = siblings
        .iter()
        .flat_map(|s| {
            s.match_indices('_')
                .map(move |(i, _)| s[i + 1..].to_owned())
        })
        .filter(|t| !t.is_empty())
        .collect();
    let server = rules::Server {
        siblings,
        sibling_tails,
        others: &input.others,
    };
    input
        .items()
        .iter()
        .flat_map(|item| rules::item(&item.subject, &item.walked, item.annotations, &server))
        .collect()
}

/// A manifest's decision to accept a finding: a rule for one tool (or every item: `*`),
/// with the reason a report shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Accept {
    /// The rule id ([`RULES`]).
    pub rule: String,
    /// The tool's (or prompt's) name, a resource's URI, or `*` for every item (the only way
    /// to accept a finding in the instructions).
    pub tool: String,
    /// Why the finding is fine.
    pub reason: String,
}

impl Accept {
    /// An accept entry.
    pub fn new(
        rule: impl Into<String>,
        tool: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            rule: rule.into(),
            tool: tool.into(),
            reason: reason.into(),
        }
    }

    /// Whether this entry covers `finding`.
    pub fn covers(&self, finding: &Finding) -> bool {
        self.rule == finding.rule
            && (self.tool == "*"
                || (finding.subject != Subject::Instructions
                    && self.tool == finding.subject.name()))
    }
}

/// Marks every finding an entry of `accepts` covers with that entry's reason (the first
/// entry that covers it).
pub fn apply_accepts(findings: &mut [Finding], accepts: &[Accept]) {
    for f in findings {
        if let Some(a) = accepts.iter().find(|a| a.covers(f)) {
            f.accepted = Some(a.reason.clone());
        }
    }
}

/// The findings `new` brings that `old` did not have: findings of items that are new or
/// whose digest changed (the instructions: whose text changed), minus the findings the old
/// item had (same rule, pointer and excerpt). An old finding in text that did not change is
/// not news.
pub fn new_findings(old: &ScanInput<'_>, new: &ScanInput<'_>) -> Vec<Finding> {
    let digests = |input: &ScanInput<'_>| -> BTreeMap<Subject, String> {
        input
            .items()
            .into_iter()
            .map(|i| (i.subject, i.digest))
            .collect()
    };
    let (old_items, new_items) = (digests(old), digests(new));
    let old_findings: BTreeSet<(Subject, &'static str, String, String)> = scan(old)
        .into_iter()
        .map(|f| (f.subject, f.rule, f.pointer, f.excerpt))
        .collect();
    scan(new)
        .into_iter()
        .filter(|f| old_items.get(&f.subject) != new_items.get(&f.subject))
        .filter(|f| {
            !old_findings.contains(&(
                f.subject.clone(),
                f.rule,
                f.pointer.clone(),
                f.excerpt.clone(),
            ))
        })
        .collect()
}

/// Findings as drift changes ([`ChangeKind::ScanFinding`](crate::drift::ChangeKind::ScanFinding), the change's tool the
/// subject's name, its direction the subject's kind: `tool`, `prompt`, `resource`,
/// `resource_template`, or `server` for the instructions): breaking for a warning or high finding, info for an info
/// finding or an accepted one. The message names the rule, the level and the excerpt.
pub fn finding_changes(findings: &[Finding]) -> Vec<Change> {
    findings
        .iter()
        .map(|f| {
            let severity = if f.level >= Level::Warning && f.accepted.is_none() {
                Severity::Breaking
            } else {
                Severity::Info
            };
            let accepted = f
                .accepted
                .as_ref()
                .map(|r| format!(" (accepted: {})", crate::quote::quoted(r)))
                .unwrap_or_default();
            let within = if f.subject == Subject::Instructions {
                " in the instructions"
            } else {
                ""
            };
            let direction = match &f.subject {
                Subject::Instructions => Direction::Server,
                Subject::Tool(_) => Direction::Tool,
                Subject::Prompt(_) => Direction::Prompt,
                Subject::Resource(_) => Direction::Resource,
                Subject::ResourceTemplate(_) => Direction::ResourceTemplate,
            };
            Change::scan_finding(
                f.subject.name(),
                f.pointer.clone(),
                severity,
                direction,
                format!(
                    "{} ({}){within}: {}; \"{}\"{accepted}",
                    f.rule, f.level, f.message, f.excerpt
                ),
            )
        })
        .collect()
}
