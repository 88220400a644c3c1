//! Schema rules: one walk over an old and a new JSON Schema (the input or the output schema of
//! one tool), recursing through `properties`, `items`, `prefixItems`, `additionalProperties`,
//! `propertyNames`, `unevaluatedProperties`, `unevaluatedItems`, `additionalItems`,
//! `patternProperties`, `dependentSchemas`, local `$ref` (any `#…` JSON pointer, percent-decoded)
//! and `anyOf`/`oneOf`/`allOf` (JSON Schema 2020-12, "Applicator" and "Validation"
//! vocabularies; draft-07 array-form `items` as a tuple). Keywords beside a `$ref` are
//! compared as a schema of their own beside the target (2019-09+); keywords beside a union
//! facing a plain schema are compared with that schema's same keywords; enum values and
//! branches are matched by hash ([`value_key`]).
//!
//! Every keyword change is classified as narrowing (accepts fewer values), widening (accepts
//! more) or incompatible, and the direction turns that into a severity: narrowing breaks input,
//! widening breaks output, incompatible breaks both (see [`Effect`]). Assertions compared as
//! whole values ([`OPAQUE`], `if`/`then`/`else`) narrow when added, widen when removed and are
//! incompatible when changed. A part that differs but cannot be compared (an unresolvable
//! `$ref`, nesting past [`MAX_DEPTH`], an invalid schema on the old side) is a warning; a schema
//! that became invalid is breaking; only annotations (`default`, `examples`, unknown keywords)
//! are info.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

mod applicators;
mod assertions;
mod shape;

pub(super) use super::message::cut;
use super::message::{quote, show, text_message};
use super::{Change, ChangeKind, Direction, Severity};
use shape::{
    bare, branches, contains_ref, covers, is_union, normalize, nullable, types, union_list,
};

/// How deep the walk nests; a deeper difference is reported once, as a warning. Followed
/// `$ref`s do not nest (their targets are compared from a queue), so this bounds only literal
/// nesting, which `serde_json` already stops at 128 levels when parsing: the limit guards the
/// stack against values built in code.
const MAX_DEPTH: usize = 128;

/// How many pairs of `$ref` targets one schema comparison follows; each distinct pair is
/// followed once, so only a schema with thousands of definitions reaches this. Past it the
/// rest is one warning: the comparison stays bounded in time and memory whatever the server
/// sends.
const MAX_REF_PAIRS: usize = 10_000;

/// Upper bounds: a smaller value accepts fewer values (JSON Schema 2020-12 validation).
const UPPER_BOUNDS: [&str; 6] = [
    "maxLength",
    "maximum",
    "exclusiveMaximum",
    "maxItems",
    "maxProperties",
    "maxContains",
];
/// Lower bounds: a larger value accepts fewer values (an absent `minContains` is 1).
const LOWER_BOUNDS: [&str; 6] = [
    "minLength",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "minProperties",
    "minContains",
];
/// Subschemas that each property name, unevaluated property or item, or additional item must
/// match: absent is `true` and a narrower subschema narrows the whole, so they are walked like
/// `additionalProperties` (JSON Schema 2020-12 §10.3.2.4, §11; draft 2019-09 `additionalItems`).
pub(super) const EACH: [&str; 4] = [
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];
/// Maps of subschemas (`patternProperties`: pattern → schema; `dependentSchemas`: property →
/// schema): an entry added narrows, one removed widens, a common one is walked.
pub(super) const SCHEMA_MAPS: [&str; 2] = ["patternProperties", "dependentSchemas"];
/// Assertions compared as whole values: added → narrows, removed → widens, changed →
/// incompatible. `if`/`then`/`else` are one such assertion ([`Ctx::conditional`]).
pub(super) const OPAQUE: [&str; 6] = [
    "not",
    "contains",
    "dependentRequired",
    "dependencies",
    "$dynamicRef",
    "$recursiveRef",
];
/// Keywords with their own rule; every other keyword that differs is a [`ChangeKind::KeywordChanged`].
const HANDLED: &[&str] = &[
    "description",
    "title",
    "type",
    "nullable",
    "enum",
    "const",
    "pattern",
    "format",
    "multipleOf",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "maxLength",
    "maximum",
    "exclusiveMaximum",
    "maxItems",
    "maxProperties",
    "minLength",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "minProperties",
    "maxContains",
    "minContains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
    "patternProperties",
    "dependentSchemas",
    "not",
    "contains",
    "dependentRequired",
    "dependencies",
    "$dynamicRef",
    "$recursiveRef",
    "if",
    "then",
    "else",
];

