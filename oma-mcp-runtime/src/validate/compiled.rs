//! The compiled side of local validation (cargo feature `validate`): [`Validator`] over the
//! `jsonschema` crate, and [`InputValidator`], which compiles a tool's schema on first use.
//! See the [parent module](super) for dialects, `$ref`s and formats.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use jsonschema::Draft;
use serde_json::Value;

use super::{Dialect, Problem, invalid_input_message};
use crate::error::{Error, ProtocolError};

/// The `jsonschema` crate's draft for `dialect`.
fn draft(dialect: Dialect) -> Draft {
    match dialect {
        Dialect::Draft4 => Draft::Draft4,
        Dialect::Draft6 => Draft::Draft6,
        Dialect::Draft7 => Draft::Draft7,
        Dialect::Draft201909 => Draft::Draft201909,
        Dialect::Draft202012 => Draft::Draft202012,
    }
}

/// A compiled JSON Schema (see the [module docs](super) for dialects, `$ref`s and formats).
///
/// Cheap to share (`Send + Sync`); compile once, validate many times.
pub struct Validator {
    dialect: Dialect,
    inner: jsonschema::Validator,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

impl Validator {
    /// Compiles `schema`, the JSON Schema of the tool `tool` (the name is only used in the
    /// error), in the dialect its `$schema` names ([`Dialect::of`]).
    ///
    /// # Errors
    /// [`ProtocolError::InvalidSchema`] naming the tool, the JSON pointer in the schema and the
    /// reason, when the schema is not valid for its dialect's meta-schema, has a `$ref` that does
    /// not resolve locally, or otherwise cannot be compiled.
    pub fn new(tool: &str, schema: &Value) -> Result<Self, Error> {
        let dialect = Dialect::of(schema);
        let built = catch_unwind(AssertUnwindSafe(|| {
            jsonschema::options()
                .with_draft(draft(dialect))
                .should_validate_formats(true)
                .should_ignore_unknown_formats(true)
                .offline()
                .build(schema)
        }));
        let invalid = |pointer: &str, reason: String| {
            Error::Protocol(ProtocolError::InvalidSchema {
                tool: tool.to_owned(),
                pointer: if pointer.is_empty() {
                    "/".to_owned()
                } else {
                    pointer.to_owned()
                },
                reason,
            })
        };
        match built {
            Ok(Ok(inner)) => Ok(Self { dialect, inner }),
            Ok(Err(e)) => Err(invalid(e.instance_path().as_str(), e.to_string())),
            Err(_) => Err(invalid(
                "",
                "the jsonschema crate panicked on it".to_owned(),
            )),
        }
    }

    /// The dialect the schema was compiled in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Validates `instance`; on failure, every problem, sorted by pointer then message, without
    /// duplicates (so the order does not depend on the `jsonschema` crate's traversal).
    ///
    /// # Errors
    /// The problems found (never an empty list).
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<Problem>> {
        let problems: Vec<Problem> = self
            .problems(instance)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(sorted(problems))
        }
    }

    /// Validates a tool's output (`structuredContent`) as the generated output types read it:
    /// what they absorb is not an error. Those types keep a string an output `enum` of strings
    /// does not list (in the enum's `Unknown` variant) and properties an object's
    /// `additionalProperties` or `unevaluatedProperties` forbids (in the struct's
    /// `additional_properties` map), so a server that added a value or a property after the
    /// snapshot still gives a typed output: drift, not a broken call.
    ///
    /// # Errors
    /// The problems the types do not absorb (never an empty list), sorted as
    /// [`Validator::validate`] sorts them; `Ok` holds the absorbed ones (often empty), for the
    /// caller to report as drift.
    pub fn validate_output(&self, instance: &Value) -> Result<Vec<Problem>, Vec<Problem>> {
        let (absorbed, rejected): (Vec<_>, Vec<_>) =
            self.problems(instance).into_iter().partition(|(_, a)| *a);
        let strip = |list: Vec<(Problem, bool)>| sorted(list.into_iter().map(|(p, _)| p).collect());
        if rejected.is_empty() {
            Ok(strip(absorbed))
        } else {
            Err(strip(rejected))
        }
    }

