//! `$ref` resolution: local references (`#`, `#/$defs/X`, `#/definitions/X`, any JSON
//! pointer into the input or output schema, percent-decoded: `#/$defs/My%20Model`) map to the target's type, mapped once per tool and named
//! `<Tool>Args<X>`; a reference back to a type still being defined is `Box`ed. External and
//! unresolvable references become `serde_json::Value` with a warning; nothing is fetched.
//!
//! The once-per-target rule is [`Converter::map`]'s: it remembers the type of every `$ref`
//! target and of every schema given a named type, by JSON pointer ([`PointerState`]), so a
//! union or `allOf` branch that follows a `$ref` itself reaches the same type, and recursion
//! through it ends in a `Box` instead of being unrolled.

use serde_json::Value;

use super::{Converter, Mapped, RustType, names};

/// What is known about the schema at a JSON pointer: a `$ref` target, or a schema mapped to
/// a named type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PointerState {
    /// Being mapped; the type's name once it has one (a reference back to it is `Box`ed).
    InProgress(Option<String>),
    /// Mapped: its type and doc notes.
    Done(RustType, Vec<String>),
}

/// Decodes one RFC 6901 reference token.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

impl<'a> Converter<'a> {
    /// The target of a local reference: its JSON pointer in the tool descriptor and its
    /// schema, or why it cannot be resolved.
    pub(super) fn resolve(&self, reference: &str) -> Result<(String, &'a Value), String> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(format!(
                "`$ref` \"{reference}\" is not a local reference (only `#…` references are resolved; nothing is fetched)"
            ));
        };
        // A URI fragment: percent-decoded before it is read as a JSON pointer.
        let Some(fragment) = oma_mcp_runtime::pointer::decode_fragment(fragment) else {
            return Err(format!(
                "`$ref` \"{reference}\" is not UTF-8 once percent-decoded"
            ));
        };
        if !(fragment.is_empty() || fragment.starts_with('/')) {
            return Err(format!(
                "`$ref` \"{reference}\" names an anchor, not a JSON pointer; anchors are not resolved"
            ));
        }
        let root = self
            .root
            .ok_or_else(|| format!("`$ref` \"{reference}\" has no schema to point into"))?;
        let mut target = root;
        for token in fragment.split('/').skip(1) {
            let token = unescape(token);
            let next = match target {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            target = next.ok_or_else(|| {
                let which = if self.root_pointer == "/outputSchema" {
                    "output"
                } else {
                    "input"
                };
                format!("`$ref` \"{reference}\" points to nothing in the {which} schema")
            })?;
        }
        Ok((format!("{}{fragment}", self.root_pointer), target))
    }

    /// Maps a `{"$ref": ..}` schema at `pointer`.
    pub(super) fn map_ref(&mut self, reference: &Value, pointer: &str, depth: usize) -> Mapped {
        let ref_pointer = super::pointer_push(pointer, "$ref");
        let Some(reference) = reference.as_str() else {
            let message = format!("`$ref` is {}, not a string", super::kind(reference));
            return self.invalid(&ref_pointer, message);
        };
        let (target_pointer, target) = match self.resolve(reference) {
            Ok(found) => found,
            Err(message) => return self.invalid(&ref_pointer, message),
        };
        // `map` answers from what it knows about the target; only a reference back to a
        // target that has no name yet (an array of itself) cannot be expressed.
        match self.by_pointer.get(&target_pointer) {
            Some(PointerState::InProgress(None)) => {
                let message = format!(
                    "`$ref` \"{reference}\" is recursive through a schema that is not an object or enum"
                );
                return self.invalid(&ref_pointer, message);
            }
            Some(_) => {}
            None => {
                self.by_pointer
                    .insert(target_pointer.clone(), PointerState::InProgress(None));
            }
        }
        let last = target_pointer.rsplit('/').next().unwrap_or_default();
        let hint = names::nested_type_name(self.args_name, &unescape(last));
        self.map(target, &hint, &target_pointer, depth + 1)
    }
}