/// What a change does to the set of values a schema accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    /// Accepts fewer values: breaks input (we may send what is now rejected), harmless for
    /// output.
    Narrow,
    /// Accepts more values: breaks output (we may receive what our types cannot hold),
    /// harmless for input.
    Widen,
    /// Neither a subset nor a superset: breaks both.
    Incompatible,
}

/// The walk over one pair of root schemas.
pub(super) struct Ctx<'a> {
    tool: &'a str,
    direction: Direction,
    old_root: &'a Value,
    new_root: &'a Value,
    /// `/inputSchema` or `/outputSchema`: where the roots sit in the descriptor.
    root_ptr: String,
    /// Pairs of followed `$ref` targets already compared (cycles, shared definitions).
    seen: HashSet<(String, String)>,
    /// Pairs of `$ref` targets still to compare (old, new, pointer), first found first: a
    /// chain of references is compared without nesting.
    pending: VecDeque<(Value, Value, String)>,
    /// Both roots have the same `$defs` and `definitions`: equal subschemas are equal even
    /// when they hold a `$ref`.
    defs_equal: bool,
}

/// Text two JSON values share exactly when they are equal (`==`): their canonical JSON
/// ([`crate::snapshot::canonical_json`]: sorted keys), with `-0.0` written as `0.0` (the two
/// are equal as numbers). For hashed membership tests.
pub(super) fn value_key(value: &Value) -> String {
    fn unsigned_zero(v: &mut Value) {
        match v {
            Value::Number(n) if n.is_f64() && n.as_f64() == Some(0.0) => *v = Value::from(0.0),
            Value::Array(a) => a.iter_mut().for_each(unsigned_zero),
            Value::Object(m) => m.values_mut().for_each(unsigned_zero),
            _ => {}
        }
    }
    let mut v = value.clone();
    unsigned_zero(&mut v);
    crate::snapshot::canonical_json(&v)
}

/// The sorted union of two objects' keys (empty for non-objects).
pub(crate) fn union_keys(a: &Value, b: &Value) -> Vec<String> {
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut all: BTreeSet<String> = keys(a).into_iter().collect();
    all.extend(keys(b));
    all.into_iter().collect()
}

// A JSON pointer reference token (RFC 6901: `~` → `~0`, `/` → `~1`).
pub(crate) use crate::pointer::escape_token as escape;

impl<'a> Ctx<'a> {
    /// A walk over `old_root` and `new_root` for `tool` in `direction`.
    pub(super) fn new(
        tool: &'a str,
        direction: Direction,
        old_root: &'a Value,
        new_root: &'a Value,
    ) -> Self {
        Self {
            tool,
            direction,
            old_root,
            new_root,
            root_ptr: String::new(),
            seen: HashSet::new(),
            pending: VecDeque::new(),
            defs_equal: ["$defs", "definitions"]
                .iter()
                .all(|k| old_root.get(*k) == new_root.get(*k)),
        }
    }

