//! The `prompts` and `resources` submodules: per prompt its marker type (`McpPrompt`) and
//! arguments struct (`PromptArgs`), per resource a `StaticResource` constant, per resource
//! template its struct (`ResourceTemplate`, `ResourceUri`). Each submodule is written only
//! when the snapshot pins at least one entry of its kind.

use super::super::docs;
use super::super::identifiers::{self, RustIdent};
use super::super::offers::{
    FieldKind, Offers, PromptModel, ResourceModel, StringField, TemplateModel,
};
use super::super::writer::{Lit, Text, Writer};
use super::{GENERATED, PRIVATE_FIELD, STRUCTS, UNUSED, lint_list, unit_marker};
use crate::error::Error;

const OPTION_STR: &str = "::core::option::Option<&'static str>";
const STRING: &str = "::std::string::String";

/// `Some("…")` or `None` for an `Option<&'static str>` constant.
fn option_text(text: Option<&str>) -> String {
    match text {
        Some(text) => format!("::core::option::Option::Some({})", Text(text)),
        None => "::core::option::Option::None".to_owned(),
    }
}

/// `name` if it is an identifier, else [`Error::InvalidIdentifier`] naming the entry.
fn checked<'a>(entry: &str, name: &'a str) -> Result<&'a str, Error> {
    if identifiers::is_plain_ident(name) {
        Ok(name)
    } else {
        Err(Error::InvalidIdentifier {
            tool: entry.to_owned(),
            pointer: "/name".to_owned(),
            ident: name.to_owned(),
        })
    }
}

/// A field, if it is an identifier (maybe raw), else [`Error::InvalidIdentifier`].
fn field<'a>(entry: &str, json: &str, ident: &'a RustIdent) -> Result<&'a RustIdent, Error> {
    if identifiers::is_valid(ident) {
        Ok(ident)
    } else {
        Err(Error::InvalidIdentifier {
            tool: entry.to_owned(),
            pointer: format!("/{json}"),
            ident: ident.to_string(),
        })
    }
}

/// The description's doc lines, or `fallback` when there is none.
fn doc_of(description: Option<&str>, fallback: String) -> Vec<String> {
    match description.map(docs::doc_lines) {
        Some(lines) if !lines.is_empty() => lines,
        _ => vec![fallback],
    }
}

/// Both submodules, each when it has entries.
///
/// # Errors
/// [`Error::InvalidIdentifier`] when a computed name is not an identifier (a bug in this
/// crate).
pub(super) fn modules(w: &mut Writer, offers: &Offers) -> Result<(), Error> {
    if !offers.prompts.is_empty() {
        w.item();
        w.docs(&[
            " The server's prompts (`prompts/list`): per prompt a marker type and its arguments,",
            " got with `client.prompt(args)`.",
        ]);
        w.allow(UNUSED);
        w.open("pub mod prompts");
        for prompt in &offers.prompts {
            prompt_items(w, prompt)?;
        }
        w.close("");
    }
    if !offers.resources.is_empty() || !offers.templates.is_empty() {
        w.item();
        w.docs(&[
            " The server's resources (`resources/list`) as constants and its resource templates",
            " (`resources/templates/list`) as types, read with `client.read(resource)`.",
        ]);
        w.allow(UNUSED);
        w.open("pub mod resources");
        if !offers.resources.is_empty() {
            // Short constant lines; no template type takes this name (see `offers`).
            w.line("use ::oma_mcp_runtime::StaticResource;");
        }
        for resource in &offers.resources {
            resource_constant(w, resource)?;
        }
        for template in &offers.templates {
            template_items(w, template)?;
        }
        w.close("");
    }
    Ok(())
}

