//! Rust identifiers from JSON names: snake_case fields, UpperCamelCase types and variants,
//! keywords, and deterministic de-duplication.
//!
//! Every name goes through the same steps:
//! 1. split into ASCII words: ASCII letters and digits are kept, every other ASCII character
//!    (`-`, `.`, `/`, spaces, symbols) separates words, a non-ASCII letter or digit becomes
//!    its own word `u<hex>` (so `名前` and `住所` stay distinct), other characters (emoji)
//!    separate words;
//! 2. case conversion with `heck` (camelCase humps become word boundaries too);
//! 3. an empty result gets a fallback word, a leading digit gets a prefix;
//! 4. keywords: a raw identifier (`r#type`), or a suffix for the few that cannot be raw
//!    (`self_`, `Self_`, `crate_`, `super_`);
//! 5. a [`Namespace`] hands out each name once: `page_size`, `page_size_2`, … for fields,
//!    `GetSum`, `GetSum2`, … for types.

use std::collections::BTreeSet;
use std::fmt;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Identifiers longer than this are cut (at a word boundary when possible).
const MAX_IDENT_LEN: usize = 64;

/// Strict and reserved keywords of every edition up to 2024.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers; they get a `_` suffix instead.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// A Rust identifier: `name` is always a plain ASCII identifier, `raw` says it must be
/// written `r#name` because it is a keyword.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RustIdent {
    /// The identifier without any `r#`.
    pub name: String,
    /// Whether it is written as a raw identifier (`r#type`).
    pub raw: bool,
}

impl RustIdent {
    /// A non-raw identifier.
    pub(crate) fn plain(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            raw: false,
        }
    }
}

impl fmt::Display for RustIdent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.raw {
            f.write_str("r#")?;
        }
        f.write_str(&self.name)
    }
}

/// Whether `s` is a plain (non-raw, non-keyword) ASCII identifier other than `_`.
pub(crate) fn is_plain_ident(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && s != "_"
        && !KEYWORDS.contains(&s)
}

/// Whether `ident` can be turned into a token: a plain identifier, or a keyword that may
/// be raw.
pub(crate) fn is_valid(ident: &RustIdent) -> bool {
    if ident.raw {
        KEYWORDS.contains(&ident.name.as_str()) && !NOT_RAW.contains(&ident.name.as_str())
    } else {
        is_plain_ident(&ident.name)
    }
}

/// Step 1: `raw` as space-separated ASCII words.
fn ascii_words(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c.is_alphanumeric() {
            out.push_str(&format!(" u{:04x} ", u32::from(c)));
        } else {
            out.push(' ');
        }
    }
    out
}

/// Cuts an ASCII identifier to [`MAX_IDENT_LEN`], preferring the last `_` boundary.
fn cut(mut s: String) -> String {
    if s.len() > MAX_IDENT_LEN {
        s.truncate(MAX_IDENT_LEN);
        if let Some(i) = s.rfind('_').filter(|&i| i > MAX_IDENT_LEN / 2) {
            s.truncate(i);
        }
    }
    s
}