    /// Walks the roots, then the `$ref` targets they lead to; `root_ptr` is where the roots sit
    /// in the descriptor.
    pub(super) fn run(mut self, root_ptr: &str, out: &mut Vec<Change>) {
        self.root_ptr = root_ptr.to_owned();
        let (old, new) = (self.old_root, self.new_root);
        if !new.is_object() {
            // MCP 2025-06-18 "Tools": `inputSchema` and `outputSchema` are JSON Schema objects.
            let which = match self.direction {
                Direction::Output => "output",
                _ => "input",
            };
            let msg = format!(
                "{which} schema is not a JSON object (MCP requires one; the server declares an unusable schema): {} → {}",
                cut(old),
                cut(new)
            );
            self.push(
                out,
                root_ptr,
                ChangeKind::InvalidSchema,
                Severity::Breaking,
                msg,
            );
            return;
        }
        let start = out.len();
        self.walk(old, new, root_ptr, 0, out);
        let mut followed = 0usize;
        while let Some((old, new, ptr)) = self.pending.pop_front() {
            followed += 1;
            if followed > MAX_REF_PAIRS {
                let msg = format!(
                    "more than {MAX_REF_PAIRS} pairs of $ref targets to compare; the rest ({} \
                     more) not compared, review the schema by hand",
                    self.pending.len() + 1
                );
                self.push(out, &ptr, ChangeKind::NotCompared, Severity::Warning, msg);
                break;
            }
            self.walk(&old, &new, &ptr, 0, out);
        }
        // One `$ref` target reached from two places with the same difference (a recursive
        // definition, a shared one) is one change: the pointer is the target's.
        let added = out.split_off(start);
        let mut once = HashSet::new();
        out.extend(
            added
                .into_iter()
                .filter(|c| once.insert((c.pointer.clone(), c.kind, c.message.clone()))),
        );
    }

    fn severity(&self, effect: Effect) -> Severity {
        match (effect, self.direction) {
            (Effect::Incompatible, _) => Severity::Breaking,
            (Effect::Narrow, Direction::Output) | (Effect::Widen, Direction::Input) => {
                Severity::Info
            }
            (Effect::Narrow, _) | (Effect::Widen, _) => Severity::Breaking,
        }
    }

    fn push(
        &self,
        out: &mut Vec<Change>,
        ptr: &str,
        kind: ChangeKind,
        severity: Severity,
        message: String,
    ) {
        out.push(Change {
            tool: self.tool.to_owned(),
            pointer: ptr.to_owned(),
            kind,
            severity,
            direction: self.direction,
            message,
        });
    }

    fn effect(&self, out: &mut Vec<Change>, ptr: &str, kind: ChangeKind, e: Effect, msg: String) {
        let severity = self.severity(e);
        self.push(out, ptr, kind, severity, msg);
    }

    /// Resolves a local `$ref` (`#`, `#/$defs/X`, any `#/…` JSON pointer, percent-decoded:
    /// [`crate::pointer::decode_fragment`]) against `root`: the fragment and its target alone.
    /// `None` for an external, anchor or dangling ref.
    fn resolve(root: &Value, schema: &Value) -> Option<(String, Value)> {
        let reference = schema.get("$ref")?.as_str()?;
        let fragment = crate::pointer::decode_fragment(reference.strip_prefix('#')?)?;
        let target = root.pointer(&fragment)?;
        Some((fragment, target.clone()))
    }

    /// A schema's keywords beside its `$ref`, as a schema of their own.
    fn siblings(schema: &Value) -> Value {
        let mut m = schema.as_object().cloned().unwrap_or_default();
        m.remove("$ref");
        Value::Object(m)
    }

    /// A `$ref` target with the keywords beside the `$ref` laid over it: what a schema that
    /// faces one without a `$ref` is compared as.
    fn merged(target: Value, schema: &Value) -> Value {
        let mut merged = match target {
            Value::Object(m) => m,
            Value::Bool(true) => Map::new(),
            other => return other,
        };
        if let Some(siblings) = schema.as_object() {
            for (k, v) in siblings {
                if k != "$ref" {
                    merged.insert(k.clone(), v.clone());
                }
            }
        }
        Value::Object(merged)
    }