fn prompt_items(w: &mut Writer, prompt: &PromptModel) -> Result<(), Error> {
    let marker = checked(&prompt.name, &prompt.marker)?;
    let args = checked(&prompt.name, &prompt.args)?;
    let mut doc = doc_of(
        prompt.description.as_deref(),
        format!(" The MCP prompt \"{}\".", docs::inline(&prompt.name)),
    );
    doc.push(String::new());
    doc.push(format!(" Arguments: [`{args}`]."));
    unit_marker(w, &doc, marker);

    w.item();
    w.allow(GENERATED);
    w.open(format_args!(
        "impl ::oma_mcp_runtime::McpPrompt for {marker}"
    ));
    w.line(format_args!("type Args = {args};"));
    w.line(format_args!(
        "const NAME: &'static str = {};",
        Lit(&prompt.name)
    ));
    w.line(format_args!(
        "const TITLE: {OPTION_STR} = {};",
        option_text(prompt.title.as_deref())
    ));
    w.line(format_args!(
        "const DESCRIPTION: {OPTION_STR} = {};",
        option_text(prompt.description.as_deref())
    ));
    let names: Vec<String> = prompt
        .arguments
        .iter()
        .map(|a| Lit(&a.name).to_string())
        .collect();
    w.line(format_args!(
        "const ARGUMENTS: &'static [&'static str] = &[{}];",
        names.join(", ")
    ));
    w.line(format_args!(
        "const DIGEST: &'static str = {};",
        Lit(&prompt.digest)
    ));
    w.close("");

    string_struct(
        w,
        &prompt.name,
        args,
        &[format!(
            " The arguments of [`{marker}`]: `new` takes the required ones."
        )],
        &prompt.arguments,
        (
            " The arguments, the required ones given.",
            "optional argument",
        ),
    )?;

    w.item();
    w.allow(GENERATED);
    w.open(format_args!(
        "impl ::oma_mcp_runtime::PromptArgs for {args}"
    ));
    w.line(format_args!("type Prompt = {marker};"));
    w.open("fn arguments(&self) -> ::std::collections::BTreeMap<::std::string::String, ::std::string::String>");
    if prompt.arguments.is_empty() {
        w.line("::std::collections::BTreeMap::new()");
    } else {
        w.line("let mut arguments = ::std::collections::BTreeMap::new();");
        for argument in &prompt.arguments {
            let key = format!("{}.to_owned()", Lit(&argument.name));
            if argument.kind == FieldKind::Required {
                w.line(format_args!(
                    "arguments.insert({key}, self.{}.clone());",
                    argument.field
                ));
            } else {
                w.open(format_args!(
                    "if let ::core::option::Option::Some(value) = &self.{}",
                    argument.field
                ));
                w.line(format_args!("arguments.insert({key}, value.clone());"));
                w.close("");
            }
        }
        w.line("arguments");
    }
    w.close("");
    w.close("");
    Ok(())
}

/// A struct of strings named `name` for the entry `entry` (a prompt's arguments, a
/// template's values), with its doc: a field per entry of `fields`, `new` taking the required
/// ones and the lists (doc `docs.0`), and a `with_*` setter per optional one (doc "Sets the
/// {docs.1} `…`.").
///
/// # Errors
/// [`Error::InvalidIdentifier`] when a field is not an identifier (a bug in this crate).
fn string_struct(
    w: &mut Writer,
    entry: &str,
    name: &str,
    doc: &[String],
    fields: &[StringField],
    docs: (&str, &str),
) -> Result<(), Error> {
    let idents: Vec<&RustIdent> = fields
        .iter()
        .map(|f| field(entry, &f.name, &f.field))
        .collect::<Result<_, _>>()?;
    let taken: Vec<&StringField> = fields
        .iter()
        .filter(|f| f.kind != FieldKind::Optional)
        .collect();
    w.item();
    w.docs(doc);
    w.allow(STRUCTS);
    w.allow(&lint_list(name, &idents));
    if taken.is_empty() {
        w.attr("derive(Debug, Clone, Default, PartialEq, Eq, Hash)");
    } else {
        w.attr("derive(Debug, Clone, PartialEq, Eq, Hash)");
    }
    w.open(format_args!("pub struct {name}"));
    for f in fields {
        if let Some(description) = &f.description {
            w.docs(&docs::doc_lines(description));
        }
        let ty = match f.kind {
            FieldKind::Required => STRING.to_owned(),
            FieldKind::Optional => format!("::core::option::Option<{STRING}>"),
            FieldKind::List => format!("::std::vec::Vec<{STRING}>"),
        };
        w.line(format_args!("pub {}: {ty},", f.field));
    }
    w.line(format_args!("{PRIVATE_FIELD}: (),"));
    w.close("");

    w.item();
    w.allow(UNUSED);
    w.allow(&lint_list("", &idents));
    w.open(format_args!("impl {name}"));
    let params: Vec<String> = taken
        .iter()
        .map(|f| match f.kind {
            FieldKind::List => format!(
                "{}: impl ::core::iter::IntoIterator<Item = impl ::core::convert::Into<{STRING}>>",
                f.field
            ),
            _ => format!("{}: impl ::core::convert::Into<{STRING}>", f.field),
        })
        .collect();
    w.item();
    w.doc(docs.0);
    w.attr("must_use");
    allow_many(w, params.len());
    w.open(format_args!("pub fn new({}) -> Self", params.join(", ")));
    w.open("Self");
    for f in fields {
        match f.kind {
            FieldKind::Required => w.line(format_args!("{0}: {0}.into(),", f.field)),
            FieldKind::Optional => {
                w.line(format_args!("{}: ::core::option::Option::None,", f.field));
            }
            FieldKind::List => w.line(format_args!(
                "{0}: {0}.into_iter().map(::core::convert::Into::into).collect(),",
                f.field
            )),
        }
    }
    w.line(format_args!("{PRIVATE_FIELD}: (),"));
    w.close("");
    w.close("");
    for f in fields.iter().filter(|f| f.kind == FieldKind::Optional) {
        let setter = setter_name(&f.field);
        w.item();
        w.doc(format!(" Sets the {} `{}`.", docs.1, docs::inline(&f.name)).as_str());
        w.attr("must_use");
        w.open(format_args!(
            "pub fn {setter}(mut self, value: impl ::core::convert::Into<{STRING}>) -> Self"
        ));
        w.line(format_args!(
            "self.{} = ::core::option::Option::Some(value.into());",
            f.field
        ));
        w.line("self");
        w.close("");
    }
    w.close("");
    Ok(())
}