/// The snake_case field identifier for the JSON property name `json` (not de-duplicated).
///
/// ```text
/// pageSize → page_size      type → r#type      self → self_      2fa → _2fa      "" → field
/// ```
pub(crate) fn snake_ident(json: &str) -> RustIdent {
    let mut name = cut(ascii_words(json).to_snake_case());
    name = name.trim_matches('_').to_owned();
    if name.is_empty() {
        name = "field".to_owned();
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    keyword_fix(name, "_")
}

fn keyword_fix(name: String, suffix: &str) -> RustIdent {
    if NOT_RAW.contains(&name.as_str()) {
        RustIdent::plain(format!("{name}{suffix}"))
    } else if KEYWORDS.contains(&name.as_str()) {
        RustIdent { name, raw: true }
    } else {
        RustIdent::plain(name)
    }
}

/// The UpperCamelCase words of `raw`, possibly empty or starting with a digit; for building
/// type names out of parts (`GetSum` + `Args` + `Filter`).
pub(crate) fn camel_part(raw: &str) -> String {
    cut(ascii_words(raw).to_upper_camel_case())
}

/// The name hint for a type nested in `parent` for the JSON name `json`:
/// `parent` + [`camel_part`] (`Field` when empty), cut to a readable length (a
/// [`Namespace`] keeps cut names distinct).
pub(crate) fn nested_type_name(parent: &str, json: &str) -> String {
    const MAX_TYPE_NAME_LEN: usize = 96;
    let part = camel_part(json);
    let mut name = format!("{parent}{}", if part.is_empty() { "Field" } else { &part });
    name.truncate(MAX_TYPE_NAME_LEN);
    name
}

/// A complete UpperCamelCase name for `raw`: [`camel_part`], then `fallback` when empty,
/// `digit_prefix` before a leading digit and `keyword_suffix` after `Self`.
pub(crate) fn camel_ident(
    raw: &str,
    fallback: &str,
    digit_prefix: &str,
    keyword_suffix: &str,
) -> String {
    let mut name = camel_part(raw);
    if name.is_empty() {
        name = fallback.to_owned();
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, digit_prefix);
    }
    if name == "Self" {
        name.push_str(keyword_suffix);
    }
    name
}

/// Distinct UpperCamelCase variant names for the enum values `values`, in order.
///
/// A value gets [`camel_ident`] of its words (`half-even` → `HalfEven`, `""` → `Empty`).
/// Values whose words alone would give the same name as another value's, or that have no
/// words, spell their punctuation out (`+1`/`-1` → `Plus1`/`Minus1`, `,`/`.` →
/// `Comma`/`Dot`, `a-b`/`a_b` → `AMinusB`/`AUnderscoreB`); what still collides (`open` and
/// `OPEN`) is numbered in order (`Open`, `Open2`).
pub(crate) fn variant_idents(values: &[&str]) -> Vec<String> {
    let plain: Vec<String> = values
        .iter()
        .map(|v| camel_ident(v, if v.is_empty() { "Empty" } else { "" }, "V", "_"))
        .collect();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for p in &plain {
        *counts.entry(p.as_str()).or_default() += 1;
    }
    let mut idents = Namespace::new();
    values
        .iter()
        .zip(&plain)
        .map(|(value, p)| {
            let base = if p.is_empty() || counts.get(p.as_str()).is_some_and(|&n| n > 1) {
                camel_ident(&spell_punctuation(value), "Variant", "V", "_")
            } else {
                p.clone()
            };
            idents.claim_type(&base, &[])
        })
        .collect()
}

/// `value` with each ASCII punctuation character replaced by its name as a word.
fn spell_punctuation(value: &str) -> String {
    let mut out = String::with_capacity(value.len() * 2);
    for c in value.chars() {
        let word = match c {
            '+' => "plus",
            '-' => "minus",
            '.' => "dot",
            ',' => "comma",
            '*' => "star",
            '/' => "slash",
            '\\' => "backslash",
            ':' => "colon",
            ';' => "semicolon",
            '!' => "bang",
            '?' => "question",
            '#' => "hash",
            '$' => "dollar",
            '%' => "percent",
            '&' => "and",
            '|' => "pipe",
            '^' => "caret",
            '~' => "tilde",
            '=' => "eq",
            '<' => "lt",
            '>' => "gt",
            '(' => "lparen",
            ')' => "rparen",
            '[' => "lbracket",
            ']' => "rbracket",
            '{' => "lbrace",
            '}' => "rbrace",
            '@' => "at",
            '\'' => "quote",
            '"' => "dquote",
            '`' => "backtick",
            '_' => "underscore",
            ' ' => "space",
            c => {
                out.push(c);
                continue;
            }
        };
        out.push(' ');
        out.push_str(word);
        out.push(' ');
    }
    out
}

