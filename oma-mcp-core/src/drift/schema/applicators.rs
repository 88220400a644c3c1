//! Object and array applicators of the schema walk: `properties`, `required`,
//! `additionalProperties` (JSON Schema 2020-12 §10.3.2), `items`, `prefixItems` (§10.3.1) and
//! draft-07 array-form `items`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::super::message::quote;
use super::shape::{rename_of, required};
use super::{Ctx, Effect, escape};
use crate::drift::{Change, ChangeKind, Direction, Severity};

/// The names of a schema's `required` list in order, each once.
fn required_list(m: &Map<String, Value>) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for name in m
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Whether the property schema `schema` (if declared) becomes a field of the generated
/// struct: declared, and not a `const` (the struct sends a `const` by itself).
fn is_field(schema: &Value) -> bool {
    schema.get("const").is_none()
}

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
                        let message = format!("property {} {word}", quote(name));
                        if !is_req
                            && self.direction == Direction::Input
                            && old.is_some_and(is_field)
                            && new.is_some_and(is_field)
                        {
                            // Wider, so no argument breaks; but the generated constructor
                            // `new` takes the required properties and no longer takes it.
                            let message = format!(
                                "{message} (the generated constructor no longer takes it: set \
                                 it with its `with_*` setter)"
                            );
                            self.push(out, &p, kind, Severity::Warning, message);
                        } else {
                            self.effect(out, &p, kind, effect, message);
                        }
                    }
                    if let (Some(old), Some(new)) = (old, new) {
                        self.walk(old, new, &p, depth + 1, out);
                    }
                }
            }
        }
        self.required_order(o, n, &op, &np, ptr, out);
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
            (true, false) if self.direction == Direction::Output => self.push(
                out,
                &p,
                ChangeKind::AdditionalPropertiesWidened,
                Severity::Warning,
                "additionalProperties is no longer false (other properties are now allowed; the \
                 generated output struct keeps them in its additional_properties map)"
                    .into(),
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

    /// The order of `required` among the properties required on both sides: the generated
    /// constructor `new` takes the required properties in this order, so a new order passes
    /// the arguments of existing call sites to other properties when their types agree
    /// (breaking for the input; a warning for the output, whose constructor only code that
    /// builds outputs itself calls).
    fn required_order(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        op: &Map<String, Value>,
        np: &Map<String, Value>,
        ptr: &str,
        out: &mut Vec<Change>,
    ) {
        let (or, nr) = (required_list(o), required_list(n));
        let both = |name: &&str| {
            or.contains(name)
                && nr.contains(name)
                && op.get(*name).is_some_and(is_field)
                && np.get(*name).is_some_and(is_field)
        };
        let old: Vec<&str> = or.iter().copied().filter(both).collect();
        let new: Vec<&str> = nr.iter().copied().filter(both).collect();
        if old == new {
            return;
        }
        let show = |names: &[&str]| {
            names
                .iter()
                .map(|n| quote(n))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let severity = if self.direction == Direction::Input {
            Severity::Breaking
        } else {
            Severity::Warning
        };
        let message = format!(
            "order of required properties changed: {} → {} (the generated constructor takes \
             them in this order)",
            show(&old),
            show(&new)
        );
        self.push(
            out,
            &format!("{ptr}/required"),
            ChangeKind::RequiredOrderChanged,
            severity,
            message,
        );
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
                    a.map_or_else(|| "absent".to_owned(), crate::quote::excerpt),
                    b.map_or_else(|| "absent".to_owned(), crate::quote::excerpt)
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
