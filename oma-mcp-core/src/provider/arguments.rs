//! [`Arguments`]: what the model sends for a tool in a provider's form, turned back into what
//! the MCP server's `inputSchema` expects (and the other way, for fakes and tests).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::pointer::push;

/// The converter of one [`ProviderTool`](super::ProviderTool)'s arguments, built with its
/// parameters schema: it undoes each rewrite the provider's subset needed.
///
/// - a property the server has optional, which OpenAI's strict mode made required and
///   nullable: `null` becomes an absent property (also where the server's schema admits
///   `null` itself: strict mode cannot tell "absent" from `null`, and leaving the property
///   out is the cautious reading);
/// - a property renamed for the provider: the server's name again;
/// - a value sent as a string of JSON text (a value of any shape, an object with free-form
///   properties): the parsed value;
/// - Gemini: a number or boolean enum value sent as a string, and an integer sent as `3.0`:
///   the original value.
///
/// Everything else passes through unchanged; a `$ref` that had to be inlined maps back
/// unchanged.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Arguments {
    pub(super) root: Back,
    /// The converters of `$defs` entries, by the original `$ref` pointer.
    pub(super) defs: BTreeMap<String, Back>,
}

/// What the model sent cannot be turned into the server's arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the argument at {} {why}", if pointer.is_empty() { "the root" } else { pointer })]
#[non_exhaustive]
pub struct ArgumentError {
    /// Where in the arguments (a JSON pointer; empty for the root).
    pub pointer: String,
    /// What is wrong.
    pub why: String,
}

/// The converter of one schema position.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) enum Back {
    /// Unchanged.
    #[default]
    Keep,
    /// The provider's value is a string of JSON text; the server's is the parsed value.
    JsonText,
    /// An integer the provider may send as a float with no fraction (`3.0`).
    Integer,
    /// Enum values the provider sends as strings: `(provider value, server value)`.
    Enum(Vec<(Value, Value)>),
    /// An object's properties, and the converter of properties not listed.
    Object {
        fields: Vec<Field>,
        extra: Box<Back>,
    },
    /// An array's items.
    Array(Box<Back>),
    /// A tuple's items, by position (the rest unchanged).
    Tuple(Vec<Back>),
    /// `anyOf`: toward the model, an enum branch that lists the value, else (and toward the
    /// server always) the first branch whose kinds admit the value.
    Union(Vec<Branch>),
    /// A `$defs` entry, by its original `$ref` pointer.
    Ref(String),
}

/// One property of an object.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Field {
    /// The name the provider sees.
    pub(super) provider: String,
    /// The server's name.
    pub(super) server: String,
    /// `null` from the model means "absent" (OpenAI strict: optional made required).
    pub(super) null_is_absent: bool,
    pub(super) back: Back,
}

/// One `anyOf` branch: the JSON kinds it admits on each side, and its converter.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Branch {
    pub(super) provider_kinds: Kinds,
    pub(super) server_kinds: Kinds,
    pub(super) back: Back,
}

/// A set of JSON kinds (`null`, boolean, number, string, array, object) as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Kinds(pub(super) u8);

impl Kinds {
    pub(super) const ALL: Self = Self(0b11_1111);

    /// The kinds of JSON Schema `type` names (`integer` is a number).
    pub(super) fn of_types<'a>(types: impl IntoIterator<Item = &'a str>) -> Self {
        let mut bits = 0;
        for t in types {
            bits |= match t.to_ascii_lowercase().as_str() {
                "null" => 1,
                "boolean" => 2,
                "number" | "integer" => 4,
                "string" => 8,
                "array" => 16,
                "object" => 32,
                _ => 0,
            };
        }
        Self(bits)
    }

    fn admits(self, value: &Value) -> bool {
        let bit = match value {
            Value::Null => 1,
            Value::Bool(_) => 2,
            Value::Number(_) => 4,
            Value::String(_) => 8,
            Value::Array(_) => 16,
            Value::Object(_) => 32,
        };
        self.0 & bit != 0
    }
}

/// Which way a value is converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// The model's arguments → the server's.
    ToServer,
    /// The server's arguments → what the model would send.
    ToModel,
}

impl Arguments {
    /// The server's arguments for what the model sent (`model`, already parsed from JSON).
    ///
    /// # Errors
    /// [`ArgumentError`] when a value that must be JSON text is a string that does not parse.
    pub fn to_server(&self, model: &Value) -> Result<Value, ArgumentError> {
        self.convert(Direction::ToServer, &self.root, model, "", 0)
    }

    /// What the model would send for the server's arguments `server`: the inverse of
    /// [`to_server`](Self::to_server), used by fakes and round-trip tests.
    ///
    /// # Errors
    /// [`ArgumentError`] when a value cannot be written as JSON text (never for parsed JSON).
    pub fn to_model(&self, server: &Value) -> Result<Value, ArgumentError> {
        self.convert(Direction::ToModel, &self.root, server, "", 0)
    }

