//! The rules over parameters and annotations: `secret-parameter`,
//! `context-exfiltration-parameter` (by a parameter's name and description) and
//! `annotation-contradiction`.

use serde_json::Value;

use super::Level;
use super::context::{
    AUTH_PURPOSE, CONVERSATION_PURPOSE, Findings, Flags, KEY_PURPOSE, Purpose, split_words,
};
use super::phrases::{
    CONVERSATION, Phrases, SECRET_NOUNS, Word, find, find_any, phrases, sensitive_path, sentences,
};
use super::walk::{Kind, Walked};

phrases!(
    /// A description naming an API's key.
    API_KEY = ["api ~ key|keys|token"]
);
phrases!(
    /// A description asking for everything.
    EVERYTHING = ["everything|all ~ information|info|context|details|data"]
);
phrases!(
    /// A description asking for the user's private key or wallet recovery phrase, in the
    /// words wallets use for it (`wallet_words!` in the phrases module).
    YOUR_KEY = [concat!(
        "your|user's ~ private|ssh|",
        super::phrases::wallet_words!(),
        " ~ key|keys|phrase|words"
    )]
);
phrases!(
    /// A description asking for the user's password.
    YOUR_PASSWORD = ["your|user's ~ password|passwords|passphrase|credentials|credential|apikey"]
);
phrases!(
    /// A description asking for the user's API key or token.
    YOUR_TOKEN = ["your|user's ~ api|secret|access|auth ~ key|keys|token|tokens"]
);

/// Words of a parameter name that name a secret; strong ones (private keys, wallet recovery
/// phrases) separately.
pub(crate) fn secret_name(name: &str) -> Option<(bool, String)> {
    let words = split_words(name);
    let last = words.last()?;
    const NOT_THE_SECRET: &[&str] = &[
        "name",
        "names",
        "id",
        "ids",
        "type",
        "types",
        "count",
        "limit",
        "uri",
        "url",
        "ref",
        "version",
        "expiry",
        "expiration",
        "expires",
        "ttl",
        "length",
        "format",
        "scope",
        "scopes",
        "hint",
        "policy",
        "enabled",
        "required",
        "rotation",
        "store",
        "vault",
        "usage",
        "max",
        "min",
        "page",
        "cursor",
        "list",
        "path",
        "file",
        "env",
        "variable",
        "var",
        "arn",
        "source",
        "mode",
        "kind",
        "filter",
        "prefix",
        "header",
        "field",
        "location",
    ];
    if NOT_THE_SECRET.contains(&last.as_str()) {
        return None;
    }
    let joined = words.join("_");
    let strong = [
        "private_key",
        "privatekey",
        "ssh_key",
        "sshkey",
        "seed_phrase",
        "seedphrase",
        "mnemonic",
        "id_rsa",
        "wallet_key",
        "recovery_phrase",
    ]
    .iter()
    .any(|m| joined.contains(m));
    let normal = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "password"
                | "passwd"
                | "passphrase"
                | "secret"
                | "apikey"
                | "credential"
                | "credentials"
                | "cookie"
                | "pat"
        )
    }) || joined.contains("api_key")
        || joined.contains("client_secret")
        || (words.iter().any(|w| w == "token")
            && words.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "access"
                        | "auth"
                        | "bearer"
                        | "api"
                        | "session"
                        | "refresh"
                        | "id"
                        | "personal"
                        | "github"
                        | "oauth"
                        | "jwt"
                        | "secret"
                )
            }));
    (strong || normal).then(|| (strong, name.to_owned()))
}

