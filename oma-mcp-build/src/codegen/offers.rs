//! The server's other offers as a type model: its pinned prompts (`prompts/list`), resources
//! (`resources/list`) and resource templates (`resources/templates/list`), each read from the
//! snapshot's entry into plain data for the emitter (`emit::offers`).
//!
//! Names follow the rules of tools: a prompt's marker is the UpperCamelCase of its name and
//! its arguments struct that name with `Args`; a template's type is the UpperCamelCase of its
//! `name`; prompts (and templates) whose names meet are each tagged with a hash of their own
//! name (the `stems` module), so adding one never renames another. A resource constant is the
//! SCREAMING_SNAKE_CASE of its `name`, tagged with a hash of its `uri` where two meet. Fields
//! (prompt arguments, template variables) are snake_case, as a tool's properties are.

use std::collections::{BTreeMap, BTreeSet};

use oma_mcp_core::Snapshot;
use oma_mcp_core::snapshot::SnapshotItem;
use oma_mcp_core::uri_template::UriTemplate;
use serde_json::Value;

use super::identifiers::{self, RustIdent};
use super::{Warning, stems};
use crate::error::Error;

/// One field of a generated struct of strings: a prompt argument or a template variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StringField {
    /// The argument's or variable's name, as sent.
    pub name: String,
    /// Its field.
    pub field: RustIdent,
    /// What the field holds, and whether `new` takes it.
    pub kind: FieldKind,
    /// Its `description` (prompt arguments have one).
    pub description: Option<String>,
}

/// What a [`StringField`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldKind {
    /// A string the constructor takes (a required argument, a path variable).
    Required,
    /// A string set with `with_*` (an optional argument, a form-style query variable).
    Optional,
    /// A list of strings the constructor takes (an exploded variable without a prefix).
    List,
}

/// One prompt: its marker type, arguments struct and constants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptModel {
    pub name: String,
    pub marker: String,
    pub args: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub digest: String,
    pub arguments: Vec<StringField>,
}

/// One resource: its constant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceModel {
    pub constant: String,
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// One resource template: its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TemplateModel {
    pub ty: String,
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub digest: String,
    pub variables: Vec<StringField>,
}

/// The offers of a snapshot, ready to emit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Offers {
    pub prompts: Vec<PromptModel>,
    pub resources: Vec<ResourceModel>,
    pub templates: Vec<TemplateModel>,
}

fn text(item: &SnapshotItem, member: &str) -> Option<String> {
    item.text(member).map(str::to_owned)
}

/// The model of every pinned prompt, resource and template of `snapshot`; a template whose
/// `uriTemplate` is not RFC 6570 gets no type and a warning.
///
/// # Errors
/// [`Error::TagCollision`] when two prompts (or templates) would get the same tagged name.
pub(crate) fn offers(snapshot: &Snapshot, warnings: &mut Vec<Warning>) -> Result<Offers, Error> {
    Ok(Offers {
        prompts: prompts(&snapshot.prompts, warnings)?,
        resources: resources(&snapshot.resources),
        templates: templates(&snapshot.resource_templates, warnings)?,
    })
}

fn prompts(items: &[SnapshotItem], warnings: &mut Vec<Warning>) -> Result<Vec<PromptModel>, Error> {
    for item in items {
        for repeated in repeated_arguments(item) {
            warnings.push(Warning {
                tool: String::new(),
                pointer: String::new(),
                message: format!(
                    "prompt \"{}\": the argument \"{repeated}\" is listed more than once; \
                     the first is kept",
                    item.key()
                ),
            });
        }
    }
    let names: Vec<&str> = items.iter().map(SnapshotItem::key).collect();
    named(&names, |i, stem| prompt(&items[i], stem))
}

/// What `build(index, stem)` makes for each of `names` with its stem, chosen as a tool's is
/// (see the `stems` module; there is no rename table for prompts and templates): `build`
/// gives the model and every type name it uses.
fn named<M>(
    names: &[&str],
    build: impl FnMut(usize, &str) -> (M, BTreeSet<String>),
) -> Result<Vec<M>, Error> {
    let no_renames = BTreeMap::new();
    let renames = stems::Renames {
        table: "rename",
        entries: &no_renames,
    };
    let built = stems::assign(names, &renames, build, |(_, names)| names)?;
    Ok(built.into_iter().map(|(model, _)| model).collect())
}