    fn walk(&mut self, old: &Value, new: &Value, ptr: &str, depth: usize, out: &mut Vec<Change>) {
        if old == new && (self.defs_equal || !contains_ref(old)) {
            return;
        }
        if depth > MAX_DEPTH {
            self.push(
                out,
                ptr,
                ChangeKind::NotCompared,
                Severity::Warning,
                format!("schema nested deeper than {MAX_DEPTH} levels changed; not compared, review it by hand"),
            );
            return;
        }
        let (old, new) = (&normalize(old), &normalize(new));
        if old == new && (self.defs_equal || !contains_ref(old)) {
            return;
        }
        // Local references: compare what they point at, once per pair of targets.
        let old_ref = old.get("$ref").map(|_| Self::resolve(self.old_root, old));
        let new_ref = new.get("$ref").map(|_| Self::resolve(self.new_root, new));
        let (old_lost, new_lost) = (matches!(old_ref, Some(None)), matches!(new_ref, Some(None)));
        if old_lost || new_lost {
            let what = match (old_lost, new_lost) {
                (true, true) if old == new => return, // the same unresolvable text
                (true, true) => "schema with a non-local or dangling $ref changed",
                (false, true) => "$ref no longer resolves (non-local or dangling)",
                _ => "$ref resolves now (was non-local or dangling)",
            };
            let msg = format!(
                "{what}; not compared, review it by hand: {} → {}",
                cut(old),
                cut(new)
            );
            self.push(out, ptr, ChangeKind::RefUnresolved, Severity::Warning, msg);
            return;
        }
        if let (Some(Some((old_id, old_target))), Some(Some((new_id, new_target)))) =
            (&old_ref, &new_ref)
        {
            // Both sides refer: the keywords beside the `$ref`s apply too (2019-09+), so they
            // are compared here as a schema of their own, and the targets, once per pair, from
            // the queue.
            self.walk(&Self::siblings(old), &Self::siblings(new), ptr, depth, out);
            if self.seen.insert((old_id.clone(), new_id.clone())) {
                let p = format!("{}{}", self.root_ptr, new_id);
                self.pending
                    .push_back((old_target.clone(), new_target.clone(), p));
            }
            return;
        }
        if old_ref.is_some() || new_ref.is_some() {
            // One side refers: its target, with the keywords beside the `$ref` laid over it,
            // faces the other side. The pair is keyed by content, not by pointer: a recursive
            // target (`T = anyOf[array of T, string]`) facing a plain schema meets the same
            // pair again one level down, at a new pointer, and would be queued forever.
            let old = match old_ref.flatten() {
                Some((_, v)) => Self::merged(v, old),
                None => old.clone(),
            };
            let (new, new_ptr) = match new_ref.flatten() {
                Some((id, v)) => (Self::merged(v, new), format!("{}{}", self.root_ptr, id)),
                None => (new.clone(), ptr.to_owned()),
            };
            let key = (
                format!("={}", value_key(&old)),
                format!("={}", value_key(&new)),
            );
            if self.seen.insert(key) {
                self.pending.push_back((old, new, new_ptr));
            }
            return;
        }
        let schema = |v: &Value| matches!(v, Value::Object(_) | Value::Bool(_));
        match (old, new) {
            (Value::Object(o), Value::Object(n)) => self.compare(o, n, ptr, depth, out),
            (_, new) if !schema(new) => self.push(
                out,
                ptr,
                ChangeKind::InvalidSchema,
                Severity::Breaking,
                format!(
                    "schema is not a JSON Schema (an object or a boolean); the server declares an unusable schema: {} → {}",
                    cut(old),
                    cut(new)
                ),
            ),
            (old, _) if !schema(old) => self.push(
                out,
                ptr,
                ChangeKind::NotCompared,
                Severity::Warning,
                format!(
                    "schema was not a JSON Schema (an object or a boolean), now is; not compared, review it by hand: {} → {}",
                    cut(old),
                    cut(new)
                ),
            ),
            (Value::Bool(false), _) => self.effect(
                out,
                ptr,
                ChangeKind::TypeWidened,
                Effect::Widen,
                "schema accepted nothing (false), now accepts values".into(),
            ),
            (_, Value::Bool(false)) => self.effect(
                out,
                ptr,
                ChangeKind::TypeNarrowed,
                Effect::Narrow,
                "schema now accepts nothing (false)".into(),
            ),
            // `true` is `{}` once normalized: two objects, compared above.
            _ => {}
        }
    }

