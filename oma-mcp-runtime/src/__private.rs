//! Re-exports that generated code refers to as `::oma_mcp_runtime::__private::…`, so a crate
//! that includes generated code needs no dependency other than `oma-mcp-runtime`. Not part of
//! the public API: generated code of this version is its only user.

#[cfg(feature = "schemars")]
pub use schemars;
pub use serde;
pub use serde_json;

use serde_json::Value;

/// Deserializes a required, nullable field of a generated struct: `null` is `None`, and
/// (unlike a plain `Option` field) a missing field is an error, as the schema says.
///
/// # Errors
/// When the value is neither `null` nor a `T`.
pub fn required_nullable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(deserializer)
}

/// JSON Schema equality (`enum`, `const`): numbers by mathematical value (`1` equals
/// `1.0`), arrays item by item, objects member by member. Generated exact-value enums
/// match with it, so a value the schema validator accepted also deserializes.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else {
                matches!((x.as_f64(), y.as_f64()), (Some(x), Some(y)) if x == y)
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// The value of a `const` property, from its JSON text, for a generated struct's
/// `Serialize` (the struct has no field for it and always writes it).
///
/// # Errors
/// When `json` is not JSON text, which generated code never passes.
pub fn const_value<E: serde::ser::Error>(json: &str) -> Result<Value, E> {
    serde_json::from_str(json).map_err(E::custom)
}

/// Checks a `const` property read by a generated struct's `Deserialize`: `found` (`None`
/// when an optional one is absent) must equal the JSON text `json` ([`json_equal`]).
///
/// # Errors
/// `property "<name>" must be <json>, found <value>` for any other value.
pub fn check_const<E: serde::de::Error>(
    property: &str,
    json: &str,
    found: Option<&Value>,
) -> Result<(), E> {
    let Some(found) = found else {
        return Ok(());
    };
    let expected: Value = serde_json::from_str(json).map_err(E::custom)?;
    if json_equal(&expected, found) {
        Ok(())
    } else {
        Err(E::custom(format!(
            "property \"{property}\" must be {json}, found {found}"
        )))
    }
}

/// The `const` properties of a generated struct that derives `JsonSchema` (it has no fields
/// for them), which its `#[schemars(transform = schema_consts_of::<Self>)]` adds to the
/// derived schema.
#[cfg(feature = "schemars")]
pub trait SchemaConsts {
    /// `(name, JSON text of the value, required)` of each `const` property.
    const CONSTS: &'static [(&'static str, &'static str, bool)];
}

/// [`schema_consts`] with `T`'s constants ([`SchemaConsts`]).
#[cfg(feature = "schemars")]
pub fn schema_consts_of<T: SchemaConsts>(schema: &mut schemars::Schema) {
    schema_consts(schema, T::CONSTS);
}

/// Adds the `const` properties of a generated struct to the schema `schemars` derived
/// for it (the struct has no fields for them): `(name, JSON text of the value, required)`.
#[cfg(feature = "schemars")]
pub fn schema_consts(schema: &mut schemars::Schema, consts: &[(&str, &str, bool)]) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    for (name, json, required) in consts {
        let Ok(value) = serde_json::from_str::<Value>(json) else {
            continue;
        };
        let properties = object
            .entry("properties")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(properties) = properties {
            let mut constant = serde_json::Map::new();
            constant.insert("const".to_owned(), value);
            properties.insert((*name).to_owned(), Value::Object(constant));
        }
        if *required {
            let list = object
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = list
                && !list.iter().any(|r| r == *name)
            {
                list.push(Value::from(*name));
            }
        }
    }
}

/// The `JsonSchema` of a generated root type (`<Tool>Args`, `<Tool>Output`): the tool's
/// exact schema from its canonical JSON text `json`, not one derived from the Rust type
/// (which cannot say everything the schema says). For FastMCP's wrapped form (`wrapped`),
/// the type is the `result` member: its schema, with the root's `$defs` and
/// `definitions` beside it so local `$ref`s still resolve. Text that is not a JSON schema
/// (never generated) gives the schema `true`.
#[cfg(feature = "schemars")]
pub fn exact_schema(json: &str, wrapped: bool) -> schemars::Schema {
    let Ok(mut value) = serde_json::from_str::<Value>(json) else {
        return schemars::Schema::default();
    };
    if wrapped {
        let defs: Vec<(String, Value)> = ["$defs", "definitions"]
            .into_iter()
            .filter_map(|k| value.get(k).map(|d| (k.to_owned(), d.clone())))
            .collect();
        let mut result = value
            .pointer("/properties/result")
            .cloned()
            .unwrap_or(Value::Bool(true));
        if let Value::Object(result) = &mut result {
            for (key, defs) in defs {
                result.entry(key).or_insert(defs);
            }
        }
        value = result;
    }
    schemars::Schema::try_from(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{check_const, json_equal};

    #[test]
    fn numbers_compare_by_value_everywhere() {
        assert!(json_equal(&json!(1), &json!(1.0)));
        assert!(json_equal(&json!(-0.0), &json!(0)));
        assert!(json_equal(&json!([1, {"a": 2.0}]), &json!([1.0, {"a": 2}])));
        assert!(json_equal(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!json_equal(&json!(1), &json!("1")));
        assert!(!json_equal(&json!(1), &json!(1.5)));
        assert!(!json_equal(&json!([1]), &json!([1, 1])));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 1})));
        assert!(!json_equal(&json!(-1), &json!(u64::MAX)));
    }

    #[test]
    fn consts_are_checked_by_value() {
        let check = |json: &str, found: Option<serde_json::Value>| {
            check_const::<serde_json::Error>("v", json, found.as_ref()).map_err(|e| e.to_string())
        };
        assert_eq!(check("1", Some(json!(1.0))), Ok(()));
        assert_eq!(check("true", None), Ok(()));
        assert_eq!(
            check("true", Some(json!(false))),
            Err("property \"v\" must be true, found false".to_owned())
        );
        assert_eq!(
            check("\"a\"", Some(json!("b"))),
            Err("property \"v\" must be \"a\", found \"b\"".to_owned())
        );
    }
}