    /// The converter of a `$ref`, or `Keep` past a depth no real argument reaches (a
    /// recursive schema is followed only as deep as the value is).
    fn def(&self, pointer: &str, depth: usize) -> &Back {
        if depth > 256 {
            return &Back::Keep;
        }
        self.defs.get(pointer).unwrap_or(&Back::Keep)
    }

    /// `value` converted by `back` in `direction`; `at` is its JSON pointer.
    fn convert(
        &self,
        direction: Direction,
        back: &Back,
        value: &Value,
        at: &str,
        depth: usize,
    ) -> Result<Value, ArgumentError> {
        let to_server = direction == Direction::ToServer;
        Ok(match (back, value) {
            (Back::JsonText, _) if !to_server => {
                Value::String(serde_json::to_string(value).map_err(|e| ArgumentError {
                    pointer: at.to_owned(),
                    why: format!("cannot be written as JSON text: {e}"),
                })?)
            }
            (Back::Keep, _) | (_, Value::Null) => value.clone(),
            (Back::JsonText, Value::String(text)) => {
                serde_json::from_str(text).map_err(|e| ArgumentError {
                    pointer: at.to_owned(),
                    why: format!("is not JSON text, as its schema asks: {e}"),
                })?
            }
            (Back::Integer, Value::Number(n)) if to_server => match n.as_f64() {
                Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                    // Exact: |f| < 2^53, so the cast keeps every digit.
                    #[allow(clippy::cast_possible_truncation)]
                    Value::from(f as i64)
                }
                _ => value.clone(),
            },
            (Back::Enum(pairs), _) => pairs
                .iter()
                .map(|(provider, server)| {
                    if to_server {
                        (provider, server)
                    } else {
                        (server, provider)
                    }
                })
                .find(|(from, _)| *from == value)
                .map_or_else(|| value.clone(), |(_, to)| to.clone()),
            (Back::Object { fields, extra }, Value::Object(map)) if to_server => {
                let mut out = Map::new();
                for (key, v) in map {
                    let at = push(at, key);
                    match fields.iter().find(|f| &f.provider == key) {
                        Some(field) if field.null_is_absent && v.is_null() => {}
                        Some(field) => {
                            let converted =
                                self.convert(direction, &field.back, v, &at, depth + 1)?;
                            out.insert(field.server.clone(), converted);
                        }
                        None => {
                            out.insert(
                                key.clone(),
                                self.convert(direction, extra, v, &at, depth + 1)?,
                            );
                        }
                    }
                }
                Value::Object(out)
            }
            (Back::Object { fields, extra }, Value::Object(map)) => {
                let mut out = Map::new();
                for field in fields {
                    match map.get(&field.server) {
                        Some(v) => {
                            let at = push(at, &field.server);
                            let converted =
                                self.convert(direction, &field.back, v, &at, depth + 1)?;
                            out.insert(field.provider.clone(), converted);
                        }
                        None if field.null_is_absent => {
                            out.insert(field.provider.clone(), Value::Null);
                        }
                        None => {}
                    }
                }
                for (key, v) in map {
                    if fields.iter().all(|f| &f.server != key) {
                        let at = push(at, key);
                        out.insert(
                            key.clone(),
                            self.convert(direction, extra, v, &at, depth + 1)?,
                        );
                    }
                }
                Value::Object(out)
            }
            (Back::Array(_) | Back::Tuple(_), Value::Array(values)) => Value::Array(
                values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let item = match back {
                            Back::Tuple(positions) => positions.get(i).unwrap_or(&Back::Keep),
                            Back::Array(items) => items,
                            _ => &Back::Keep,
                        };
                        self.convert(direction, item, v, &push(at, &i.to_string()), depth + 1)
                    })
                    .collect::<Result<_, _>>()?,
            ),
            (Back::Union(branches), _) => {
                // A server value that an enum branch lists is that branch's, whatever other
                // branch its kind fits too (without a validator the core cannot tell whether
                // the value fits that other branch's constraints); else the first branch whose
                // kinds admit the value.
                let listed = branches.iter().find(|b| {
                    !to_server
                        && matches!(&b.back, Back::Enum(pairs)
                            if pairs.iter().any(|(_, server)| server == value))
                });
                let branch = listed.or_else(|| {
                    branches.iter().find(|b| {
                        if to_server {
                            b.provider_kinds
                        } else {
                            b.server_kinds
                        }
                        .admits(value)
                    })
                });
                match branch {
                    Some(branch) => self.convert(direction, &branch.back, value, at, depth)?,
                    None => value.clone(),
                }
            }
            (Back::Ref(pointer), _) => {
                self.convert(direction, self.def(pointer, depth), value, at, depth + 1)?
            }
            _ => value.clone(),
        })
    }
}