    fn compare(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        for (key, kind) in [
            ("title", ChangeKind::TitleChanged),
            ("description", ChangeKind::DescriptionChanged),
        ] {
            let (ov, nv) = (o.get(key), n.get(key));
            if ov != nv {
                let p = format!("{ptr}/{key}");
                self.push(out, &p, kind, Severity::Warning, text_message(key, ov, nv));
            }
        }
        self.nullability(o, n, ptr, out);
        if is_union(o) != is_union(n) {
            // A plain schema on one side, a union on the other: the keywords beside the union
            // are compared with the same keywords of the plain schema, and the plain schema
            // as a single branch, without the keywords that differ from those beside the
            // union (compared once, beside it).
            let beside: Vec<&String> = if is_union(o) { o.keys() } else { n.keys() }
                .filter(|k| !matches!(k.as_str(), "anyOf" | "oneOf"))
                .collect();
            let part = |m: &Map<String, Value>| -> Map<String, Value> {
                m.iter()
                    .filter(|(k, _)| beside.contains(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            };
            let branch = |m: &Map<String, Value>| {
                let mut m = m.clone();
                if !is_union(&m) {
                    m.retain(|k, _| !beside.contains(&k) || o.get(k) == n.get(k));
                }
                m
            };
            let unions = (&branch(o), &branch(n));
            self.keywords(&part(o), &part(n), unions, ptr, depth, out);
            return;
        }
        self.keywords(o, n, (o, n), ptr, depth, out);
    }

    /// Every keyword but the title, the description and nullability; `anyOf`/`oneOf` taken
    /// from `unions` (old, new).
    fn keywords(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        unions: (&Map<String, Value>, &Map<String, Value>),
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        self.types(o, n, ptr, out);
        self.values(o, n, ptr, out);
        self.bounds(o, n, ptr, out);
        self.object(o, n, ptr, depth, out);
        self.array(o, n, ptr, depth, out);
        self.any_of(unions.0, unions.1, ptr, depth, out);
        self.all_of(o, n, ptr, depth, out);
        self.assertions(o, n, ptr, depth, out);
        for key in union_keys(&Value::Object(o.clone()), &Value::Object(n.clone())) {
            if HANDLED.contains(&key.as_str()) {
                continue;
            }
            let (ov, nv) = (o.get(&key), n.get(&key));
            if ov != nv {
                let p = format!("{ptr}/{}", escape(&key));
                let cut = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), cut);
                self.push(
                    out,
                    &p,
                    ChangeKind::KeywordChanged,
                    Severity::Info,
                    format!("keyword {} {} → {}", quote(&key), cut(ov), cut(nv)),
                );
            }
        }
    }

    /// Nullability: a `"null"` type, a `{"type": "null"}` union branch, or OpenAPI's
    /// `nullable: true`.
    fn nullability(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        out: &mut Vec<Change>,
    ) {
        let (on, nn) = (nullable(o), nullable(n));
        if on != nn {
            let (kind, effect, msg) = if nn {
                (ChangeKind::NullableAdded, Effect::Widen, "became nullable")
            } else {
                (
                    ChangeKind::NullableRemoved,
                    Effect::Narrow,
                    "became non-nullable",
                )
            };
            self.effect(out, ptr, kind, effect, msg.into());
        }
    }

    /// `type` (the non-null types; `integer` is a `number`).
    fn types(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        out: &mut Vec<Change>,
    ) {
        let (ot, nt) = (types(o), types(n));
        if ot == nt {
            return;
        }
        let show_types = |t: &Option<BTreeSet<String>>| match t {
            None => "any".to_owned(),
            Some(set) => set.iter().cloned().collect::<Vec<_>>().join("|"),
        };
        let (kind, effect) = if covers(&ot, &nt) {
            (ChangeKind::TypeNarrowed, Effect::Narrow)
        } else if covers(&nt, &ot) {
            (ChangeKind::TypeWidened, Effect::Widen)
        } else {
            (ChangeKind::TypeChanged, Effect::Incompatible)
        };
        let word = match effect {
            Effect::Narrow => "narrowed",
            Effect::Widen => "widened",
            Effect::Incompatible => "changed",
        };
        let msg = format!("type {word}: {} → {}", show_types(&ot), show_types(&nt));
        self.effect(out, &format!("{ptr}/type"), kind, effect, msg);
    }

