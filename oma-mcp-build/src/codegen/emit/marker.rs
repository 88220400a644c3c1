//! A tool's marker type and what makes it a tool: the unit struct, its `McpTool` impl (names,
//! description, schemas, digest, whether it is consequential, the validators' `static`), the
//! argument type's `ToolArgs` impl, `NotConsequential` unless the tool is consequential, and
//! with the schemars option the `JsonSchema` impls of its root types, which are the tool's
//! exact schemas.

use super::super::docs;
use super::super::schema::RustType;
use super::super::writer::{Json, Lit, Text, Writer};
use super::{
    GENERATED, RootSchema, Type, checked, exact_schema_roots, open_json_schema, type_name,
    unit_marker,
};
use crate::codegen::ToolModel;
use crate::error::Error;

/// The marker's doc lines: the tool's description (or a sentence naming the tool), then the
/// argument and output types.
fn doc(tool: &ToolModel) -> Vec<String> {
    let mut doc = match tool.description.as_deref().map(docs::doc_lines) {
        Some(lines) if !lines.is_empty() => lines,
        _ => vec![format!(
            " The MCP tool \"{}\".",
            docs::inline(&tool.mcp_name)
        )],
    };
    doc.push(String::new());
    doc.push(format!(" Arguments: [`{}`].", tool.args));
    if tool.output.is_some() {
        doc.push(format!(" Output: [`{}Output`].", tool.marker));
    }
    doc
}

/// The marker type of `tool` and its `McpTool`, `ToolArgs` and `NotConsequential` impls.
///
/// # Errors
/// [`Error::InvalidIdentifier`] (at `/name`) when the marker or argument name is not an
/// identifier.
pub(super) fn items(w: &mut Writer, tool: &ToolModel) -> Result<(), Error> {
    let marker = checked(tool, "/name", &tool.marker)?;
    let args = checked(tool, "/name", &tool.args)?;
    unit_marker(w, &doc(tool), marker);

    w.item();
    w.allow(GENERATED);
    w.open(format_args!("impl ::oma_mcp_runtime::McpTool for {marker}"));
    w.line(format_args!("type Args = {args};"));
    let no_output = RustType::Option(Box::new(RustType::Value));
    let output = tool.output.as_ref().map_or(&no_output, |o| &o.ty);
    w.line(format_args!("type Output = {};", Type(output)));
    w.line(format_args!(
        "const MCP_NAME: &'static str = {};",
        Lit(&tool.mcp_name)
    ));
    w.line(format_args!(
        "const NAME: &'static str = {};",
        Lit(&tool.name)
    ));
    let model_name = oma_mcp_core::provider::portable_name(&tool.name);
    if model_name != tool.name {
        w.line(format_args!(
            "const MODEL_NAME: &'static str = {};",
            Lit(&model_name)
        ));
    }
    const OPTION_STR: &str = "::core::option::Option<&'static str>";
    match &tool.description {
        Some(d) => w.line(format_args!(
            "const DESCRIPTION: {OPTION_STR} = ::core::option::Option::Some({});",
            Text(d)
        )),
        None => w.line(format_args!(
            "const DESCRIPTION: {OPTION_STR} = ::core::option::Option::None;"
        )),
    }
    w.line(format_args!(
        "const INPUT_SCHEMA: &'static str = {};",
        Json(&tool.input_schema)
    ));
    if let Some(output) = &tool.output {
        w.line(format_args!(
            "const OUTPUT_SCHEMA: {OPTION_STR} = ::core::option::Option::Some({});",
            Json(&output.schema)
        ));
        if output.wrapped {
            w.line("const OUTPUT_WRAPPED: bool = true;");
        }
    }
    w.line(format_args!(
        "const DIGEST: &'static str = {};",
        Lit(&tool.digest)
    ));
    w.line(format_args!(
        "const CONSEQUENTIAL: bool = {};",
        tool.consequential
    ));
    w.open("fn validators() -> &'static ::oma_mcp_runtime::typed::ToolValidators");
    w.line("use ::oma_mcp_runtime::typed::ToolValidators;");
    w.line("static VALIDATORS: ToolValidators = ToolValidators::new();");
    w.line("&VALIDATORS");
    w.close("");
    w.close("");

    w.item();
    w.allow(GENERATED);
    w.open(format_args!("impl ::oma_mcp_runtime::ToolArgs for {args}"));
    w.line(format_args!("type Tool = {marker};"));
    w.close("");

    if !tool.consequential {
        w.item();
        w.allow(GENERATED);
        w.line(format_args!(
            "impl ::oma_mcp_runtime::NotConsequential for {marker} {{}}"
        ));
    }
    Ok(())
}

/// With the schemars option, `impl JsonSchema` for the root types of
/// [`exact_schema_roots`]: the schema is the tool's embedded `INPUT_SCHEMA` /
/// `OUTPUT_SCHEMA`, exactly as the server sent it (the `result` member of FastMCP's wrapped
/// form).
///
/// # Errors
/// [`Error::InvalidIdentifier`] when a root type's name is not an identifier.
pub(super) fn exact_schemas(w: &mut Writer, tool: &ToolModel) -> Result<(), Error> {
    if !tool.schemars {
        return Ok(());
    }
    let marker = checked(tool, "/name", &tool.marker)?;
    let constants = format!("<{marker} as ::oma_mcp_runtime::McpTool>");
    for (name, root) in exact_schema_roots(tool) {
        let ident = type_name(tool, name)?;
        let (schema, wrapped) = match root {
            RootSchema::Input => (format!("{constants}::INPUT_SCHEMA"), false),
            RootSchema::Output { wrapped } => (
                format!("{constants}::OUTPUT_SCHEMA.unwrap_or(\"true\")"),
                wrapped,
            ),
        };
        w.item();
        w.doc(" The tool's exact schema, as the server sent it.");
        open_json_schema(w, &ident, name);
        w.line(format_args!(
            "::oma_mcp_runtime::__private::exact_schema({schema}, {wrapped})"
        ));
        w.close("");
        w.close("");
    }
    Ok(())
}