/// Whether the field needs `#[serde(rename = "…")]`: its Rust name (without `r#`) differs
/// from the JSON name.
pub(crate) fn needs_rename(ident: &RustIdent, json: &str) -> bool {
    ident.name != json
}

/// Names handed out in one scope (the module's types, one struct's fields, one enum's
/// variants). Deterministic: the first claimant keeps the name, later ones get numbered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Namespace {
    used: BTreeSet<String>,
    /// Per numbering pattern (the prefix before the number, and the type suffixes), the number
    /// the last claim took. Names are never given back, so every smaller number is still
    /// taken: the next claim starts after it (the same name as a search from 2, without the
    /// quadratic cost of thousands of claims of one base, e.g. a 6,000-branch `anyOf`).
    last: std::collections::HashMap<(String, String), u64>,
}

impl Namespace {
    /// An empty namespace.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Claims a field identifier: `ident`, or `ident_2`, `ident_3`, … when taken. A
    /// numbered name is never raw.
    pub(crate) fn claim_field(&mut self, ident: RustIdent) -> RustIdent {
        if self.used.insert(ident.name.clone()) {
            return ident;
        }
        // `self_` → `self_2`, not `self__2` (which `non_snake_case` rejects).
        let prefix = format!("{}_", ident.name.trim_end_matches('_'));
        let start = self
            .last
            .get(&(prefix.clone(), String::new()))
            .map_or(2, |n| n + 1);
        let (n, name) = (start..)
            .map(|n| (n, format!("{prefix}{n}")))
            .find(|(_, candidate)| self.used.insert(candidate.clone()))
            .unwrap_or((start, prefix.clone()));
        self.last.insert((prefix, String::new()), n);
        RustIdent::plain(name)
    }

