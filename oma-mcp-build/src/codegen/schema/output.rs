//! A tool's `outputSchema` → its output type `<Tool>Output`, with the same machinery as the
//! arguments: an object root is a struct, a union root an enum, any other root (`integer`,
//! an array, a `$ref`) a type alias. FastMCP's wrapped form (`"x-fastmcp-wrap-result": true`,
//! `{"result": <T>}`) gives the type of `result`; the runtime unwraps it.

use serde_json::Value;

use super::{AliasDef, Converter, RustType, TypeDef, Warning, kind};
use crate::codegen::identifiers::Namespace;

/// What the emitter needs to know about a tool's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutputModel {
    /// Canonical JSON of the output schema.
    pub schema: String,
    /// Whether the schema is FastMCP's wrapped form.
    pub wrapped: bool,
    /// `McpTool::Output`: `Named(<Tool>Output)`, or a type built around it (an `Option`).
    pub ty: RustType,
}

/// Maps `output_schema` (the tool's `outputSchema`) to its types: the type named
/// `output_name` and every nested type, in order of appearance, and the [`OutputModel`].
/// Problems are pushed to `warnings` with
/// pointers under `/outputSchema`.
pub(crate) fn output_types(
    tool: &str,
    output_name: &str,
    output_schema: &Value,
    types: &mut Namespace,
    warnings: &mut Vec<Warning>,
) -> (Vec<TypeDef>, OutputModel) {
    let mut cx = Converter::new(
        tool,
        output_name,
        Some(output_schema),
        "/outputSchema",
        types,
        warnings,
    );
    let wrapped_result = output_schema
        .get("x-fastmcp-wrap-result")
        .filter(|w| **w == Value::Bool(true))
        .and_then(|_| output_schema.pointer("/properties/result"));
    let (schema, pointer) = match wrapped_result {
        Some(result) => (result, "/outputSchema/properties/result"),
        None => (output_schema, "/outputSchema"),
    };
    cx.root_claim = Some((pointer.to_owned(), output_name.to_owned()));
    let mapped = if output_schema.is_object() {
        if wrapped_result.is_none() {
            // `{"$ref": "#"}` inside refers back to the output type.
            cx.by_pointer
                .insert(pointer.to_owned(), super::PointerState::InProgress(None));
        }
        cx.map(schema, output_name, pointer, 1)
    } else {
        let message = format!("outputSchema is {}, not a JSON object", kind(output_schema));
        cx.invalid(pointer, message)
    };
    let claimed = cx.root_claim.is_none();
    let mut defs = std::mem::take(&mut cx.defs);
    let doc = format!("The structured output of the MCP tool \"{tool}\".");
    for def in &mut defs {
        if def.name() == output_name && def.doc().ends_with(&format!("MCP tool \"{tool}\".")) {
            def.set_doc(doc.clone());
        }
    }
    if !claimed {
        let mut doc = doc;
        for note in &mapped.notes {
            doc.push_str("\n\n");
            doc.push_str(note);
        }
        defs.insert(
            0,
            TypeDef::Alias(AliasDef {
                name: output_name.to_owned(),
                doc,
                ty: mapped.ty.clone().unboxed(),
            }),
        );
    }
    let ty = if claimed {
        mapped.ty.unboxed()
    } else {
        RustType::Named(output_name.to_owned())
    };
    let model = OutputModel {
        schema: oma_mcp_core::snapshot::canonical_json_pretty(output_schema),
        wrapped: wrapped_result.is_some(),
        ty,
    };
    (defs, model)
}