/// `with_<field>`, as tools' setters are named: a raw field `r#type` gives `with_type`,
/// `_2fa` gives `with_2fa` (not `with__2fa`, which `non_snake_case` refuses).
fn setter_name(field: &RustIdent) -> String {
    format!("with_{}", field.name.trim_start_matches('_'))
}

/// `#[allow(clippy::too_many_arguments)]` for a constructor of more than 7 parameters.
fn allow_many(w: &mut Writer, params: usize) {
    if params > 7 {
        w.allow(&["clippy::too_many_arguments"]);
    }
}

fn resource_constant(w: &mut Writer, resource: &ResourceModel) -> Result<(), Error> {
    let constant = checked(&resource.uri, &resource.constant)?;
    let mut doc = doc_of(
        resource.description.as_deref(),
        format!(" The resource \"{}\".", docs::inline(&resource.name)),
    );
    doc.push(String::new());
    doc.push(format!(
        " URI: `{}`.",
        docs::inline(&resource.uri).replace('`', "'")
    ));
    w.item();
    w.docs(&doc);
    w.allow(UNUSED);
    w.line(format_args!("pub const {constant}: StaticResource ="));
    let setters: Vec<(&str, &str)> = [
        ("with_title", &resource.title),
        ("with_description", &resource.description),
        ("with_mime_type", &resource.mime_type),
    ]
    .into_iter()
    .filter_map(|(setter, value)| Some((setter, value.as_deref()?)))
    .collect();
    w.deeper(|w| {
        let end = if setters.is_empty() { ";" } else { "" };
        w.line(format_args!(
            "StaticResource::new({}, {}){end}",
            Lit(&resource.uri),
            Lit(&resource.name)
        ));
        for (i, (setter, value)) in setters.iter().enumerate() {
            let end = if i + 1 == setters.len() { ";" } else { "" };
            w.line(format_args!(".{setter}({}){end}", Text(value)));
        }
    });
    Ok(())
}

fn template_items(w: &mut Writer, template: &TemplateModel) -> Result<(), Error> {
    let ty = checked(&template.name, &template.ty)?;
    let mut doc = doc_of(
        template.description.as_deref(),
        format!(
            " The resource template \"{}\".",
            docs::inline(&template.name)
        ),
    );
    doc.push(String::new());
    doc.push(format!(
        " URI template (RFC 6570): `{}`.",
        docs::inline(&template.uri_template).replace('`', "'")
    ));
    string_struct(
        w,
        &template.name,
        ty,
        &doc,
        &template.variables,
        (
            " The template's values, those of its path given.",
            "query variable",
        ),
    )?;

    w.item();
    w.allow(GENERATED);
    w.open(format_args!(
        "impl ::oma_mcp_runtime::ResourceTemplate for {ty}"
    ));
    w.line(format_args!(
        "const URI_TEMPLATE: &'static str = {};",
        Lit(&template.uri_template)
    ));
    w.line(format_args!(
        "const NAME: &'static str = {};",
        Lit(&template.name)
    ));
    for (constant, value) in [
        ("TITLE", &template.title),
        ("DESCRIPTION", &template.description),
        ("MIME_TYPE", &template.mime_type),
    ] {
        w.line(format_args!(
            "const {constant}: {OPTION_STR} = {};",
            option_text(value.as_deref())
        ));
    }
    w.line(format_args!(
        "const DIGEST: &'static str = {};",
        Lit(&template.digest)
    ));
    w.open(
        "fn values(&self) -> ::std::vec::Vec<(&'static str, ::oma_mcp_runtime::resource::TemplateValue)>",
    );
    let values: Vec<String> = template
        .variables
        .iter()
        .map(|v| {
            format!(
                "({}, ::core::convert::From::from(self.{}.clone()))",
                Lit(&v.name),
                v.field
            )
        })
        .collect();
    w.line(format_args!("::std::vec![{}]", values.join(", ")));
    w.close("");
    w.close("");

    w.item();
    w.allow(GENERATED);
    w.open(format_args!("impl ::oma_mcp_runtime::ResourceUri for {ty}"));
    w.open(
        "fn resource_uri(&self) -> ::core::result::Result<::std::borrow::Cow<'_, str>, ::oma_mcp_runtime::resource::UriTemplateError>",
    );
    w.line("::oma_mcp_runtime::ResourceTemplate::uri(self).map(::std::borrow::Cow::Owned)");
    w.close("");
    w.close("");
    Ok(())
}