/// `secret-parameter` and `context-exfiltration-parameter` over the input parameters.
pub(crate) fn param_findings(
    found: &mut Findings<'_>,
    walked: &Walked<'_>,
    f: Flags,
    purpose: &Purpose,
) {
    for (pi, p) in walked.params.iter().enumerate() {
        let Some(index) = walked
            .texts
            .iter()
            .position(|t| t.param == Some(pi) && t.kind == Kind::Name)
        else {
            continue;
        };
        let flagged = |found: &Findings<'_>, rule: &str| {
            found.out.iter().any(|(_, x)| {
                x.rule == rule
                    && walked
                        .texts
                        .iter()
                        .any(|t| t.param == Some(pi) && t.pointer == x.pointer)
            })
        };
        let desc = p.description.unwrap_or_default();
        let desc_words: Vec<Word> = sentences(desc).into_iter().flat_map(|s| s.words).collect();
        if let Some((strong, _)) = secret_name(p.name).or_else(|| solicits_secret(&desc_words)) {
            // A secret of something the tool sets up or connects to (`admin-password`,
            // `db_password`) or of the API it calls is the tool's own business; the user's
            // own (`user_password`) is not, unless the tool's purpose says so.
            let owner = split_words(p.name).iter().any(|w| {
                matches!(
                    w.as_str(),
                    "admin"
                        | "administrator"
                        | "root"
                        | "db"
                        | "database"
                        | "sql"
                        | "server"
                        | "vm"
                        | "registry"
                        | "smtp"
                        | "proxy"
                        | "cluster"
                        | "certificate"
                        | "cert"
                        | "pfx"
                        | "keystore"
                        | "vault"
                        | "storage"
                        | "connection"
                )
            });
            let aligned = if strong {
                purpose.has(KEY_PURPOSE)
            } else {
                owner || purpose.has(AUTH_PURPOSE) || find(&desc_words, &API_KEY).is_some()
            };
            let level = if f.attack() {
                Level::High
            } else if aligned {
                Level::Info
            } else {
                Level::Warning
            };
            let why = if aligned {
                "the tool's purpose involves it"
            } else {
                "nothing in the tool's name or description says why it needs one"
            };
            found.push(
                index,
                p.pointer.clone(),
                p.name,
                0,
                "secret-parameter",
                level,
                format!("the parameter \"{}\" asks for a secret; {why}", p.name),
            );
        }
        if flagged(found, "context-exfiltration-parameter") {
            continue;
        }
        let compact: String = split_words(p.name).concat();
        let named_for_conversation = matches!(
            compact.as_str(),
            "conversationhistory"
                | "chathistory"
                | "messagehistory"
                | "previousmessages"
                | "priormessages"
                | "allmessages"
                | "fullconversation"
                | "conversation"
                | "systemprompt"
                | "systeminstructions"
                | "usermessages"
                | "chatlog"
                | "conversationlog"
                | "conversationcontext"
                | "chatcontext"
                | "sessionhistory"
        );
        let catch_all = matches!(
            compact.as_str(),
            "sidenote"
                | "note"
                | "notes"
                | "feedback"
                | "context"
                | "extra"
                | "extrainfo"
                | "additionalinfo"
                | "additionalcontext"
                | "metadata"
                | "debug"
                | "debuginfo"
                | "remarks"
                | "comment"
                | "comments"
                | "memo"
                | "reasoning"
                | "summary"
                | "details"
                | "annotation"
                | "info"
        );
        let asks = find_any(&desc_words, &CONVERSATION).is_some()
            || find_any(&desc_words, &SECRET_NOUNS).is_some()
            || sensitive_path(desc).is_some()
            || find(&desc_words, &EVERYTHING).is_some();
        if named_for_conversation || (catch_all && asks) {
            let level = if f.attack() {
                Level::High
            } else if purpose.has(CONVERSATION_PURPOSE) {
                Level::Info
            } else {
                Level::Warning
            };
            let what = if named_for_conversation {
                "is named for the conversation"
            } else {
                "asks for the conversation, secrets or everything the model knows"
            };
            found.push(
                index,
                p.pointer.clone(),
                p.name,
                0,
                "context-exfiltration-parameter",
                level,
                format!(
                    "the parameter \"{}\" {what}; the tool's purpose does not need it",
                    p.name
                ),
            );
        }
    }
}

/// A description that asks for the user's secret: "your password", "the user's API key".
fn solicits_secret(words: &[Word]) -> Option<(bool, String)> {
    if find(words, &YOUR_KEY).is_some() {
        return Some((true, String::new()));
    }
    (find(words, &YOUR_PASSWORD).is_some() || find(words, &YOUR_TOKEN).is_some())
        .then(|| (false, String::new()))
}

