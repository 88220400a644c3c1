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
//!
//! # Stable names: contested names are tagged, never numbered
//!
//! Numbering by position is fine inside one tool's own schema (what a tool's schema
//! generates changes only when that schema changes, which drift reports), but not between
//! things the server may add or remove independently: tools, and the properties of one
//! object. There, a name that would be shared is *contested*, and **every** claimant gets a
//! tagged name instead of the first one keeping it:
//!
//! - types: `<Stem>_h<8 hex digits>` ([`tagged_type`]), e.g. `SearchA_h2c8d1f0e`;
//! - fields: `<snake>__h<8 hex digits>` ([`tagged_field`]), e.g. `foo_bar__h91b3c2aa`;
//!
//! where the hex digits are the first four bytes of the SHA-256 of the exact JSON name (the
//! MCP tool name, the property name). A tag depends on that name alone, never on the other
//! names or their order. Plain names cannot take that shape: in a plain UpperCamelCase name
//! a `_` (from the numbering `V1_2` or a keyword's `Self_`) is never followed by a lowercase
//! letter, as every word starts with an uppercase letter or a digit, and a plain snake_case
//! field never holds `__`. So a plain name and a tagged one never meet, and two tagged names
//! meet only when both the stem and the 32-bit tag are equal (the code generator reports that
//! as an error asking for a rename entry instead of numbering).

use std::collections::BTreeSet;
use std::fmt;