    /// Claims an UpperCamelCase name: `base`, or `base2`, `base3`, … such that `name` and
    /// `name + suffix` are free for every suffix in `suffixes`; all of them are then taken.
    pub(crate) fn claim_type(&mut self, base: &str, suffixes: &[&str]) -> String {
        let free = |used: &BTreeSet<String>, name: &str| {
            !used.contains(name)
                && suffixes
                    .iter()
                    .all(|s| !used.contains(&format!("{name}{s}")))
        };
        let name = if free(&self.used, base) {
            base.to_owned()
        } else {
            // `Self_` → `Self2`: `Self_2` is not UpperCamelCase; `V1` → `V1_2`, not `V12`.
            let base = base.trim_end_matches('_');
            let sep = if base.ends_with(|c: char| c.is_ascii_digit()) {
                "_"
            } else {
                ""
            };
            let pattern = (format!("{base}{sep}"), suffixes.join("\u{0}"));
            let start = self.last.get(&pattern).map_or(2, |n| n + 1);
            let (n, name) = (start..)
                .map(|n| (n, format!("{}{n}", pattern.0)))
                .find(|(_, candidate)| free(&self.used, candidate))
                .unwrap_or((start, base.to_owned()));
            self.last.insert(pattern, n);
            name
        };
        self.used.insert(name.clone());
        for s in suffixes {
            self.used.insert(format!("{name}{s}"));
        }
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snake(s: &str) -> String {
        snake_ident(s).to_string()
    }

    #[test]
    fn snake_case_conversions() {
        assert_eq!(snake("pageSize"), "page_size");
        assert_eq!(snake("page-size"), "page_size");
        assert_eq!(snake("page.size"), "page_size");
        assert_eq!(snake("PAGE_SIZE"), "page_size");
        assert_eq!(snake("filePath"), "file_path");
        assert_eq!(snake("repo/owner"), "repo_owner");
        assert_eq!(snake("x-ms-client-request-id"), "x_ms_client_request_id");
        assert_eq!(snake("café"), "caf_u00e9");
        assert_eq!(snake("名前"), "u540d_u524d");
        assert_eq!(snake("🚀"), "field");
        assert_eq!(snake(""), "field");
        assert_eq!(snake("$%^&"), "field");
        assert_eq!(snake("_"), "field");
        assert_eq!(snake("__private"), "private");
        assert_eq!(snake("2fa"), "_2fa");
        assert_eq!(snake("123"), "_123");
    }

    #[test]
    fn keywords() {
        assert_eq!(snake("type"), "r#type");
        assert_eq!(snake("Type"), "r#type");
        assert_eq!(snake("async"), "r#async");
        assert_eq!(snake("gen"), "r#gen");
        assert_eq!(snake("self"), "self_");
        assert_eq!(snake("Self"), "self_");
        assert_eq!(snake("crate"), "crate_");
        assert_eq!(snake("super"), "super_");
        assert_eq!(snake("union"), "union");
        assert!(snake_ident("type").raw);
        assert!(!snake_ident("self").raw);
        assert_eq!(camel_ident("self", "Tool", "Tool", "Tool"), "SelfTool");
        assert_eq!(camel_ident("Self", "Variant", "V", "_"), "Self_");
    }

    #[test]
    fn camel_case_conversions() {
        assert_eq!(camel_ident("get-sum", "Tool", "Tool", "Tool"), "GetSum");
        assert_eq!(camel_ident("get_sum", "Tool", "Tool", "Tool"), "GetSum");
        assert_eq!(
            camel_ident(
                "hosting_restartNode.jsApplicationV1",
                "Tool",
                "Tool",
                "Tool"
            ),
            "HostingRestartNodeJsApplicationV1"
        );
        assert_eq!(
            camel_ident("user-profile/update", "Tool", "Tool", "Tool"),
            "UserProfileUpdate"
        );
        assert_eq!(
            camel_ident("calendar.respondToEvent", "Tool", "Tool", "Tool"),
            "CalendarRespondToEvent"
        );
        assert_eq!(camel_ident("", "Tool", "Tool", "Tool"), "Tool");
        assert_eq!(camel_ident("🎉", "Variant", "V", "_"), "Variant");
        assert_eq!(camel_ident("2fa", "Tool", "Tool", "Tool"), "Tool2fa");
        assert_eq!(camel_ident("1", "Variant", "V", "_"), "V1");
        assert_eq!(camel_part("2fa"), "2fa");
    }

    #[test]
    fn nested_type_names() {
        assert_eq!(
            nested_type_name("GetSumArgs", "roundMode"),
            "GetSumArgsRoundMode"
        );
        assert_eq!(nested_type_name("GetSumArgs", "🚀"), "GetSumArgsField");
        assert_eq!(nested_type_name("GetSumArgs", "2fa"), "GetSumArgs2fa");
        assert_eq!(nested_type_name(&"A".repeat(200), "b").len(), 96);
    }

    #[test]
    fn long_names_are_cut() {
        let long = "word_".repeat(2000);
        let ident = snake_ident(&long);
        assert!(ident.name.len() <= MAX_IDENT_LEN, "{}", ident.name);
        assert!(is_plain_ident(&ident.name));
        assert!(camel_part(&long).len() <= MAX_IDENT_LEN);
    }

    /// Numbering resumes after the last number of its pattern: the same names as a search
    /// from 2 (numbers below it are all taken), also around names claimed literally.
    #[test]
    fn numbering_resumes_where_the_last_claim_stopped() {
        let mut types = Namespace::new();
        assert_eq!(types.claim_type("X3", &[]), "X3");
        let got: Vec<String> = (0..5).map(|_| types.claim_type("X", &[])).collect();
        assert_eq!(got, ["X", "X2", "X4", "X5", "X6"]);
        // Another suffix set is another pattern: it searches from 2 again, skipping every
        // number whose name (or name + suffix) is taken.
        assert_eq!(types.claim_type("X", &["Args"]), "X7");
        let mut fields = Namespace::new();
        let got: Vec<String> = (0..4)
            .map(|_| fields.claim_field(snake_ident("a")).to_string())
            .collect();
        assert_eq!(got, ["a", "a_2", "a_3", "a_4"]);
        assert_eq!(fields.claim_field(snake_ident("a_5")).to_string(), "a_5");
        assert_eq!(fields.claim_field(snake_ident("a")).to_string(), "a_6");
    }

    #[test]
    fn namespace_dedups_deterministically() {
        let mut fields = Namespace::new();
        assert_eq!(
            fields.claim_field(snake_ident("pageSize")).to_string(),
            "page_size"
        );
        assert_eq!(
            fields.claim_field(snake_ident("page_size")).to_string(),
            "page_size_2"
        );
        assert_eq!(
            fields.claim_field(snake_ident("page-size")).to_string(),
            "page_size_3"
        );
        assert_eq!(
            fields.claim_field(snake_ident("type")).to_string(),
            "r#type"
        );
        assert_eq!(
            fields.claim_field(snake_ident("TYPE")).to_string(),
            "type_2"
        );
        assert_eq!(fields.claim_field(snake_ident("self")).to_string(), "self_");
        assert_eq!(
            fields.claim_field(snake_ident("Self")).to_string(),
            "self_2"
        );

        let mut types = Namespace::new();
        assert_eq!(types.claim_type("GetSum", &["Args"]), "GetSum");
        assert_eq!(types.claim_type("GetSum", &["Args"]), "GetSum2");
        // `FooArgs` is taken by the first tool's argument struct.
        assert_eq!(types.claim_type("Foo", &["Args"]), "Foo");
        assert_eq!(types.claim_type("FooArgs", &[]), "FooArgs2");
        assert_eq!(types.claim_type("FooArgs", &["Args"]), "FooArgs3");
        assert_eq!(types.claim_type("Self_", &[]), "Self_");
        assert_eq!(types.claim_type("Self_", &[]), "Self2");
    }

    #[test]
    fn validity() {
        assert!(is_plain_ident("a_b"));
        assert!(is_plain_ident("_2fa"));
        assert!(!is_plain_ident("_"));
        assert!(!is_plain_ident("2fa"));
        assert!(!is_plain_ident("type"));
        assert!(!is_plain_ident("é"));
        assert!(is_valid(&RustIdent {
            name: "type".into(),
            raw: true
        }));
        assert!(!is_valid(&RustIdent {
            name: "self".into(),
            raw: true
        }));
        assert!(!is_valid(&RustIdent {
            name: "foo".into(),
            raw: true
        }));
    }

    #[test]
    fn variant_names_are_distinct() {
        let v = |values: &[&str]| variant_idents(values);
        assert_eq!(v(&["+1", "-1"]), ["Plus1", "Minus1"]);
        assert_eq!(v(&[",", "."]), ["Comma", "Dot"]);
        assert_eq!(v(&["open", "OPEN", "Open"]), ["Open", "Open2", "Open3"]);
        assert_eq!(v(&["a-b", "a_b", "c"]), ["AMinusB", "AUnderscoreB", "C"]);
        assert_eq!(
            v(&["", "1", "self", "🎉"]),
            ["Empty", "V1", "Self_", "Variant"]
        );
        assert_eq!(v(&["1", "+1", "v1"]), ["V1", "Plus1", "V1_2"]);
        assert_eq!(v(&["half-even", "x"]), ["HalfEven", "X"]);
    }

    #[test]
    fn rename_only_when_names_differ() {
        assert!(!needs_rename(&snake_ident("type"), "type"));
        assert!(needs_rename(&snake_ident("pageSize"), "pageSize"));
        assert!(!needs_rename(&snake_ident("page_size"), "page_size"));
    }
}