    /// `enum`, `const`, `pattern`, `format`.
    fn values(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        out: &mut Vec<Change>,
    ) {
        let p = format!("{ptr}/enum");
        match (
            o.get("enum").and_then(Value::as_array),
            n.get("enum").and_then(Value::as_array),
        ) {
            (Some(ov), Some(nv)) => {
                // Hashed membership: an enum of many values stays linear.
                let keys = |l: &[Value]| -> HashSet<String> { l.iter().map(value_key).collect() };
                let (ok, nk) = (keys(ov), keys(nv));
                for v in ov.iter().filter(|v| !nk.contains(&value_key(v))) {
                    let msg = format!("enum value {} removed", show(v));
                    self.effect(out, &p, ChangeKind::EnumValueRemoved, Effect::Narrow, msg);
                }
                // The generated output enum of strings keeps a string it does not list in its
                // `Unknown` variant; an enum of one value is a constant (a union's tag, read
                // as a constant), which it does not.
                let open = self.direction == Direction::Output
                    && ov.iter().filter(|v| v.is_string()).count() >= 2
                    && ov.iter().all(|v| v.is_string() || v.is_null());
                for v in nv.iter().filter(|v| !ok.contains(&value_key(v))) {
                    let msg = format!("enum value {} added", show(v));
                    if open && v.is_string() {
                        let msg = format!(
                            "{msg} (the generated output enum keeps values it does not list in \
                             its Unknown variant)"
                        );
                        self.push(out, &p, ChangeKind::EnumValueAdded, Severity::Warning, msg);
                    } else {
                        self.effect(out, &p, ChangeKind::EnumValueAdded, Effect::Widen, msg);
                    }
                }
            }
            (None, Some(nv)) => {
                let msg = format!("enum added: {}", Value::Array(nv.clone()));
                self.effect(out, &p, ChangeKind::EnumAdded, Effect::Narrow, msg);
            }
            (Some(ov), None) => {
                let msg = format!("enum removed (was {})", Value::Array(ov.clone()));
                self.effect(out, &p, ChangeKind::EnumRemoved, Effect::Widen, msg);
            }
            (None, None) => {}
        }
        for (key, changed, added, removed) in [
            (
                "const",
                ChangeKind::ConstChanged,
                ChangeKind::ConstAdded,
                ChangeKind::ConstRemoved,
            ),
            (
                "pattern",
                ChangeKind::PatternChanged,
                ChangeKind::PatternAdded,
                ChangeKind::PatternRemoved,
            ),
            (
                "format",
                ChangeKind::FormatChanged,
                ChangeKind::FormatChanged,
                ChangeKind::FormatChanged,
            ),
        ] {
            let p = format!("{ptr}/{key}");
            let (kind, effect, msg) = match (o.get(key), n.get(key)) {
                (Some(a), Some(b)) if a != b => (
                    changed,
                    Effect::Incompatible,
                    format!("{key} changed: {} → {}", show(a), show(b)),
                ),
                (None, Some(b)) => (added, Effect::Narrow, format!("{key} added: {}", show(b))),
                (Some(a), None) => (
                    removed,
                    Effect::Widen,
                    format!("{key} removed (was {})", show(a)),
                ),
                _ => continue,
            };
            self.effect(out, &p, kind, effect, msg);
        }
    }