/// The prompt's arguments that have a string `name`, the first of each name.
fn arguments(item: &SnapshotItem) -> Vec<&Value> {
    let mut seen = BTreeSet::new();
    match item.descriptor.get("arguments") {
        Some(Value::Array(arguments)) => arguments
            .iter()
            .filter(|a| {
                a.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|name| seen.insert(name))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The names listed more than once among the prompt's arguments, each once.
fn repeated_arguments(item: &SnapshotItem) -> BTreeSet<&str> {
    let mut seen = BTreeSet::new();
    let Some(Value::Array(arguments)) = item.descriptor.get("arguments") else {
        return BTreeSet::new();
    };
    arguments
        .iter()
        .filter_map(|a| a.get("name").and_then(Value::as_str))
        .filter(|name| !seen.insert(*name))
        .collect()
}

fn prompt(item: &SnapshotItem, stem: &str) -> (PromptModel, BTreeSet<String>) {
    let arguments = arguments(item);
    let json_names: Vec<&str> = arguments
        .iter()
        .filter_map(|a| a.get("name").and_then(Value::as_str))
        .collect();
    let fields = identifiers::field_idents(&json_names);
    let arguments = arguments
        .iter()
        .zip(json_names)
        .zip(fields)
        .map(|((argument, name), field)| StringField {
            name: name.to_owned(),
            field,
            kind: if argument.get("required") == Some(&Value::Bool(true)) {
                FieldKind::Required
            } else {
                FieldKind::Optional
            },
            description: argument
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
        .collect();
    let args = format!("{stem}Args");
    let names = BTreeSet::from([stem.to_owned(), args.clone()]);
    let model = PromptModel {
        name: item.key().to_owned(),
        marker: stem.to_owned(),
        args,
        title: text(item, "title"),
        description: text(item, "description"),
        digest: item.digest.clone(),
        arguments,
    };
    (model, names)
}

/// The SCREAMING_SNAKE_CASE constant of each resource; resources whose constants meet are
/// each tagged with a hash of their URI.
fn resources(items: &[SnapshotItem]) -> Vec<ResourceModel> {
    let plain: Vec<String> = items
        .iter()
        .map(|item| {
            let name = item.text("name").unwrap_or_else(|| item.key());
            let ident = identifiers::snake_ident(name);
            ident.name.trim_end_matches('_').to_ascii_uppercase()
        })
        .collect();
    items
        .iter()
        .zip(&plain)
        .map(|(item, constant)| {
            let contested = plain.iter().filter(|c| *c == constant).count() > 1;
            let constant = if contested {
                format!(
                    "{constant}_{}",
                    identifiers::name_tag(item.key()).to_ascii_uppercase()
                )
            } else {
                constant.clone()
            };
            ResourceModel {
                constant,
                uri: item.key().to_owned(),
                name: item.text("name").unwrap_or_default().to_owned(),
                title: text(item, "title"),
                description: text(item, "description"),
                mime_type: text(item, "mimeType"),
            }
        })
        .collect()
}

fn templates(
    items: &[SnapshotItem],
    warnings: &mut Vec<Warning>,
) -> Result<Vec<TemplateModel>, Error> {
    let mut parsed = Vec::new();
    for item in items {
        let uri_template = item.text("uriTemplate").unwrap_or_default();
        match UriTemplate::parse(uri_template) {
            Ok(template) => parsed.push((item, template)),
            Err(e) => warnings.push(Warning {
                tool: String::new(),
                pointer: String::new(),
                message: format!(
                    "resource template \"{}\": {e}; it gets no type (read it by URI with \
                     `client.read(uri)`)",
                    item.key()
                ),
            }),
        }
    }
    let names: Vec<&str> = parsed.iter().map(|(item, _)| item.key()).collect();
    let mut models = named(&names, |i, stem| {
        let (item, template) = &parsed[i];
        let model = template_model(item, template, stem);
        (model, BTreeSet::from([stem.to_owned()]))
    })?;
    // The `resources` module imports `StaticResource`; a template of that name is tagged, by
    // its own name, as a contested one is.
    for model in &mut models {
        if model.ty == "StaticResource" {
            model.ty = identifiers::tagged_type(&model.ty, &model.name);
        }
    }
    Ok(models)
}

fn template_model(item: &SnapshotItem, template: &UriTemplate, ty: &str) -> TemplateModel {
    let json_names: Vec<&str> = template
        .variables()
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    let fields = identifiers::field_idents(&json_names);
    let variables = template
        .variables()
        .iter()
        .zip(fields)
        .map(|(variable, field)| StringField {
            name: variable.name.clone(),
            field,
            kind: if variable.explode && !variable.prefix {
                FieldKind::List
            } else if variable.operator.is_query() {
                FieldKind::Optional
            } else {
                FieldKind::Required
            },
            description: None,
        })
        .collect();
    TemplateModel {
        ty: ty.to_owned(),
        uri_template: template.as_str().to_owned(),
        name: item.key().to_owned(),
        title: text(item, "title"),
        description: text(item, "description"),
        mime_type: text(item, "mimeType"),
        digest: item.digest.clone(),
        variables,
    }
}
