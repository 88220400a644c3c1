//! Object and array applicators of the schema walk: `properties`, `required`,
//! `additionalProperties` (JSON Schema 2020-12 §10.3.2), `items`, `prefixItems` (§10.3.1) and
//! draft-07 array-form `items`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::super::rules::quote;
use super::shape::{rename_of, required};
use super::{Ctx, Effect, escape};
use crate::drift::{Change, ChangeKind, Severity};

impl Ctx<'_> {
    /// `properties`, `required`, `additionalProperties`.
    pub(super) fn object(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        let empty = Map::new();
        let props = |m: &'_ Map<String, Value>| -> Map<String, Value> {
            m.get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty)
                .clone()
        };
        let (op, np) = (props(o), props(n));
        let (or, nr) = (required(o), required(n));
        let mut names: BTreeSet<&String> = op.keys().chain(np.keys()).collect();
        names.extend(or.iter().chain(nr.iter()));
        let removed: Vec<&String> = op.keys().filter(|k| !np.contains_key(*k)).collect();
        let added: Vec<&String> = np.keys().filter(|k| !op.contains_key(*k)).collect();
        for name in names {
            let p = format!("{ptr}/properties/{}", escape(name));
            let (was_req, is_req) = (or.contains(name), nr.contains(name));
            match (op.get(name), np.get(name)) {
                (Some(old), None) => {
                    let rename = rename_of(old, added.iter().map(|a| (*a, &np[a.as_str()])))
                        .filter(|a| {
                            rename_of(
                                &np[a.as_str()],
                                removed.iter().map(|r| (*r, &op[r.as_str()])),
                            ) == Some(name)
                        })
                        .map(|a| format!("; renamed to {}?", quote(a)))
                        .unwrap_or_default();
                    let req = if was_req { " (was required)" } else { "" };
                    let msg = format!("property {} removed{req}{rename}", quote(name));
                    self.push(
                        out,
                        &p,
                        ChangeKind::PropertyRemoved,
                        Severity::Breaking,
                        msg,
                    );
                }
                (None, Some(new)) => {
                    let rename = rename_of(new, removed.iter().map(|r| (*r, &op[r.as_str()])))
                        .filter(|r| {
                            rename_of(&op[r.as_str()], added.iter().map(|a| (*a, &np[a.as_str()])))
                                == Some(name)
                        })
                        .map(|r| format!("; renamed from {}?", quote(r)))
                        .unwrap_or_default();
                    if is_req {
                        let msg = format!("required property {} added{rename}", quote(name));
                        self.effect(
                            out,
                            &p,
                            ChangeKind::RequiredPropertyAdded,
                            Effect::Narrow,
                            msg,
                        );
                    } else {
                        let msg = format!("optional property {} added{rename}", quote(name));
                        self.push(out, &p, ChangeKind::PropertyAdded, Severity::Info, msg);
                    }
                }
                (old, new) => {
                    if was_req != is_req {
                        let (kind, effect, word) = if is_req {
                            (
                                ChangeKind::PropertyNowRequired,
                                Effect::Narrow,
                                "is now required",
                            )
                        } else {
                            (
                                ChangeKind::PropertyNoLongerRequired,
                                Effect::Widen,
                                "is no longer required",
                            )
                        };
                        self.effect(
                            out,
                            &p,
                            kind,
                            effect,
                            format!("property {} {word}", quote(name)),
                        );
                    }
                    if let (Some(old), Some(new)) = (old, new) {
                        self.walk(old, new, &p, depth + 1, out);
                    }
                }
            }
        }
        let p = format!("{ptr}/additionalProperties");
        let (oa, na) = (o.get("additionalProperties"), n.get("additionalProperties"));
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        match (closed(oa), closed(na)) {
            (false, true) => self.effect(
                out,
                &p,
                ChangeKind::AdditionalPropertiesNarrowed,
                Effect::Narrow,
                "additionalProperties became false (unknown properties are now rejected)".into(),
            ),
            (true, false) => self.effect(
                out,
                &p,
                ChangeKind::AdditionalPropertiesWidened,
                Effect::Widen,
                "additionalProperties is no longer false (other properties are now allowed)".into(),
            ),
            (true, true) => {}
            (false, false) => {
                let open = Value::Object(Map::new());
                let (a, b) = (oa.unwrap_or(&open), na.unwrap_or(&open));
                self.walk(a, b, &p, depth + 1, out);
            }
        }
    }

    /// `items` (a schema, or a draft-07 tuple array) and `prefixItems`.
    pub(super) fn array(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        let open = Value::Object(Map::new());
        match (o.get("items"), n.get("items")) {
            (Some(Value::Array(a)), Some(Value::Array(b))) => {
                self.tuple(a, b, &format!("{ptr}/items"), depth, out);
            }
            (
                a @ (None | Some(Value::Object(_) | Value::Bool(_))),
                b @ (None | Some(Value::Object(_) | Value::Bool(_))),
            ) => {
                self.walk(
                    a.unwrap_or(&open),
                    b.unwrap_or(&open),
                    &format!("{ptr}/items"),
                    depth + 1,
                    out,
                );
            }
            (a, b) => self.push(
                out,
                &format!("{ptr}/items"),
                ChangeKind::KeywordChanged,
                Severity::Breaking,
                format!(
                    "items changed between a tuple and a list schema: {} → {}",
                    a.map_or_else(|| "absent".to_owned(), crate::text::excerpt),
                    b.map_or_else(|| "absent".to_owned(), crate::text::excerpt)
                ),
            ),
        }
        let none = Vec::new();
        let tuple =
            |m: &'_ Map<String, Value>| m.get("prefixItems").and_then(Value::as_array).cloned();
        let (a, b) = (tuple(o), tuple(n));
        if a.is_some() || b.is_some() {
            self.tuple(
                a.as_ref().unwrap_or(&none),
                b.as_ref().unwrap_or(&none),
                &format!("{ptr}/prefixItems"),
                depth,
                out,
            );
        }
    }

    pub(super) fn tuple(
        &mut self,
        a: &[Value],
        b: &[Value],
        ptr: &str,
        depth: usize,
        out: &mut Vec<Change>,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            self.walk(x, y, &format!("{ptr}/{i}"), depth + 1, out);
        }
        for i in b.len()..a.len() {
            let msg = format!("tuple item {i} removed");
            self.effect(
                out,
                &format!("{ptr}/{i}"),
                ChangeKind::TupleItemRemoved,
                Effect::Widen,
                msg,
            );
        }
        for i in a.len()..b.len() {
            let msg = format!("tuple item {i} added");
            self.effect(
                out,
                &format!("{ptr}/{i}"),
                ChangeKind::TupleItemAdded,
                Effect::Narrow,
                msg,
            );
        }
    }
}