    /// Every problem with `instance`, and whether forward-compatible output types absorb it
    /// (see [`Validator::validate_output`]).
    fn problems(&self, instance: &Value) -> Vec<(Problem, bool)> {
        use jsonschema::error::ValidationErrorKind as Kind;
        let found = catch_unwind(AssertUnwindSafe(|| {
            self.inner
                .iter_errors(instance)
                .map(|e| {
                    let pointer = e.instance_path().as_str();
                    let (message, absorbed) = match e.kind() {
                        Kind::Enum { options } => (
                            enum_message(e.instance(), options),
                            e.instance().is_string() && only_strings(options),
                        ),
                        Kind::AdditionalProperties { .. } | Kind::UnevaluatedProperties { .. } => {
                            (e.to_string(), true)
                        }
                        _ => (e.to_string(), false),
                    };
                    let pointer = if pointer.is_empty() { "/" } else { pointer };
                    (Problem::new(pointer, message), absorbed)
                })
                .collect::<Vec<_>>()
        }));
        match found {
            Ok(problems) => problems,
            Err(_) => {
                tracing::warn!("the jsonschema crate panicked while validating; input accepted");
                Vec::new()
            }
        }
    }
}

/// `problems` sorted by pointer then message, without duplicates.
fn sorted(mut problems: Vec<Problem>) -> Vec<Problem> {
    problems.sort();
    problems.dedup();
    problems
}

/// Whether an `enum`'s values are strings (and maybe `null`), at least one: what the code
/// generator makes a string enum of, open for outputs.
fn only_strings(options: &Value) -> bool {
    options.as_array().is_some_and(|values| {
        values.iter().any(Value::is_string) && values.iter().all(|v| v.is_string() || v.is_null())
    })
}

/// How many allowed values an `enum` problem lists at most; the rest are counted
/// (`… and 5 more`). The `jsonschema` crate lists three and then "or N other candidates",
/// which hides what the user may send.
pub const MAX_LISTED_ENUM_VALUES: usize = 20;

/// The message of an `enum` problem: `"x" is not one of "a", "b" or "c"`, every allowed value
/// (as JSON) up to [`MAX_LISTED_ENUM_VALUES`], then `and N more`.
fn enum_message(instance: &Value, options: &Value) -> String {
    let values: Vec<String> = options
        .as_array()
        .into_iter()
        .flatten()
        .map(Value::to_string)
        .collect();
    let listed = &values[..values.len().min(MAX_LISTED_ENUM_VALUES)];
    let more = values.len() - listed.len();
    let text = match (listed, more) {
        ([], _) => return format!("{instance} is not allowed: the enum lists no value"),
        ([one], 0) => one.clone(),
        ([init @ .., last], 0) => format!("{} or {last}", init.join(", ")),
        (all, more) => format!("{} and {more} more", all.join(", ")),
    };
    format!("{instance} is not one of {text}")
}

/// The input validation of one tool: its schema, compiled on first use and cached.
///
/// A schema that does not compile is reported once with `tracing::warn!` (naming the tool and
/// the schema error) and the tool's input is then accepted unvalidated; see the
/// [module docs](super) for why.
#[derive(Debug)]
pub struct InputValidator {
    tool: String,
    schema: Value,
    compiled: OnceLock<Option<Validator>>,
}

impl InputValidator {
    /// The validation of tool `tool` (its framework name, used in messages) against `schema`
    /// (its input schema as the server sent it). Nothing is compiled yet.
    pub fn new(tool: impl Into<String>, schema: Value) -> Self {
        Self {
            tool: tool.into(),
            schema,
            compiled: OnceLock::new(),
        }
    }

    /// The tool name used in messages.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The schema validated against.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The compiled schema, compiling it on the first call; `None` when it does not compile
    /// (logged once).
    pub fn validator(&self) -> Option<&Validator> {
        self.compiled
            .get_or_init(|| match Validator::new(&self.tool, &self.schema) {
                Ok(v) => Some(v),
                Err(e) => {
                    tracing::warn!(
                        tool = %self.tool,
                        "local input validation is off for this tool: {e}"
                    );
                    None
                }
            })
            .as_ref()
    }