use heck::{ToSnakeCase, ToUpperCamelCase};
use sha2::{Digest, Sha256};

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
///
/// A value whose name would be one of `reserved` (an open enum's catch-all `Unknown`) gets
/// its [`tagged_type`] instead (`unknown` → `Unknown_h…`), so it never takes the reserved name
/// and never depends on the other values.
pub(crate) fn variant_idents(values: &[&str], reserved: &[&str]) -> Vec<String> {
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
            let base = if reserved.contains(&base.as_str()) {
                tagged_type(&base, value)
            } else {
                base
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

/// `h` and 8 lowercase hex digits: the first four bytes of the SHA-256 of the exact JSON
/// name `json` (see the module docs, "Stable names").
pub(crate) fn name_tag(json: &str) -> String {
    let digest = Sha256::digest(json.as_bytes());
    let mut tag = String::from("h");
    for byte in &digest[..4] {
        tag.push_str(&format!("{byte:02x}"));
    }
    tag
}

/// The tagged type name of a contested `stem` made for the JSON name `json`:
/// `<stem>_h<8 hex digits>` (`SearchA` for `search a` → `SearchA_h…`).
pub(crate) fn tagged_type(stem: &str, json: &str) -> String {
    format!("{stem}_{}", name_tag(json))
}

/// The tagged field identifier of the contested field `ident` made for the property `json`:
/// `<snake>__h<8 hex digits>`, never raw (`type` → `type__h…`, `self_` → `self__h…`).
pub(crate) fn tagged_field(ident: &RustIdent, json: &str) -> RustIdent {
    RustIdent::plain(format!(
        "{}__{}",
        ident.name.trim_end_matches('_'),
        name_tag(json)
    ))
}

/// Whether rustc's `non_camel_case_types` lint accepts the type name `name` (its rule: no
/// leading lowercase letter, no `__`, no `_` next to a letter). Tagged names (`SearchA_h…`)
/// and some user-chosen names fail it; the emitter allows the lint on those items.
pub(crate) fn is_lint_camel_case(name: &str) -> bool {
    let name = name.trim_matches('_');
    let chars: Vec<char> = name.chars().collect();
    !chars.first().is_some_and(|c| c.is_lowercase())
        && !name.contains("__")
        && !chars
            .windows(2)
            .any(|w| (w[0].is_alphabetic() && w[1] == '_') || (w[1].is_alphabetic() && w[0] == '_'))
}

/// Whether rustc's `non_snake_case` lint accepts the field name `name` (its rule: no
/// uppercase letter, no `__` once leading and trailing `_` are trimmed). Tagged fields
/// (`foo__h…`) fail it; the emitter allows the lint on their struct.
pub(crate) fn is_lint_snake_case(name: &str) -> bool {
    let name = name.trim_matches('_');
    !name.contains("__") && !name.chars().any(char::is_uppercase)
}

/// The field of a struct's typed `additionalProperties` map. A property whose field would
/// have this name is always tagged, so the map's field never takes a property's name or the
/// other way round when either comes or goes.
pub(crate) const EXTRA_FIELD: &str = "additional_properties";

/// The field identifiers of the properties `json_names` of one object, in order: each
/// property's [`snake_ident`], except that properties whose identifiers are equal
/// (`fooBar`, `foo_bar`, `foo-bar`), or equal to [`EXTRA_FIELD`], all get their
/// [`tagged_field`] (see the module docs, "Stable names").
pub(crate) fn field_idents(json_names: &[&str]) -> Vec<RustIdent> {
    let plain: Vec<RustIdent> = json_names.iter().map(|j| snake_ident(j)).collect();
    let contested = contested(plain.iter().map(|i| i.name.as_str()), &[EXTRA_FIELD]);
    plain
        .into_iter()
        .zip(json_names)
        .map(|(ident, json)| {
            if contested.contains(ident.name.as_str()) {
                tagged_field(&ident, json)
            } else {
                ident
            }
        })
        .collect()
}

/// The name hints of the types nested in `parent` for its properties `json_names`, in
/// order: [`nested_type_name`], except that properties whose hints are equal (`fooBar`,
/// `foo_bar`) all get their [`tagged_type`].
pub(crate) fn nested_type_names(parent: &str, json_names: &[&str]) -> Vec<String> {
    let plain: Vec<String> = json_names
        .iter()
        .map(|j| nested_type_name(parent, j))
        .collect();
    let contested = contested(plain.iter().map(String::as_str), &[]);
    let tagged: Vec<Option<String>> = plain
        .iter()
        .zip(json_names)
        .map(|(hint, json)| {
            contested
                .contains(hint.as_str())
                .then(|| tagged_type(hint, json))
        })
        .collect();
    plain
        .into_iter()
        .zip(tagged)
        .map(|(hint, tagged)| tagged.unwrap_or(hint))
        .collect()
}

/// The names that occur more than once in `names`, or at all in `reserved`.
fn contested<'a>(names: impl Iterator<Item = &'a str>, reserved: &[&str]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut contested = BTreeSet::new();
    for name in names {
        if !seen.insert(name) || reserved.contains(&name) {
            contested.insert(name.to_owned());
        }
    }
    contested
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

    /// Every name claimed so far (with the suffixed forms a claim reserved), in order.
    pub(crate) fn names(&self) -> &BTreeSet<String> {
        &self.used
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

    /// The exact cut: the first 64 bytes, then back to the last `_` when it lies past byte
    /// 32; a name of exactly 64 bytes is kept whole.
    #[test]
    fn long_names_are_cut_at_the_last_underscore_past_32() {
        // 74 bytes; the last `_` of the first 64 is at byte 58.
        assert_eq!(
            snake("search_repositories_by_owner_and_topic_with_pagination_and_sorting_options"),
            "search_repositories_by_owner_and_topic_with_pagination_and"
        );
        // A `_` at byte 33 is past 32: the cut goes back to it.
        let at_33 = format!("{}_{}", "a".repeat(33), "b".repeat(40));
        assert_eq!(snake(&at_33), "a".repeat(33));
        // A `_` at byte 32 is not: 64 bytes stay.
        let at_32 = format!("{}_{}", "a".repeat(32), "b".repeat(40));
        assert_eq!(
            snake(&at_32),
            format!("{}_{}", "a".repeat(32), "b".repeat(31))
        );
        // Only an early `_`: 64 bytes stay.
        let early = format!("ab_{}", "c".repeat(70));
        assert_eq!(snake(&early), format!("ab_{}", "c".repeat(61)));
        // Exactly 64 bytes: not cut, whatever `_` it holds.
        let exact = format!("{}_{}", "a".repeat(40), "b".repeat(23));
        assert_eq!(snake(&exact), exact);
        // UpperCamelCase parts have no `_`: the first 64 bytes.
        assert_eq!(
            camel_part(
                "search-repositories-by-owner-and-topic-with-pagination-and-sorting-options-now"
            ),
            "SearchRepositoriesByOwnerAndTopicWithPaginationAndSortingOptions"
        );
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
        let v = |values: &[&str]| variant_idents(values, &[]);
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
        // An open enum reserves `Unknown` for its catch-all: values that would take it are
        // tagged by their own text (`printf '%s' unknown | sha256sum` starts with b23a6a84).
        let open = |values: &[&str]| variant_idents(values, &["Unknown"]);
        assert_eq!(open(&["unknown", "x"]), ["Unknown_hb23a6a84", "X"]);
        assert_eq!(open(&["Unknown2", "x"]), ["Unknown2", "X"]);
        assert_eq!(v(&["unknown"]), ["Unknown"]);
    }

    /// Hashes checked independently: `printf '%s' fooBar | sha256sum` starts with 5a906c24.
    #[test]
    fn contested_fields_are_all_tagged() {
        let fields = |names: &[&str]| -> Vec<String> {
            field_idents(names)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            fields(&["fooBar", "foo_bar", "foo-bar", "other"]),
            [
                "foo_bar__h5a906c24",
                "foo_bar__h4928cae8",
                "foo_bar__h7d89c4f5",
                "other"
            ]
        );
        // Alone, a property keeps its plain name; a rival's arrival tags both.
        assert_eq!(fields(&["fooBar"]), ["foo_bar"]);
        assert_eq!(
            fields(&["type", "TYPE"]),
            ["type__h1303c06b", "type__ha90bab6f"]
        );
        assert_eq!(fields(&["type"]), ["r#type"]);
        assert_eq!(
            fields(&["additionalProperties"]),
            ["additional_properties__h762ee1dc"]
        );
        assert_eq!(
            super::nested_type_names("XArgs", &["fooBar", "foo_bar", "baz"]),
            ["XArgsFooBar_h5a906c24", "XArgsFooBar_h4928cae8", "XArgsBaz"]
        );
    }

    #[test]
    fn lint_rules() {
        assert!(is_lint_camel_case("SearchA"));
        assert!(is_lint_camel_case("V1_2"));
        assert!(!is_lint_camel_case("SearchA_h1dc0eb1b"));
        assert!(!is_lint_camel_case("search"));
        assert!(!is_lint_camel_case("A__B"));
        assert!(is_lint_snake_case("foo_bar"));
        assert!(is_lint_snake_case("_2fa"));
        assert!(is_lint_snake_case("self_"));
        assert!(!is_lint_snake_case("foo_bar__h5a906c24"));
        assert!(!is_lint_snake_case("fooBar"));
    }

    #[test]
    fn rename_only_when_names_differ() {
        assert!(!needs_rename(&snake_ident("type"), "type"));
        assert!(needs_rename(&snake_ident("pageSize"), "pageSize"));
        assert!(!needs_rename(&snake_ident("page_size"), "page_size"));
    }
}