    /// Numeric, length, item and property-count bounds, `multipleOf`, `uniqueItems`.
    fn bounds(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        out: &mut Vec<Change>,
    ) {
        for (keys, upper) in [(UPPER_BOUNDS, true), (LOWER_BOUNDS, false)] {
            for key in keys {
                let (a, b) = (o.get(key), n.get(key));
                if a == b {
                    continue;
                }
                // The value an absent bound stands for, when it is not "no bound".
                let implied = (key == "minContains").then_some(1.0);
                let num = |v: Option<&Value>| match v {
                    None => implied,
                    Some(v) => v.as_f64(),
                };
                let effect = match (num(a), num(b)) {
                    (Some(x), Some(y)) if x == y => {
                        let shown = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), show);
                        let msg = format!("{key} {} → {} (same meaning)", shown(a), shown(b));
                        let p = format!("{ptr}/{key}");
                        self.push(out, &p, ChangeKind::KeywordChanged, Severity::Info, msg);
                        continue;
                    }
                    (Some(x), Some(y)) if (y < x) == upper => Effect::Narrow,
                    (Some(_), Some(_)) => Effect::Widen,
                    (None, Some(_)) if a.is_none() => Effect::Narrow,
                    (Some(_), None) if b.is_none() => Effect::Widen,
                    _ => Effect::Incompatible, // draft-04 boolean exclusive bounds and the like
                };
                self.bound(out, ptr, key, a, b, effect);
            }
        }
        if o.get("multipleOf") != n.get("multipleOf") {
            let (a, b) = (o.get("multipleOf"), n.get("multipleOf"));
            let effect = match (a, b) {
                (None, Some(_)) => Effect::Narrow,
                (Some(_), None) => Effect::Widen,
                _ => Effect::Incompatible,
            };
            self.bound(out, ptr, "multipleOf", a, b, effect);
        }
        let unique = |m: &Map<String, Value>| {
            m.get("uniqueItems")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        if unique(o) != unique(n) {
            let effect = if unique(n) {
                Effect::Narrow
            } else {
                Effect::Widen
            };
            self.bound(
                out,
                ptr,
                "uniqueItems",
                o.get("uniqueItems"),
                n.get("uniqueItems"),
                effect,
            );
        }
    }

    fn bound(
        &self,
        out: &mut Vec<Change>,
        ptr: &str,
        key: &str,
        a: Option<&Value>,
        b: Option<&Value>,
        effect: Effect,
    ) {
        let shown = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), show);
        let (kind, word) = match effect {
            Effect::Widen => (ChangeKind::BoundRelaxed, "relaxed"),
            Effect::Narrow => (ChangeKind::BoundTightened, "tightened"),
            Effect::Incompatible => (ChangeKind::BoundTightened, "changed"),
        };
        let msg = format!("{key} {word}: {} → {}", shown(a), shown(b));
        self.effect(out, &format!("{ptr}/{key}"), kind, effect, msg);
    }

    /// `anyOf`/`oneOf` (a branch added widens; `oneOf` → `anyOf` widens, `anyOf` → `oneOf`
    /// narrows). Branches are paired by [`Ctx::match_branches`]; `{"type": "null"}` branches
    /// count as nullability instead ([`Ctx::nullability`]). A plain schema facing a union is
    /// one branch.
    fn any_of(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        let (uo, un) = (union_list(o), union_list(n));
        if uo.is_none() && un.is_none() {
            return;
        }
        if let (Some((ka, _)), Some((kb, _))) = (uo, un)
            && ka != kb
        {
            // A value valid against exactly one branch is valid against at least one, so
            // `anyOf` accepts everything `oneOf` does over the same branches (JSON Schema
            // 2020-12 §10.2.1.2, §10.2.1.3): oneOf → anyOf widens, anyOf → oneOf narrows.
            let effect = if kb == "anyOf" {
                Effect::Widen
            } else {
                Effect::Narrow
            };
            let word = match effect {
                Effect::Widen => "widened",
                _ => "narrowed",
            };
            let msg = format!("{ka} became {kb} ({word})");
            self.effect(
                out,
                &format!("{ptr}/{kb}"),
                ChangeKind::KeywordChanged,
                effect,
                msg,
            );
        }
        let key = un.or(uo).map_or("anyOf", |(k, _)| k);
        let ob = uo.map_or_else(|| vec![(None, bare(o))], |(_, l)| branches(l));
        let nb = un.map_or_else(|| vec![(None, bare(n))], |(_, l)| branches(l));
        self.match_branches(
            &ob,
            &nb,
            ptr,
            key,
            (Effect::Widen, Effect::Narrow),
            depth,
            out,
        );
    }

    /// `allOf` (a branch added narrows), paired as [`Ctx::any_of`] pairs branches.
    fn all_of(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        let all = |m: &Map<String, Value>| {
            m.get("allOf")
                .and_then(Value::as_array)
                .map(|l| branches(l))
        };
        let (a, b) = (all(o), all(n));
        if a.is_some() || b.is_some() {
            let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
            self.match_branches(
                &a,
                &b,
                ptr,
                "allOf",
                (Effect::Narrow, Effect::Widen),
                depth,
                out,
            );
        }
    }

    /// Pairs the branches of two unions (or `allOf` lists) and compares each pair; `effects`
    /// is (added, removed). Four passes, each over the branches the passes before left
    /// unpaired, each pairing a new branch with the first unpaired old branch of the same key
    /// (hashed, so many branches stay linear): equal branches ([`value_key`]); equal apart from
    /// annotations ([`shape::stripped_key`]: `description`, `title`, `default`, `examples`,
    /// `$comment`, at every schema position); the same type or shape ([`shape::kind_key`]);
    /// then the rest by position. Pairs are compared in the order of the new branches, at the
    /// new branch's pointer; old branches left over are removed, new ones added.
    #[allow(clippy::too_many_arguments)]
    fn match_branches(
        &mut self,
        ob: &[(Option<usize>, Value)],
        nb: &[(Option<usize>, Value)],
        ptr: &str,
        key: &str,
        effects: (Effect, Effect),
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        let at =
            |i: Option<usize>| i.map_or_else(|| ptr.to_owned(), |i| format!("{ptr}/{key}/{i}"));
        // `old_of[j]`: the old branch paired with new branch `j`; `paired[i]`: old `i` is taken.
        let mut old_of: Vec<Option<usize>> = vec![None; nb.len()];
        let mut paired = vec![false; ob.len()];
        let mut exact = vec![false; nb.len()];
        let passes: [fn(&Value) -> String; 3] = [value_key, shape::stripped_key, shape::kind_key];
        for (pass, key_of) in passes.into_iter().enumerate() {
            let mut by_key: HashMap<String, VecDeque<usize>> = HashMap::new();
            for (i, a) in ob.iter().enumerate().filter(|(i, _)| !paired[*i]) {
                by_key.entry(key_of(&a.1)).or_default().push_back(i);
            }
            for (j, b) in nb.iter().enumerate() {
                if old_of[j].is_some() {
                    continue;
                }
                if let Some(i) = by_key.get_mut(&key_of(&b.1)).and_then(VecDeque::pop_front) {
                    old_of[j] = Some(i);
                    paired[i] = true;
                    exact[j] = pass == 0;
                }
            }
        }
        let rest_old: Vec<usize> = (0..ob.len()).filter(|i| !paired[*i]).collect();
        let rest_new = old_of.iter_mut().filter(|s| s.is_none());
        for (slot, i) in rest_new.zip(rest_old) {
            *slot = Some(i);
            paired[i] = true;
        }
        for (j, b) in nb.iter().enumerate() {
            let Some(i) = old_of[j] else { continue };
            // Equal text is not an equal schema when it holds a `$ref` and the `$defs`
            // differ: compare what the references point at.
            if !exact[j] || (!self.defs_equal && contains_ref(&b.1)) {
                self.walk(&ob[i].1, &b.1, &at(b.0.or(ob[i].0)), depth + 1, out);
            }
        }
        let cut = |v: &Value| crate::quote::excerpt(v);
        for (a, _) in ob.iter().zip(&paired).filter(|(_, p)| !**p) {
            let msg = format!("{key} branch removed: {}", cut(&a.1));
            self.effect(out, &at(a.0), ChangeKind::BranchRemoved, effects.1, msg);
        }
        for (b, _) in nb.iter().zip(&old_of).filter(|(_, o)| o.is_none()) {
            let msg = format!("{key} branch added: {}", cut(&b.1));
            self.effect(out, &at(b.0), ChangeKind::BranchAdded, effects.0, msg);
        }
    }
}