/// Verbs of names that only read.
const READS: &[&str] = &[
    "get",
    "list",
    "search",
    "read",
    "find",
    "fetch",
    "query",
    "show",
    "describe",
    "view",
    "check",
    "lookup",
    "browse",
    "inspect",
    "diagnose",
    "analyze",
    "count",
    "download",
    "export",
    "retrieve",
    "resolve",
    "validate",
    "explain",
    "summarize",
    "preview",
    "watch",
];
/// Verbs of names that delete or send.
const DESTROYS: &[&str] = &[
    "delete",
    "remove",
    "drop",
    "destroy",
    "purge",
    "erase",
    "wipe",
    "truncate",
    "kill",
    "terminate",
    "send",
    "transfer",
    "pay",
    "uninstall",
    "revoke",
    "rm",
];
/// Verbs of names that write.
const WRITES: &[&str] = &[
    "create", "update", "modify", "set", "write", "put", "post", "upload", "push", "merge",
    "deploy", "install", "move", "rename", "reset", "disable", "enable", "stop", "restart",
    "cancel", "close", "archive", "approve", "submit", "insert", "replace", "edit", "patch", "add",
    "publish", "email", "assign", "invite", "commit", "fork", "lock", "unlock", "scale", "restore",
    "import", "save", "append", "clear", "execute", "exec",
];

/// The verb of a tool: the first word of its annotation title, else of its name, when it is
/// a verb; else the last word of its name (`pods_delete`).
fn tool_verb(name: &str, title: Option<&str>) -> Option<String> {
    let is_verb = |w: &String| {
        READS.contains(&w.as_str())
            || DESTROYS.contains(&w.as_str())
            || WRITES.contains(&w.as_str())
    };
    if let Some(first) = title
        .and_then(|t| split_words(t).into_iter().next())
        .filter(is_verb)
    {
        return Some(first);
    }
    let words = split_words(name);
    // `deploy_plan_get` reads a plan: a read verb at the end wins over a first word that
    // names an area.
    if let Some(last) = words.last().filter(|w| READS.contains(&w.as_str())) {
        return Some(last.clone());
    }
    words
        .first()
        .filter(|w| is_verb(w))
        .or_else(|| words.last().filter(|w| is_verb(w)))
        .cloned()
}

/// `annotation-contradiction`: `readOnlyHint: true` on a tool whose verb deletes or sends
/// (warning) or writes (info); `destructiveHint: false` on a tool whose verb deletes
/// (warning). The verb is the first word of the annotation title or the name, or the last
/// word of the name.
pub(crate) fn annotation_findings(
    found: &mut Findings<'_>,
    walked: &Walked<'_>,
    annotations: &Value,
) {
    let name = walked
        .texts
        .iter()
        .find(|t| t.pointer == "/name")
        .map_or("", |t| t.text);
    let title = annotations.get("title").and_then(Value::as_str);
    let Some(verb) = tool_verb(name, title) else {
        return;
    };
    let at = walked.texts.len();
    let mut push = |key: &str, level: Level, message: String| {
        let text = format!("{key}: {}", annotations.get(key).unwrap_or(&Value::Null));
        found.push(
            at,
            format!("/annotations/{key}"),
            &text,
            0,
            "annotation-contradiction",
            level,
            message,
        );
    };
    let said = if title.is_some_and(|t| split_words(t).first() == Some(&verb)) {
        "title"
    } else {
        "name"
    };
    if annotations.get("readOnlyHint") == Some(&Value::Bool(true)) {
        if DESTROYS.contains(&verb.as_str()) {
            push(
                "readOnlyHint",
                Level::Warning,
                format!("readOnlyHint is true, but the tool's {said} says it will {verb}"),
            );
        } else if WRITES.contains(&verb.as_str()) {
            push(
                "readOnlyHint",
                Level::Info,
                format!("readOnlyHint is true, but the tool's {said} says it will {verb}"),
            );
        }
    } else if annotations.get("destructiveHint") == Some(&Value::Bool(false))
        && matches!(
            verb.as_str(),
            "delete"
                | "remove"
                | "drop"
                | "destroy"
                | "purge"
                | "erase"
                | "wipe"
                | "truncate"
                | "uninstall"
                | "rm"
        )
    {
        push(
            "destructiveHint",
            Level::Warning,
            format!("destructiveHint is false, but the tool's {said} says it will {verb}"),
        );
    }
}
