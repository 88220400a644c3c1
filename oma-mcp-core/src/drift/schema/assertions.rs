//! The keywords that constrain values without their own rule elsewhere: subschemas applied to
//! each name or unevaluated element ([`EACH`]), maps of subschemas ([`SCHEMA_MAPS`]), and
//! assertions compared as whole values ([`OPAQUE`], `if`/`then`/`else`).

use serde_json::{Map, Value};

use super::super::message::quote;
use super::{Ctx, EACH, Effect, OPAQUE, SCHEMA_MAPS, cut, escape};
use crate::drift::{Change, ChangeKind, Severity};

/// A keyword's value for a message: compact JSON, or `absent`.
fn shown(v: Option<&Value>) -> String {
    v.map_or_else(|| "absent".to_owned(), cut)
}

/// Whether a subschema accepts everything (`true`, `{}` or absent).
fn open(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(_) => false,
    }
}

impl Ctx<'_> {
    /// [`EACH`], [`SCHEMA_MAPS`], [`OPAQUE`] and `if`/`then`/`else`.
    pub(super) fn assertions(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        for key in EACH {
            self.each(key, o.get(key), n.get(key), ptr, depth, out);
        }
        for key in SCHEMA_MAPS {
            self.schema_map(key, o, n, ptr, depth, out);
        }
        for key in OPAQUE {
            self.opaque(
                key,
                o.get(key),
                n.get(key),
                &format!("{ptr}/{}", escape(key)),
                out,
            );
        }
        self.conditional(o, n, ptr, out);
    }

    /// A subschema every name or element it applies to must match: `false` added narrows, a
    /// `false` removed widens, anything else is walked (absent is `{}`).
    fn each(
        &mut self,
        key: &str,
        a: Option<&Value>,
        b: Option<&Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        if a == b {
            return;
        }
        let p = format!("{ptr}/{key}");
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        match (closed(a), closed(b)) {
            (false, true) => {
                let msg = format!("{} became false (was {})", quote(key), shown(a));
                self.effect(out, &p, ChangeKind::ConstraintAdded, Effect::Narrow, msg);
            }
            (true, false) => {
                let msg = format!("{} is no longer false (now {})", quote(key), shown(b));
                self.effect(out, &p, ChangeKind::ConstraintRemoved, Effect::Widen, msg);
            }
            _ => {
                let any = Value::Object(Map::new());
                self.walk(a.unwrap_or(&any), b.unwrap_or(&any), &p, depth + 1, out);
            }
        }
    }

    /// `patternProperties` or `dependentSchemas`, entry by entry. A pattern added or removed
    /// beside a constraining `additionalProperties`/`unevaluatedProperties` also moves names
    /// out of (or into) that keyword's reach: incompatible.
    fn schema_map(
        &mut self,
        key: &str,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        let (a, b) = (o.get(key), n.get(key));
        if a == b {
            return;
        }
        let p = format!("{ptr}/{}", escape(key));
        let (Some(am), Some(bm)) = (
            a.map_or(Some(&Map::new()), Value::as_object).cloned(),
            b.map_or(Some(&Map::new()), Value::as_object).cloned(),
        ) else {
            return self.opaque(key, a, b, &p, out);
        };
        let leftover = key == "patternProperties"
            && ["additionalProperties", "unevaluatedProperties"]
                .iter()
                .any(|k| !open(o.get(*k)) || !open(n.get(*k)));
        let (added, removed) = if leftover {
            (Effect::Incompatible, Effect::Incompatible)
        } else {
            (Effect::Narrow, Effect::Widen)
        };
        for name in super::union_keys(&Value::Object(am.clone()), &Value::Object(bm.clone())) {
            let q = format!("{p}/{}", escape(&name));
            match (am.get(&name), bm.get(&name)) {
                (Some(x), Some(y)) => self.walk(x, y, &q, depth + 1, out),
                (None, Some(y)) => {
                    let msg = format!("{key} entry {} added: {}", quote(&name), cut(y));
                    self.effect(out, &q, ChangeKind::ConstraintAdded, added, msg);
                }
                (Some(x), None) => {
                    let msg = format!("{key} entry {} removed (was {})", quote(&name), cut(x));
                    self.effect(out, &q, ChangeKind::ConstraintRemoved, removed, msg);
                }
                (None, None) => {}
            }
        }
    }

    /// An assertion compared as a whole value: added narrows, removed widens, changed is
    /// incompatible.
    fn opaque(
        &mut self,
        key: &str,
        a: Option<&Value>,
        b: Option<&Value>,
        p: &str,
        out: &mut Vec<Change>,
    ) {
        let (kind, effect, msg) = match (a, b) {
            (Some(x), Some(y)) if x != y => (
                ChangeKind::ConstraintChanged,
                Effect::Incompatible,
                format!("constraint {} changed: {} → {}", quote(key), cut(x), cut(y)),
            ),
            (None, Some(y)) => (
                ChangeKind::ConstraintAdded,
                Effect::Narrow,
                format!("constraint {} added: {}", quote(key), cut(y)),
            ),
            (Some(x), None) => (
                ChangeKind::ConstraintRemoved,
                Effect::Widen,
                format!("constraint {} removed (was {})", quote(key), cut(x)),
            ),
            _ => return,
        };
        self.effect(out, p, kind, effect, msg);
    }

    /// `if`/`then`/`else` as one assertion at `…/if`; without `if`, or with neither `then` nor
    /// `else`, it asserts nothing (JSON Schema 2020-12 §10.2.2).
    fn conditional(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        out: &mut Vec<Change>,
    ) {
        let keys = ["if", "then", "else"];
        let part = |m: &Map<String, Value>| -> Map<String, Value> {
            keys.iter()
                .filter_map(|k| m.get(*k).map(|v| ((*k).to_owned(), v.clone())))
                .collect()
        };
        let (a, b) = (part(o), part(n));
        if a == b {
            return;
        }
        let asserts = |m: &Map<String, Value>| {
            m.contains_key("if") && (m.contains_key("then") || m.contains_key("else"))
        };
        let (x, y) = (Value::Object(a.clone()), Value::Object(b.clone()));
        let p = format!("{ptr}/if");
        match (asserts(&a), asserts(&b)) {
            (false, false) => {
                let msg = format!(
                    "if/then/else changed without asserting anything: {} → {}",
                    cut(&x),
                    cut(&y)
                );
                self.push(out, &p, ChangeKind::KeywordChanged, Severity::Info, msg);
            }
            (false, true) => self.opaque("if/then/else", None, Some(&y), &p, out),
            (true, false) => self.opaque("if/then/else", Some(&x), None, &p, out),
            (true, true) => self.opaque("if/then/else", Some(&x), Some(&y), &p, out),
        }
    }
}