    /// Checks `input` against the tool's schema.
    ///
    /// # Errors
    /// The full message, [`invalid_input_message`]:
    /// `Invalid input for tool "<name>":\n- <pointer>: <message>…`.
    pub fn check(&self, input: &Value) -> Result<(), String> {
        match self.validator() {
            Some(v) => v
                .validate(input)
                .map_err(|problems| invalid_input_message(&self.tool, &problems)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn problems(schema: Value, instance: Value) -> Vec<(String, String)> {
        match Validator::new("t", &schema).unwrap().validate(&instance) {
            Ok(()) => Vec::new(),
            Err(ps) => ps.into_iter().map(|p| (p.pointer, p.message)).collect(),
        }
    }

    fn echo_schema() -> Value {
        json!({
            "type": "object",
            "properties": {"message": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
            "required": ["message"],
            "additionalProperties": false
        })
    }

    #[test]
    fn dialects_from_schema_keyword() {
        let of = |s: &str| Dialect::of(&json!({ "$schema": s }));
        assert_eq!(
            of("http://json-schema.org/draft-07/schema#"),
            Dialect::Draft7
        );
        assert_eq!(
            of("https://json-schema.org/draft-07/schema"),
            Dialect::Draft7
        );
        assert_eq!(
            of("http://json-schema.org/draft-04/schema#"),
            Dialect::Draft4
        );
        assert_eq!(
            of("http://json-schema.org/draft-06/schema#"),
            Dialect::Draft6
        );
        assert_eq!(
            of("https://json-schema.org/draft/2019-09/schema"),
            Dialect::Draft201909
        );
        assert_eq!(
            of("https://json-schema.org/draft/2020-12/schema"),
            Dialect::Draft202012
        );
        assert_eq!(of("https://example.com/my-meta"), Dialect::Draft202012);
        assert_eq!(
            Dialect::of(&json!({"type": "object"})),
            Dialect::Draft202012
        );
        assert_eq!(Dialect::of(&json!({"$schema": 7})), Dialect::Draft202012);
        assert_eq!(Dialect::of(&json!(true)), Dialect::Draft202012);
    }

    #[test]
    fn enum_problems_list_every_allowed_value_up_to_the_bound() {
        let schema =
            |values: Vec<Value>| json!({"type": "object", "properties": {"k": {"enum": values}}});
        let four: Vec<Value> = ["basic", "aggregates", "full", "raw"]
            .map(Value::from)
            .to_vec();
        assert_eq!(
            problems(schema(four), json!({"k": "x"})),
            [(
                "/k".to_owned(),
                r#""x" is not one of "basic", "aggregates", "full" or "raw""#.to_owned()
            )]
        );
        let many: Vec<Value> = (1..=25).map(Value::from).collect();
        let listed = (1..=20)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        assert_eq!(
            problems(schema(many), json!({"k": 0})),
            [(
                "/k".to_owned(),
                format!("0 is not one of {listed} and 5 more")
            )]
        );
        assert_eq!(
            problems(schema(vec![json!(null)]), json!({"k": 1})),
            [("/k".to_owned(), "1 is not one of null".to_owned())]
        );
        assert_eq!(
            problems(schema(vec![]), json!({"k": 1})),
            [(
                "/k".to_owned(),
                "1 is not allowed: the enum lists no value".to_owned()
            )]
        );
    }

    #[test]
    fn valid_input_passes() {
        assert_eq!(problems(echo_schema(), json!({"message": "hi"})), []);
    }

    #[test]
    fn one_line_per_problem_sorted_by_pointer() {
        let got = problems(
            echo_schema(),
            json!({"count": 0, "extra": true, "message": 5}),
        );
        assert_eq!(
            got,
            [
                (
                    "/".to_owned(),
                    "Additional properties are not allowed ('extra' was unexpected)".to_owned()
                ),
                (
                    "/count".to_owned(),
                    "0 is less than the minimum of 1".to_owned()
                ),
                (
                    "/message".to_owned(),
                    "5 is not of type \"string\"".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn full_message_text() {
        let v = InputValidator::new("own_echo", echo_schema());
        assert_eq!(v.check(&json!({"message": "x"})), Ok(()));
        assert_eq!(
            v.check(&json!({})).unwrap_err(),
            "Invalid input for tool \"own_echo\":\n- /: \"message\" is a required property"
        );
        assert_eq!(
            v.check(&json!({"message": ["a"], "count": "2"}))
                .unwrap_err(),
            "Invalid input for tool \"own_echo\":\n\
             - /count: \"2\" is not of type \"integer\"\n\
             - /message: [\"a\"] is not of type \"string\""
        );
        assert_eq!(
            v.check(&json!([1])).unwrap_err(),
            "Invalid input for tool \"own_echo\":\n- /: [1] is not of type \"object\""
        );
    }

    #[test]
    fn nested_pointers_and_escaping() {
        let schema = json!({
            "type": "object",
            "properties": {
                "pet": {"type": "object", "properties": {"kind": {"enum": ["cat", "dog"]}}},
                "a/b": {"type": "string"},
                "items": {"type": "array", "items": {"type": "integer"}}
            }
        });
        assert_eq!(
            problems(
                schema,
                json!({"pet": {"kind": "cow"}, "a/b": 1, "items": [1, "x"]})
            ),
            [
                ("/a~1b".to_owned(), "1 is not of type \"string\"".to_owned()),
                (
                    "/items/1".to_owned(),
                    "\"x\" is not of type \"integer\"".to_owned()
                ),
                (
                    "/pet/kind".to_owned(),
                    "\"cow\" is not one of \"cat\" or \"dog\"".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn known_formats_are_asserted_with_pointers() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "at": {"type": "string", "format": "date-time"},
                "items": {"type": "array", "items": {"type": "string", "format": "uuid"}}
            }
        });
        let good = json!({
            "id": "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "at": "2024-01-01T00:00:00Z",
            "items": ["00000000-0000-0000-0000-000000000000"]
        });
        assert_eq!(problems(schema.clone(), good), []);
        assert_eq!(
            problems(
                schema,
                json!({"id": "not-a-uuid", "at": "yesterday", "items": ["a", "00000000-0000-0000-0000-000000000000"]})
            ),
            [
                (
                    "/at".to_owned(),
                    "\"yesterday\" is not a \"date-time\"".to_owned()
                ),
                (
                    "/id".to_owned(),
                    "\"not-a-uuid\" is not a \"uuid\"".to_owned()
                ),
                ("/items/0".to_owned(), "\"a\" is not a \"uuid\"".to_owned()),
            ]
        );
    }

    #[test]
    fn draft07_asserts_its_formats() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"at": {"type": "string", "format": "date-time"},
                           "mail": {"type": "string", "format": "email"},
                           "link": {"type": "string", "format": "uri"}}
        });
        assert_eq!(
            problems(
                schema.clone(),
                json!({"at": "2024-01-01T00:00:00Z", "mail": "a@example.com", "link": "https://example.com/"})
            ),
            []
        );
        assert_eq!(
            problems(
                schema,
                json!({"at": "2024-13-01", "mail": "nobody", "link": "no scheme"})
            ),
            [
                (
                    "/at".to_owned(),
                    "\"2024-13-01\" is not a \"date-time\"".to_owned()
                ),
                (
                    "/link".to_owned(),
                    "\"no scheme\" is not a \"uri\"".to_owned()
                ),
                (
                    "/mail".to_owned(),
                    "\"nobody\" is not a \"email\"".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn unknown_formats_are_ignored() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"ms": {"type": "integer", "format": "uint64"},
                           "n": {"type": "integer", "format": "int32"},
                           "x": {"type": "number", "format": "double"},
                           "raw": {"type": "string", "format": "json"}}
        });
        assert_eq!(
            problems(schema, json!({"ms": 5, "n": -3, "x": 1.5, "raw": "{"})),
            []
        );
    }

    /// A case of the shared reference folder's `corpus/cases/` (see `oma_mcp_test_support`:
    /// `None` after one printed line when the folder is absent, a failure under `CI`).
    fn corpus_case(name: &str) -> Option<Value> {
        let path = oma_mcp_test_support::shared_dir()?
            .join("corpus/cases")
            .join(name);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        Some(
            serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("invalid JSON in {}: {e}", path.display())),
        )
    }

    /// Local `$defs` refs are followed; nothing is fetched.
    #[test]
    fn case_01_local_refs_resolve() {
        let Some(case) = corpus_case("01-defs-ref-in-input-schema.json") else {
            return;
        };
        let schema = &case["tools"][0]["inputSchema"];
        assert_eq!(
            problems(schema.clone(), json!({"query_model": {"limit": 20}})),
            []
        );
        assert_eq!(
            problems(
                schema.clone(),
                json!({"query_model": {"limit": 0, "query": 3}})
            ),
            [
                (
                    "/query_model/limit".to_owned(),
                    "0 is less than the minimum of 1".to_owned()
                ),
                (
                    "/query_model/query".to_owned(),
                    "3 is not of type \"string\"".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn external_refs_are_not_fetched() {
        for r in [
            "https://example.com/schema.json",
            "file:///etc/passwd",
            "#/$defs/Missing",
        ] {
            let e = Validator::new("t", &json!({"properties": {"x": {"$ref": r}}})).unwrap_err();
            assert!(
                matches!(&e, Error::Protocol(ProtocolError::InvalidSchema { tool, .. }) if tool == "t"),
                "{e}"
            );
        }
    }

    /// A schema without `type`, or empty, validates as a plain object.
    #[test]
    fn case_24_missing_type_or_empty() {
        let Some(case) = corpus_case("24-input-schema-missing-type-or-empty.json") else {
            return;
        };
        let tools = case["tools"].as_array().unwrap();
        assert_eq!(
            problems(tools[0]["inputSchema"].clone(), json!({"x": 1})),
            []
        );
        assert_eq!(problems(tools[1]["inputSchema"].clone(), json!({})), []);
        let add_task = tools[2]["inputSchema"].clone();
        assert_eq!(
            Validator::new("add_task", &add_task).unwrap().dialect(),
            Dialect::Draft7
        );
        assert_eq!(
            problems(add_task, json!({})),
            [(
                "/".to_owned(),
                "\"description\" is a required property".to_owned()
            )]
        );
    }

    /// An invalid subschema (a property named `type` declared as `"type": "object"`) does not
    /// compile; the error names tool and place, and the tool's input is then accepted (validation
    /// skipped).
    #[test]
    fn case_28_invalid_subschema_skips_validation() {
        let Some(case) = corpus_case("28-property-named-type-invalid-subschema.json") else {
            return;
        };
        let schema = case["tools"][0]["inputSchema"].clone();
        let e = Validator::new("replace_all_matching_properties", &schema).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the JSON Schema of tool \"replace_all_matching_properties\" is invalid at \
             /properties/type: \"object\" is not of types \"boolean\", \"object\"; local \
             validation is skipped for it"
        );
        let v = InputValidator::new("replace_all_matching_properties", schema);
        assert!(v.validator().is_none());
        assert_eq!(v.check(&json!({"anything": 1})), Ok(()));
    }

    /// Draft-07 tuple `items` and 2020-12 `prefixItems`, each in its dialect.
    #[test]
    fn case_34_tuple_items_per_dialect() {
        let Some(case) = corpus_case("34-tuple-items-draft07-vs-prefixItems-2020-12.json") else {
            return;
        };
        let quote = case["tools"][0]["inputSchema"].clone();
        assert_eq!(
            problems(
                quote.clone(),
                json!({"dayName": "Mon", "arg1": ["a", {"k": 1}]})
            ),
            []
        );
        assert_eq!(
            problems(quote, json!({"dayName": "Mon", "arg1": [1, {}]})),
            [(
                "/arg1/0".to_owned(),
                "1 is not of type \"string\"".to_owned()
            )]
        );
        let metrics = case["tools"][1]["outputSchema"].clone();
        assert_eq!(
            problems(
                metrics.clone(),
                case["result_of_bundle_metrics"]["structuredContent"].clone()
            ),
            []
        );
        assert_eq!(
            problems(metrics, json!({"buckets": [["x", 1.5]]})),
            [
                (
                    "/buckets/0/0".to_owned(),
                    "\"x\" is not of type \"number\"".to_owned()
                ),
                (
                    "/buckets/0/1".to_owned(),
                    "1.5 is not of type \"integer\"".to_owned()
                ),
            ]
        );
    }

    /// JSON Schema refuses `"required": null`, so a Go server's tool (which writes an empty
    /// list as `null`) would not validate at all; the input schema as read for validation
    /// (`mcp_llm_input_schema`) leaves a top-level one out, and the tool's arguments are
    /// checked against the rest.
    #[test]
    fn a_top_level_null_required_validates_as_no_required_list() {
        let sent = json!({"type": "object", "properties": {"name": {"type": "string"}},
                          "required": null});
        let err = Validator::new("greet", &sent).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the JSON Schema of tool \"greet\" is invalid at /required: null is not of type \
             \"array\"; local validation is skipped for it"
        );
        let schema = oma_mcp_core::descriptor::mcp_llm_input_schema(&json!({"inputSchema": sent}));
        assert_eq!(problems(schema.clone(), json!({})), []);
        assert_eq!(problems(schema.clone(), json!({"name": "Ada"})), []);
        assert_eq!(
            problems(schema, json!({"name": 7})),
            [("/name".to_owned(), "7 is not of type \"string\"".to_owned())]
        );
    }
}
