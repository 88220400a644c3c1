//! The type model → text. The item shapes that make up most of a module are written directly
//! in prettyplease's layout ([`direct`]); the others go type model → tokens (`quote!`) →
//! `syn::File` → text (`prettyplease`), as does any item [`direct`] declines. Both give the
//! same text for an item (tests check the generated code against prettyplease).
//!
//! Everything outside the generated module is named by an absolute path (`::core::…`,
//! `::std::…`, `::oma_mcp_runtime::…`), so a tool called `option` or `string` cannot shadow
//! what the code uses.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::docs;
use super::names::{self, RustIdent};
use super::schema::{
    AliasDef, EnumDef, ExactEnumDef, ExtraRole, Field, RustType, StructDef, TaggedEnumDef, TypeDef,
    UNKNOWN_VARIANT, UntaggedEnumDef,
};
use super::{PinnedConnection, ToolModel};
use crate::error::Error;

mod direct;

/// A tool's items in order: tokens for the token path, or items already written as text.
#[derive(Default)]
struct Pieces(Vec<Piece>);

enum Piece {
    Tokens(TokenStream),
    Text(String),
}

impl Pieces {
    /// Appends tokens (to the last token piece when the last piece is one).
    fn tokens(&mut self, tokens: TokenStream) {
        match self.0.last_mut() {
            Some(Piece::Tokens(last)) => last.extend(tokens),
            _ => self.0.push(Piece::Tokens(tokens)),
        }
    }

    /// Appends items written as text.
    fn texts(&mut self, items: impl IntoIterator<Item = String>) {
        self.0.extend(items.into_iter().map(Piece::Text));
    }
}

/// The whole file: `header`, `TOOL_NAMES`, the embedded `SNAPSHOT` and its `drift` check,
/// each tool's items, then `connect_config()` and `connect()` when a connection is given.
/// Every item carries the lint exemptions of generated code ([`allow_generated_lints`]).
pub(crate) fn file(
    header: &str,
    snapshot: &str,
    tools: &[ToolModel],
    connection: Option<&PinnedConnection>,
) -> Result<String, Error> {
    let table = tool_table(tools);
    // Each item's text: tokens parsed and formatted by prettyplease ([`formatted`]), or
    // written directly ([`direct`]).
    let mut items: Vec<String> = Vec::new();
    if let Some(head) = direct::module_head(tools, &table, snapshot) {
        items.extend(head);
    } else {
        let tokens = module_head(tools, &table, snapshot);
        items.extend(parse("", tokens)?.items.into_iter().map(formatted));
    }
    let drift = quote! {
        /// Compares the connected server's tools with [`SNAPSHOT`], the pin this code was
        /// generated from. The policy is the caller's, e.g.
        /// `drift(&client)?.apply(DriftPolicy::FailOnBreaking, "server")`.
        ///
        /// # Errors
        /// Only if [`SNAPSHOT`] were not a snapshot, which generated code never embeds.
        #[allow(dead_code)]
        pub fn drift(
            client: &::oma_mcp_runtime::McpClient,
        ) -> ::core::result::Result<::oma_mcp_runtime::DriftReport, ::oma_mcp_runtime::Error> {
            client.drift_against_embedded(SNAPSHOT)
        }
    };
    for tool in tools {
        for piece in tool_items(tool)?.0 {
            match piece {
                Piece::Tokens(tokens) => items.extend(
                    parse(&tool.mcp_name, tokens)?
                        .items
                        .into_iter()
                        .map(formatted),
                ),
                Piece::Text(text) => items.push(text),
            }
        }
    }
    items.extend(
        parse("", same_shape_conversions(tools))?
            .items
            .into_iter()
            .map(formatted),
    );
    let mut drift_fns = parse("", drift)?.items;
    if let Some(connection) = connection {
        let connection = super::connection::items(connection)?;
        items.extend(connection.config.into_iter().map(formatted));
        drift_fns.extend(connection.drift);
    }
    let mut out = String::from(header);
    out.push_str(&items.join("\n"));
    out.push('\n');
    out.push_str(&drift_items(drift_fns.into_iter().map(formatted).collect()));
    Ok(out)
}

/// The token path of `TOOL_NAMES` (its doc is `table`) and `SNAPSHOT` (see
/// [`direct::module_head`]).
fn module_head(tools: &[ToolModel], table: &[String], snapshot: &str) -> TokenStream {
    let names = tools.iter().map(|t| t.mcp_name.as_str());
    quote! {
        #(#[doc = #table])*
        #[allow(dead_code)]
        pub const TOOL_NAMES: &[&str] = &[#(#names),*];

        /// The snapshot this module was generated from (canonical JSON text, as committed), for
        /// drift checks at run time: see `drift()` (oma-mcp-runtime's cargo feature `drift`).
        #[allow(dead_code)]
        pub const SNAPSHOT: &str = #snapshot;
    }
}

/// The doc of `TOOL_NAMES`, the first item of the module: a table of its tools (Rust name,
/// MCP name, whether it is consequential, the first line of its description), then what
/// `TOOL_NAMES` holds.
fn tool_table(tools: &[ToolModel]) -> Vec<String> {
    let cell = |text: &str| docs::inline(text).replace('|', "\\|");
    let mut doc = vec![
        " The tools of this module, in snapshot order (a consequential tool runs only through"
            .to_owned(),
        " `invoke_confirmed` or `invoke_typed_confirmed`):".to_owned(),
        String::new(),
        " | Rust | MCP name | consequential | description |".to_owned(),
        " |---|---|---|---|".to_owned(),
    ];
    for tool in tools {
        let description = tool
            .description
            .as_deref()
            .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
            .map(|line| cell(&oma_mcp_runtime::text::excerpt(&line.trim())))
            .unwrap_or_default();
        doc.push(format!(
            " | [`{}`] | `{}` | {} | {} |",
            tool.marker,
            cell(&tool.mcp_name.replace('`', "'")),
            if tool.consequential { "yes" } else { "no" },
            description
        ));
    }
    doc.push(String::new());
    doc.push(" `TOOL_NAMES` holds their raw MCP names, in this order.".to_owned());
    doc
}

/// A doc example of `def`'s constructor, in a `text` block (not a doctest of the including
/// crate): `new` with the parameter names, then the first optional field's setter.
fn constructor_example(def: &StructDef) -> Vec<String> {
    let params: Vec<String> = def
        .constructor_fields()
        .iter()
        .map(|f| f.ident.to_string())
        .collect();
    let setter = def
        .fields
        .iter()
        .find(|f| !f.required)
        .map(|f| format!(".with_{}({})", f.ident.name, f.ident));
    let one_line = format!(
        "{}::new({}){}",
        def.name,
        params.join(", "),
        setter.clone().unwrap_or_default()
    );
    let mut doc = vec![String::new(), " ```text".to_owned()];
    if one_line.len() <= 90 {
        doc.push(format!(" {one_line}"));
    } else {
        doc.push(format!(" {}::new(", def.name));
        doc.extend(params.iter().map(|p| format!("     {p},")));
        doc.push(match setter {
            Some(setter) => format!(" ){setter}"),
            None => " )".to_owned(),
        });
    }
    doc.push(" ```".to_owned());
    doc
}

/// At most this many structs of one shape get conversions between each other (each pair
/// both ways: n × (n - 1) impls).
const MAX_SAME_SHAPE: usize = 12;

/// `From` conversions between the structs of a module that have the same shape: the same
/// properties (JSON names, required or not) with the same types, all of them plain (no
/// generated type inside: strings, numbers, booleans, JSON values, and lists, maps and
/// options of those), no `const` properties, and no map of declared additional properties.
/// A tool's own argument type is left out: it stands for its tool (`ToolArgs`), and turning
/// one tool's arguments into another's is no conversion of data.
/// So an output can be passed as another tool's argument (server-memory's entity in
/// `read_graph`'s output and in `create_entities`' arguments) with `.into()`. The map an
/// output struct keeps unlisted properties in moves along when both have one, starts empty
/// when only the target has one, and is dropped otherwise. Adds no name.
fn same_shape_conversions(tools: &[ToolModel]) -> TokenStream {
    fn plain(ty: &RustType) -> bool {
        match ty {
            RustType::String
            | RustType::Int(_)
            | RustType::F64
            | RustType::Bool
            | RustType::JsonMap
            | RustType::Value => true,
            RustType::Vec(inner) | RustType::Map(inner) | RustType::Option(inner) => plain(inner),
            RustType::Tuple(items) => items.iter().all(plain),
            RustType::Boxed(_) | RustType::Named(_) => false,
        }
    }
    let mut groups: std::collections::BTreeMap<Vec<(&str, bool, &RustType)>, Vec<&StructDef>> =
        std::collections::BTreeMap::new();
    for tool in tools {
        for def in &tool.types {
            let TypeDef::Struct(def) = def else { continue };
            if def.name == tool.args {
                continue;
            }
            let extra_ok = def
                .extra
                .as_ref()
                .is_none_or(|e| e.role == ExtraRole::Unlisted);
            if def.fields.is_empty()
                || !def.consts.is_empty()
                || !extra_ok
                || !def.fields.iter().all(|f| plain(&f.ty))
            {
                continue;
            }
            let key = def
                .fields
                .iter()
                .map(|f| (f.json_name.as_str(), f.required, &f.ty))
                .collect();
            groups.entry(key).or_default().push(def);
        }
    }
    let mut tokens = TokenStream::new();
    for group in groups
        .values()
        .filter(|g| (2..=MAX_SAME_SHAPE).contains(&g.len()))
    {
        for from in group {
            for to in group.iter().filter(|to| to.name != from.name) {
                tokens.extend(conversion(from, to));
            }
        }
    }
    tokens
}

/// `impl From<from> for to` of two structs of the same shape (see
/// [`same_shape_conversions`]).
fn conversion(from: &StructDef, to: &StructDef) -> TokenStream {
    let (Some(source), Some(target)) = (type_ident(&from.name), type_ident(&to.name)) else {
        return TokenStream::new();
    };
    let mut moves: Vec<TokenStream> = Vec::new();
    for f in &to.fields {
        let Some(ident) = field_ident(&f.ident) else {
            return TokenStream::new();
        };
        moves.push(quote!(#ident: value.#ident));
    }
    if let Some(extra) = &to.extra {
        let Some(ident) = field_ident(&extra.ident) else {
            return TokenStream::new();
        };
        moves.push(match &from.extra {
            Some(source_extra) if source_extra.ident == extra.ident => quote!(#ident: value.#ident),
            _ => quote!(#ident: ::core::default::Default::default()),
        });
    }
    let private = private_field();
    let doc = format!(
        " [`{}`] and [`{}`] have the same properties and types.",
        from.name, to.name
    );
    let allows = lint_allows("", &field_names(to));
    quote! {
        #[doc = #doc]
        #allows
        impl ::core::convert::From<#source> for #target {
            fn from(value: #source) -> Self {
                Self {
                    #(#moves,)*
                    #private: (),
                }
            }
        }
    }
}

/// `item` with the lint exemptions of generated code ([`allow_generated_lints`]), formatted
/// by prettyplease on its own (items are joined with a blank line between them).
fn formatted(mut item: syn::Item) -> String {
    allow_generated_lints(&mut item);
    prettyplease::unparse(&syn::File {
        shebang: None,
        frontmatter: None,
        attrs: Vec::new(),
        items: vec![item],
    })
}

/// `items` (those that use the drift engine: `drift()`, `connect(policy)`) inside
/// `::oma_mcp_runtime::drift_items! { … }`, which emits them only when oma-mcp-runtime's cargo
/// feature `drift` is on, so generated code compiles with the feature off too. The items are
/// formatted by prettyplease and indented one level (it leaves a macro's input unformatted);
/// no string literal spans lines in them, so indenting changes only whitespace between tokens.
fn drift_items(items: Vec<String>) -> String {
    let mut out = String::from("::oma_mcp_runtime::drift_items! {\n");
    for line in items.join("\n").lines() {
        if !line.is_empty() {
            out.push_str("    ");
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// Exempts a top-level generated item from the lints generated code conventionally carries
/// `#[allow(..)]` for (as prost's and tonic's output does): `clippy::pedantic` (a user's crate
/// may turn it on; the shapes follow the server's schema, not the user's style) and
/// `missing_docs` (a property without a `description` gets no filler doc comment); on structs
/// also `clippy::manual_non_exhaustive`, which asks for `#[non_exhaustive]` instead of the
/// private field, but that attribute does not bind the crate that includes the module. An
/// `include!`d file cannot carry an inner `#![allow(..)]`, so each item gets them: added to
/// its first `#[allow(..)]`, or in one of their own after its doc comment.
fn allow_generated_lints(item: &mut syn::Item) {
    // Structs with fields (every one has the private field), not the unit markers.
    let is_struct =
        matches!(item, syn::Item::Struct(s) if matches!(s.fields, syn::Fields::Named(_)));
    let attrs = match item {
        syn::Item::Const(syn::ItemConst { attrs, .. })
        | syn::Item::Enum(syn::ItemEnum { attrs, .. })
        | syn::Item::Fn(syn::ItemFn { attrs, .. })
        | syn::Item::Impl(syn::ItemImpl { attrs, .. })
        | syn::Item::Static(syn::ItemStatic { attrs, .. })
        | syn::Item::Struct(syn::ItemStruct { attrs, .. })
        | syn::Item::Type(syn::ItemType { attrs, .. }) => attrs,
        _ => return,
    };
    let lints = if is_struct {
        quote!(
            clippy::pedantic,
            missing_docs,
            clippy::manual_non_exhaustive
        )
    } else {
        quote!(clippy::pedantic, missing_docs)
    };
    let allow = attrs.iter_mut().find_map(|a| match &mut a.meta {
        syn::Meta::List(list) if list.path.is_ident("allow") => Some(list),
        _ => None,
    });
    match allow {
        Some(list) => list.tokens.extend(quote!(, #lints)),
        None => {
            let at = attrs
                .iter()
                .take_while(|a| a.path().is_ident("doc"))
                .count();
            attrs.insert(at, syn::parse_quote!(#[allow(#lints)]));
        }
    }
}

fn parse(tool: &str, tokens: TokenStream) -> Result<syn::File, Error> {
    syn::parse2(tokens).map_err(|e| Error::InvalidGeneratedCode {
        tool: tool.to_owned(),
        reason: e.to_string(),
    })
}

/// The marker type, its `McpTool` impl, and the argument types.
fn tool_items(tool: &ToolModel) -> Result<Pieces, Error> {
    let bad = |ident: &str| Error::InvalidIdentifier {
        tool: tool.mcp_name.clone(),
        pointer: "/name".to_owned(),
        ident: ident.to_owned(),
    };
    let marker = type_ident(&tool.marker).ok_or_else(|| bad(&tool.marker))?;
    let args = type_ident(&tool.args).ok_or_else(|| bad(&tool.args))?;
    let mut doc = match &tool.description {
        Some(d) if !docs::doc_lines(d).is_empty() => docs::doc_lines(d),
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
    let mut pieces = Pieces::default();
    if let Some(items) = direct::marker_items(tool, &doc, tool.output.as_ref().map(|o| &o.ty)) {
        pieces.texts(items);
    } else {
        pieces.tokens(marker_tokens(tool, &doc, &marker, &args)?);
    }
    for def in &tool.types {
        // The shapes written directly, unless their layout is not reproduced there.
        let text = match def {
            TypeDef::Struct(s) if s.consts.is_empty() => {
                let mut doc = docs::doc_lines(&s.doc);
                doc.extend(constructor_example(s));
                direct::struct_items(tool, s, &doc).map(Vec::from)
            }
            TypeDef::Enum(e) if !e.open => direct::enum_items(tool, e).map(Vec::from),
            _ => None,
        };
        if let Some(items) = text {
            pieces.texts(items);
            continue;
        }
        pieces.tokens(match def {
            TypeDef::Alias(a) => alias_item(tool, a)?,
            TypeDef::Struct(s) => struct_item(tool, s)?,
            TypeDef::Enum(e) => enum_item(tool, e)?,
            TypeDef::Exact(e) => exact_item(tool, e)?,
            TypeDef::Tagged(e) => tagged_item(tool, e)?,
            TypeDef::Untagged(e) => untagged_item(tool, e)?,
        });
    }
    pieces.tokens(exact_schema_items(tool, &marker)?);
    Ok(pieces)
}

/// The token path of the marker type of a tool and its `McpTool`, `ToolArgs` and
/// `NotConsequential` impls (see [`direct::marker_items`]).
fn marker_tokens(
    tool: &ToolModel,
    doc: &[String],
    marker: &Ident,
    args: &Ident,
) -> Result<TokenStream, Error> {
    let (mcp_name, name, input_schema, digest, consequential) = (
        &tool.mcp_name,
        &tool.name,
        &tool.input_schema,
        &tool.digest,
        tool.consequential,
    );
    let description = match &tool.description {
        Some(d) => quote!(::core::option::Option::Some(#d)),
        None => quote!(::core::option::Option::None),
    };
    let (output_ty, output_consts) = match &tool.output {
        Some(output) => {
            let ty = rust_type(&output.ty);
            let schema = &output.schema;
            let wrapped = output.wrapped.then(|| {
                quote!(
                    const OUTPUT_WRAPPED: bool = true;
                )
            });
            (
                ty,
                quote! {
                    const OUTPUT_SCHEMA: ::core::option::Option<&'static str> =
                        ::core::option::Option::Some(#schema);
                    #wrapped
                },
            )
        }
        None => (
            rust_type(&RustType::Option(Box::new(RustType::Value))),
            quote!(),
        ),
    };
    let marker_allows = lint_allows(&tool.marker, &[]);
    let mut tokens = quote! {
        #(#[doc = #doc])*
        #[allow(dead_code)]
        #marker_allows
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct #marker;

        impl ::oma_mcp_runtime::McpTool for #marker {
            type Args = #args;
            type Output = #output_ty;
            const MCP_NAME: &'static str = #mcp_name;
            const NAME: &'static str = #name;
            const DESCRIPTION: ::core::option::Option<&'static str> = #description;
            const INPUT_SCHEMA: &'static str = #input_schema;
            #output_consts
            const DIGEST: &'static str = #digest;
            const CONSEQUENTIAL: bool = #consequential;

            fn validators() -> &'static ::oma_mcp_runtime::typed::ToolValidators {
                static VALIDATORS: ::oma_mcp_runtime::typed::ToolValidators =
                    ::oma_mcp_runtime::typed::ToolValidators::new();
                &VALIDATORS
            }
        }

        impl ::oma_mcp_runtime::ToolArgs for #args {
            type Tool = #marker;
        }
    };
    if !consequential {
        tokens.extend(quote! {
            impl ::oma_mcp_runtime::NotConsequential for #marker {}
        });
    }
    Ok(tokens)
}

/// The path of the runtime's re-exports for generated code, `::oma_mcp_runtime::__private`:
/// every generated reference to serde, serde_json, schemars or a runtime helper goes through
/// it, so the user's crate needs no dependency of its own on them.
fn private() -> TokenStream {
    quote!(::oma_mcp_runtime::__private)
}

/// `::oma_mcp_runtime::__private::<item>` as text, for the paths serde and schemars take in
/// strings (`crate = "…"`, `deserialize_with = "…"`).
fn private_path(item: &str) -> String {
    format!("::oma_mcp_runtime::__private::{item}")
}

/// Whether the type `name` derives (or, for exact-value enums, builds) its `JsonSchema`:
/// when the tool asks for schemars, except for the root argument and output types, whose
/// `JsonSchema` is the tool's exact schema ([`exact_schema_items`]).
fn derives_schemars(tool: &ToolModel, name: &str) -> bool {
    tool.schemars
        && !exact_schema_roots(tool)
            .iter()
            .any(|(root, _)| *root == name)
}

/// Which of the tool's schemas a root type is.
#[derive(Clone, Copy)]
enum RootSchema {
    /// `<Tool>Args`: `inputSchema`.
    Input,
    /// `<Tool>Output`: `outputSchema`, or its `result` member in FastMCP's wrapped form.
    Output { wrapped: bool },
}

/// The root types whose `JsonSchema` is the tool's own schema, with the schema each is.
/// Type aliases (of a JSON object map, an `i32`, ..) are not among them: a foreign type has
/// its own `JsonSchema`.
fn exact_schema_roots(tool: &ToolModel) -> Vec<(&str, RootSchema)> {
    let is_defined = |name: &str| {
        tool.types
            .iter()
            .any(|d| d.name() == name && !matches!(d, TypeDef::Alias(_)))
    };
    let mut roots = Vec::new();
    if is_defined(&tool.args) {
        roots.push((tool.args.as_str(), RootSchema::Input));
    }
    if let Some(output) = &tool.output
        && let RustType::Named(name) = &output.ty
        && is_defined(name)
    {
        let wrapped = output.wrapped;
        roots.push((name.as_str(), RootSchema::Output { wrapped }));
    }
    roots
}

/// `impl JsonSchema` for the root types of [`exact_schema_roots`]: the schema is the tool's
/// embedded `INPUT_SCHEMA` / `OUTPUT_SCHEMA`, exactly as the server sent it (the `result`
/// member of FastMCP's wrapped form).
fn exact_schema_items(tool: &ToolModel, marker: &Ident) -> Result<TokenStream, Error> {
    let mut tokens = TokenStream::new();
    if !tool.schemars {
        return Ok(tokens);
    }
    let private = private();
    let constants = quote!(<#marker as ::oma_mcp_runtime::McpTool>);
    for (name, root) in exact_schema_roots(tool) {
        let ident = type_ident(name).ok_or_else(|| bad_ident(tool, name))?;
        let (schema, wrapped) = match root {
            RootSchema::Input => (quote!(#constants::INPUT_SCHEMA), false),
            RootSchema::Output { wrapped } => {
                (quote!(#constants::OUTPUT_SCHEMA.unwrap_or("true")), wrapped)
            }
        };
        tokens.extend(quote! {
            /// The tool's exact schema, as the server sent it.
            impl #private::schemars::JsonSchema for #ident {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(#name)
                }

                fn json_schema(_: &mut #private::schemars::SchemaGenerator) -> #private::schemars::Schema {
                    #private::exact_schema(#schema, #wrapped)
                }
            }
        });
    }
    Ok(tokens)
}

/// The `JsonSchema` derive and its crate attribute, when the type `name` derives it.
fn schemars_derive(tool: &ToolModel, name: &str) -> (TokenStream, TokenStream) {
    if derives_schemars(tool, name) {
        let private = private();
        let schemars_crate = private_path("schemars");
        (
            quote!(#private::schemars::JsonSchema,),
            quote!(#[schemars(crate = #schemars_crate)]),
        )
    } else {
        (quote!(), quote!())
    }
}

/// The attributes every generated serde type carries: `allow`s for code a user may not use,
/// the `std` derives in `derives` (each followed by a comma), `JsonSchema` when the tool asks
/// for it, serde's derives through the runtime's re-export, and `#[serde(crate = .., args)]`.
fn serde_type_attrs(
    tool: &ToolModel,
    name: &str,
    derives: TokenStream,
    args: TokenStream,
) -> TokenStream {
    let (schemars_derive, schemars_attr) = schemars_derive(tool, name);
    let allows = lint_allows(name, &[]);
    let private = private();
    let serde_crate = private_path("serde");
    quote! {
        #[allow(dead_code, clippy::type_complexity)]
        #allows
        #[derive(
            #derives
            #schemars_derive
            #private::serde::Serialize,
            #private::serde::Deserialize
        )]
        #[serde(crate = #serde_crate #args)]
        #schemars_attr
    }
}

/// `pub type <Tool>Output = <type>;`.
fn alias_item(tool: &ToolModel, def: &AliasDef) -> Result<TokenStream, Error> {
    let name = type_ident(&def.name).ok_or_else(|| Error::InvalidIdentifier {
        tool: tool.mcp_name.clone(),
        pointer: "/outputSchema".to_owned(),
        ident: def.name.clone(),
    })?;
    let doc = docs::doc_lines(&def.doc);
    let ty = rust_type(&def.ty);
    let allows = lint_allows(&def.name, &[]);
    Ok(quote! {
        #(#[doc = #doc])*
        #[allow(dead_code, clippy::type_complexity)]
        #allows
        pub type #name = #ty;
    })
}

fn struct_item(tool: &ToolModel, def: &StructDef) -> Result<TokenStream, Error> {
    if !def.consts.is_empty() {
        return const_struct_item(tool, def);
    }
    let name = type_ident(&def.name).ok_or_else(|| bad_ident(tool, &def.name))?;
    let mut doc = docs::doc_lines(&def.doc);
    doc.extend(constructor_example(def));
    let default = def.all_optional().then(|| quote!(Default,));
    let fields = struct_fields(tool, def, FieldUse::Public { serde: true })?;
    let attrs = serde_type_attrs(
        tool,
        &def.name,
        quote!(Debug, Clone, PartialEq, #default),
        quote!(),
    );
    let field_allows = lint_allows("", &field_names(def));
    let constructor = constructor_items(tool, def, &name)?;
    Ok(quote! {
        #(#[doc = #doc])*
        #attrs
        #field_allows
        pub struct #name {
            #(#fields,)*
        }

        #constructor
    })
}

/// The name of the private field every generated struct has, so that code outside the
/// generated module cannot build it with a struct literal: it goes through `new` (or
/// `Default`) and the setters, and adding an optional property to the schema breaks no call
/// site. A property's field never starts with `_` and a letter, so the name is never taken.
const PRIVATE_FIELD: &str = "_non_exhaustive";

fn private_field() -> Ident {
    Ident::new(PRIVATE_FIELD, Span::call_site())
}

/// Whether a constructor or setter takes a value of type `ty` as it is rather than as
/// `impl Into<ty>`: numbers and booleans (an integer literal passed as `impl Into<u64>`
/// would be inferred as `i32`, which does not convert) and tuples.
fn taken_as_is(ty: &RustType) -> bool {
    match ty {
        RustType::Int(_) | RustType::F64 | RustType::Bool | RustType::Tuple(_) => true,
        RustType::Option(inner) => taken_as_is(inner),
        _ => false,
    }
}

/// A parameter of type `ty`: its type tokens, and the expression that turns the parameter
/// `ident` into a `ty`.
fn parameter(ident: &Ident, ty: &RustType) -> (TokenStream, TokenStream) {
    let tokens = rust_type(ty);
    if taken_as_is(ty) {
        (tokens, quote!(#ident))
    } else {
        (
            quote!(impl ::core::convert::Into<#tokens>),
            quote!(::core::convert::Into::into(#ident)),
        )
    }
}

/// `impl <Struct> { new(..), with_<field>(..) }`: `new` takes the required fields in the
/// order of [`StructDef::required_order`] and leaves the optional ones unset; each optional
/// field has a chainable setter `with_<field>` (the field's name without `r#`).
fn constructor_items(
    tool: &ToolModel,
    def: &StructDef,
    name: &Ident,
) -> Result<TokenStream, Error> {
    let ident_of =
        |f: &Field| field_ident(&f.ident).ok_or_else(|| bad_ident(tool, &f.ident.to_string()));
    let required = def.constructor_fields();
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for f in &required {
        let ident = ident_of(f)?;
        let (ty, expr) = parameter(&ident, &f.ty);
        params.push(quote!(#ident: #ty));
        inits.push(if taken_as_is(&f.ty) {
            quote!(#ident)
        } else {
            quote!(#ident: #expr)
        });
    }
    let mut setters = Vec::new();
    for f in def.fields.iter().filter(|f| !f.required) {
        let ident = ident_of(f)?;
        inits.push(quote!(#ident: ::core::option::Option::None));
        let inner = match &f.ty {
            RustType::Option(inner) => inner.as_ref(),
            other => other,
        };
        let (ty, expr) = parameter(&ident, inner);
        let setter = Ident::new(&format!("with_{}", f.ident.name), Span::call_site());
        let doc = docs::wrap(&setter_doc(f));
        setters.push(quote! {
            #(#[doc = #doc])*
            #[must_use]
            pub fn #setter(mut self, #ident: #ty) -> Self {
                self.#ident = ::core::option::Option::Some(#expr);
                self
            }
        });
    }
    if let Some(extra) = &def.extra {
        let ident =
            field_ident(&extra.ident).ok_or_else(|| bad_ident(tool, &extra.ident.to_string()))?;
        inits.push(quote!(#ident: ::core::default::Default::default()));
    }
    let private = private_field();
    inits.push(quote!(#private: ()));
    let doc = docs::wrap(&constructor_doc(def, &required));
    let too_many = (!params.is_empty()).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let allows = lint_allows("", &field_names(def));
    Ok(quote! {
        #[allow(dead_code)]
        #allows
        impl #name {
            #(#[doc = #doc])*
            #[must_use]
            #too_many
            pub fn new(#(#params),*) -> Self {
                Self {
                    #(#inits,)*
                }
            }

            #(#setters)*
        }
    })
}

/// The doc text of the setter of the optional field `f` (before wrapping): `Sets `name``
/// and the first line of the property's description.
fn setter_doc(f: &Field) -> String {
    let mut text = format!("Sets `{}`", docs::inline(&f.json_name.replace('`', "'")));
    match f
        .description
        .as_deref()
        .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
    {
        Some(first) => {
            text.push_str(": ");
            text.push_str(&docs::inline(&oma_mcp_runtime::text::excerpt(
                &first.trim(),
            )));
        }
        None => text.push('.'),
    }
    text
}

/// The doc text of `new` (before wrapping): the required properties it takes, in order.
fn constructor_doc(def: &StructDef, required: &[&Field]) -> String {
    let listed: Vec<String> = required
        .iter()
        .map(|f| format!("`{}`", docs::inline(&f.json_name.replace('`', "'"))))
        .collect();
    let has_optional = def.fields.iter().any(|f| !f.required);
    let mut text = if listed.is_empty() {
        "A value with no property set.".to_owned()
    } else {
        format!(
            "A value of the required properties, in the order of the schema's `required` \
             list: {}.",
            listed.join(", ")
        )
    };
    if has_optional {
        text.push_str(" Set optional properties with the `with_*` methods.");
    }
    text
}

/// The doc lines of a public field: the description, then one paragraph per note
/// (mapping, `format`, `default`, constraints); a property with neither has no doc comment
/// rather than a filler one.
fn field_doc(f: &Field) -> Vec<String> {
    let mut doc = f
        .description
        .as_deref()
        .map(docs::doc_lines)
        .unwrap_or_default();
    for note in &f.notes {
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push(format!(" {}", docs::inline(note)));
    }
    doc
}

/// Where a struct's fields are emitted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FieldUse {
    /// The public struct, with docs, and `#[serde]` attributes when `serde` (its derives read
    /// them).
    Public { serde: bool },
    /// The private helper struct a hand-written `Deserialize` reads into: `#[serde]`
    /// attributes for deserializing only, no docs.
    Wire,
}

/// The fields of a struct, then the flattened map of additional properties.
fn struct_fields(
    tool: &ToolModel,
    def: &StructDef,
    usage: FieldUse,
) -> Result<Vec<TokenStream>, Error> {
    let mut fields = def
        .fields
        .iter()
        .map(|f| field(tool, f, usage))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(extra) = &def.extra {
        let ident =
            field_ident(&extra.ident).ok_or_else(|| bad_ident(tool, &extra.ident.to_string()))?;
        let ty = rust_type(&RustType::Map(Box::new(extra.value.clone())));
        let doc = match extra.role {
            ExtraRole::Declared => " Properties beyond the declared ones (`additionalProperties`).",
            ExtraRole::Unlisted => {
                " Properties the schema does not list, kept as sent (a server may add some \
                 after the snapshot)."
            }
            ExtraRole::Untyped => " Every property (the arguments are not typed).",
        };
        fields.push(match usage {
            FieldUse::Public { serde } => {
                let flatten = serde.then(|| quote!(#[serde(flatten)]));
                quote! {
                    #[doc = #doc]
                    #flatten
                    pub #ident: #ty
                }
            }
            FieldUse::Wire => quote!(#[serde(flatten)] #ident: #ty),
        });
    }
    if let FieldUse::Public { serde } = usage {
        let private = private_field();
        let skip = serde.then(|| quote!(#[serde(skip)]));
        fields.push(quote!(#skip #private: ()));
    }
    Ok(fields)
}

/// A struct with `const` properties: no fields for them, and hand-written serde impls that
/// always write them and reject other values (a derived helper struct reads the fields).
fn const_struct_item(tool: &ToolModel, def: &StructDef) -> Result<TokenStream, Error> {
    let name = type_ident(&def.name).ok_or_else(|| bad_ident(tool, &def.name))?;
    let private = private();
    let serde = quote!(#private::serde);
    let json = quote!(#private::serde_json);
    let mut doc = docs::doc_lines(&def.doc);
    doc.push(String::new());
    let shown: Vec<String> = def
        .consts
        .iter()
        .map(|c| {
            format!(
                "`\"{}\": {}`",
                docs::inline(&c.property.replace('`', "'")),
                docs::inline(&c.value.replace('`', "'"))
            )
        })
        .collect();
    doc.push(format!(
        " Always sends {} by itself: the schema makes {} constant, so there is no field for \
         {}, and reading another value is an error.",
        shown.join(", "),
        if shown.len() == 1 { "it" } else { "them" },
        if shown.len() == 1 { "it" } else { "them" },
    ));
    doc.extend(constructor_example(def));
    let default = def.all_optional().then(|| quote!(Default,));
    // `JsonSchema` reads the `#[serde]` field attributes (its derive declares them); without
    // it nothing else would, so the public struct carries them only then.
    let (schemars_derive, schemars_attr) = schemars_derive(tool, &def.name);
    let schemars_consts = derives_schemars(tool, &def.name).then(|| {
        let entries = def.consts.iter().map(|c| {
            let (property, value, required) = (&c.property, &c.value, c.required);
            quote!((#property, #value, #required))
        });
        quote! {
            #[schemars(transform = &mut |schema: &mut #private::schemars::Schema| {
                #private::schema_consts(schema, &[#(#entries),*]);
            })]
        }
    });
    let fields = struct_fields(
        tool,
        def,
        FieldUse::Public {
            serde: derives_schemars(tool, &def.name),
        },
    )?;
    let wire_fields = struct_fields(tool, def, FieldUse::Wire)?;
    let const_idents = def
        .consts
        .iter()
        .map(|c| field_ident(&c.ident).ok_or_else(|| bad_ident(tool, &c.ident.to_string())))
        .collect::<Result<Vec<_>, Error>>()?;
    let mut wire_consts = Vec::new();
    let mut checks = Vec::new();
    let mut writes = Vec::new();
    for (c, ident) in def.consts.iter().zip(&const_idents) {
        let (property, value) = (&c.property, &c.value);
        writes.push(quote! {
            map.serialize_entry(#property, &#private::const_value::<S::Error>(#value)?)?;
        });
        if c.required {
            wire_consts.push(quote!(#[serde(rename = #property)] #ident: #json::Value));
            checks.push(quote!(#private::check_const::<D::Error>(#property, #value, ::core::option::Option::Some(&wire.#ident))?;));
        } else {
            wire_consts.push(quote!(
                #[serde(rename = #property, default)]
                #ident: ::core::option::Option<#json::Value>
            ));
            checks.push(quote!(#private::check_const::<D::Error>(#property, #value, wire.#ident.as_ref())?;));
        }
    }
    for f in &def.fields {
        let ident = field_ident(&f.ident).ok_or_else(|| bad_ident(tool, &f.ident.to_string()))?;
        let property = &f.json_name;
        writes.push(if f.required {
            quote!(map.serialize_entry(#property, &self.#ident)?;)
        } else {
            quote! {
                if let ::core::option::Option::Some(value) = &self.#ident {
                    map.serialize_entry(#property, value)?;
                }
            }
        });
    }
    let mut moved = def
        .fields
        .iter()
        .map(|f| field_ident(&f.ident).ok_or_else(|| bad_ident(tool, &f.ident.to_string())))
        .collect::<Result<Vec<_>, Error>>()?;
    if let Some(extra) = &def.extra {
        let ident =
            field_ident(&extra.ident).ok_or_else(|| bad_ident(tool, &extra.ident.to_string()))?;
        writes.push(quote! {
            for (key, value) in &self.#ident {
                map.serialize_entry(key, value)?;
            }
        });
        moved.push(ident);
    }
    let serde_crate = private_path("serde");
    let allows = lint_allows(&def.name, &field_names(def));
    let wire_allows = lint_allows("", &field_names(def));
    let private = private_field();
    let constructor = constructor_items(tool, def, &name)?;
    Ok(quote! {
        #(#[doc = #doc])*
        #[allow(dead_code, clippy::type_complexity)]
        #allows
        #[derive(Debug, Clone, PartialEq, #default #schemars_derive)]
        #schemars_attr
        #schemars_consts
        pub struct #name {
            #(#fields,)*
        }

        impl #serde::Serialize for #name {
            fn serialize<S: #serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                use #serde::ser::SerializeMap as _;
                let mut map = #serde::Serializer::serialize_map(serializer, ::core::option::Option::None)?;
                #(#writes)*
                map.end()
            }
        }

        impl<'de> #serde::Deserialize<'de> for #name {
            fn deserialize<D: #serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #[allow(clippy::type_complexity)]
                #wire_allows
                #[derive(#serde::Deserialize)]
                #[serde(crate = #serde_crate)]
                struct Wire {
                    #(#wire_consts,)*
                    #(#wire_fields,)*
                }
                let wire = <Wire as #serde::Deserialize>::deserialize(deserializer)?;
                #(#checks)*
                ::core::result::Result::Ok(Self {
                    #(#moved: wire.#moved,)*
                    #private: (),
                })
            }
        }

        #constructor
    })
}

fn field(tool: &ToolModel, f: &Field, usage: FieldUse) -> Result<TokenStream, Error> {
    let ident = field_ident(&f.ident).ok_or_else(|| Error::InvalidIdentifier {
        tool: tool.mcp_name.clone(),
        pointer: f.pointer.clone(),
        ident: f.ident.to_string(),
    })?;
    let optional = !f.required;
    let ty = if optional && !f.ty.is_option() {
        rust_type(&RustType::Option(Box::new(f.ty.clone())))
    } else {
        rust_type(&f.ty)
    };
    let mut serde_args = Vec::new();
    if names::needs_rename(&f.ident, &f.json_name) {
        let json = &f.json_name;
        serde_args.push(quote!(rename = #json));
    }
    if optional && usage == FieldUse::Wire {
        serde_args.push(quote!(default));
    } else if optional {
        serde_args.push(quote!(
            skip_serializing_if = "::core::option::Option::is_none",
            default
        ));
    } else if f.ty.is_option() {
        // Required but nullable: serde would read a missing `Option` field as `None`, so an
        // untagged union would take this struct for an object that lacks the field.
        let required_nullable = private_path("required_nullable");
        serde_args.push(quote!(deserialize_with = #required_nullable));
    }
    let serde_attr = (usage != FieldUse::Public { serde: false } && !serde_args.is_empty())
        .then(|| quote!(#[serde(#(#serde_args),*)]));
    if usage == FieldUse::Wire {
        return Ok(quote!(#serde_attr #ident: #ty));
    }
    let doc = field_doc(f);
    Ok(quote! {
        #(#[doc = #doc])*
        #serde_attr
        pub #ident: #ty
    })
}

/// [`Error::InvalidIdentifier`] for `ident` of `tool`: a name the generator computed is not a
/// Rust identifier (a bug in this crate, never the input's fault).
fn bad_ident(tool: &ToolModel, ident: &str) -> Error {
    Error::InvalidIdentifier {
        tool: tool.mcp_name.clone(),
        pointer: "/inputSchema".to_owned(),
        ident: ident.to_owned(),
    }
}

fn enum_item(tool: &ToolModel, def: &EnumDef) -> Result<TokenStream, Error> {
    if def.open {
        return open_enum_item(tool, def);
    }
    let bad = |ident: &str| bad_ident(tool, ident);
    let name = type_ident(&def.name).ok_or_else(|| bad(&def.name))?;
    let doc = docs::doc_lines(&def.doc);
    let variants = def
        .variants
        .iter()
        .map(|v| {
            let ident = type_ident(&v.ident).ok_or_else(|| bad(&v.ident))?;
            let value = &v.value;
            let doc = format!(" The value \"{}\".", docs::inline(value));
            Ok(quote! {
                #[doc = #doc]
                #[serde(rename = #value)]
                #ident
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let idents = def
        .variants
        .iter()
        .map(|v| type_ident(&v.ident).ok_or_else(|| bad(&v.ident)))
        .collect::<Result<Vec<_>, Error>>()?;
    let values: Vec<&str> = def.variants.iter().map(|v| v.value.as_str()).collect();
    let attrs = serde_type_attrs(
        tool,
        &def.name,
        quote!(Debug, Clone, Copy, PartialEq, Eq, Hash,),
        quote!(),
    );
    let variant_allows = variant_lint_allows(def);
    Ok(quote! {
        #(#[doc = #doc])*
        #attrs
        #variant_allows
        pub enum #name {
            #(#variants,)*
        }

        #[allow(dead_code, clippy::type_complexity)]
        impl #name {
            /// Every value the schema allows, in schema order.
            pub const VALUES: &'static [&'static str] = &[#(#values),*];

            /// The JSON string of this value.
            pub const fn as_str(&self) -> &'static str {
                match self {
                    #(Self::#idents => #values,)*
                }
            }
        }

        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::core::str::FromStr for #name {
            type Err = ::oma_mcp_runtime::typed::UnknownEnumValue;

            fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                match s {
                    #(#values => ::core::result::Result::Ok(Self::#idents),)*
                    _ => ::core::result::Result::Err(
                        ::oma_mcp_runtime::typed::UnknownEnumValue::new(s, Self::VALUES),
                    ),
                }
            }
        }
    })
}

/// `#[allow(non_camel_case_types)]` when a variant's name is tagged (`Unknown_h…`).
fn variant_lint_allows(def: &EnumDef) -> TokenStream {
    if def
        .variants
        .iter()
        .all(|v| names::is_lint_camel_case(&v.ident))
    {
        TokenStream::new()
    } else {
        quote!(#[allow(non_camel_case_types)])
    }
}

/// An output string enum: the schema's values, then `Unknown(String)` holding any other
/// value as sent, so a value the server adds after the snapshot still deserializes (and
/// serializes back unchanged). Hand-written serde impls: a JSON string either way.
fn open_enum_item(tool: &ToolModel, def: &EnumDef) -> Result<TokenStream, Error> {
    let bad = |ident: &str| bad_ident(tool, ident);
    let name = type_ident(&def.name).ok_or_else(|| bad(&def.name))?;
    let unknown = Ident::new(UNKNOWN_VARIANT, Span::call_site());
    let mut doc = docs::doc_lines(&def.doc);
    doc.push(String::new());
    doc.push(format!(
        " A value the schema does not list is kept as sent in [`{}::{UNKNOWN_VARIANT}`].",
        def.name
    ));
    let idents = def
        .variants
        .iter()
        .map(|v| type_ident(&v.ident).ok_or_else(|| bad(&v.ident)))
        .collect::<Result<Vec<_>, Error>>()?;
    let values: Vec<&str> = def.variants.iter().map(|v| v.value.as_str()).collect();
    let variant_docs: Vec<String> = values
        .iter()
        .map(|v| format!(" The value \"{}\".", docs::inline(v)))
        .collect();
    let private = private();
    let serde = quote!(#private::serde);
    let schemars = derives_schemars(tool, &def.name).then(|| {
        let schemars = quote!(#private::schemars);
        let json = quote!(#private::serde_json);
        let type_name = &def.name;
        quote! {
            impl #schemars::JsonSchema for #name {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(#type_name)
                }

                fn json_schema(_: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                    let mut schema = #json::Map::new();
                    schema.insert("type".into(), "string".into());
                    schema.insert(
                        "examples".into(),
                        Self::VALUES.iter().map(|v| #json::Value::from(*v)).collect(),
                    );
                    #schemars::Schema::from(schema)
                }
            }
        }
    });
    let allows = lint_allows(&def.name, &[]);
    let variant_allows = variant_lint_allows(def);
    Ok(quote! {
        #(#[doc = #doc])*
        #[allow(dead_code, clippy::type_complexity)]
        #allows
        #variant_allows
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum #name {
            #(
                #[doc = #variant_docs]
                #idents,
            )*
            /// A value the schema does not list (added by the server after the snapshot), as sent.
            #unknown(::std::string::String),
        }

        #[allow(dead_code, clippy::type_complexity)]
        impl #name {
            /// Every value the schema lists, in schema order.
            pub const VALUES: &'static [&'static str] = &[#(#values),*];

            /// The JSON string of this value.
            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#idents => #values,)*
                    Self::#unknown(value) => value,
                }
            }
        }

        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::core::convert::From<&str> for #name {
            fn from(value: &str) -> Self {
                match value {
                    #(#values => Self::#idents,)*
                    other => Self::#unknown(::std::borrow::ToOwned::to_owned(other)),
                }
            }
        }

        impl ::core::str::FromStr for #name {
            type Err = ::core::convert::Infallible;

            fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                ::core::result::Result::Ok(::core::convert::From::from(s))
            }
        }

        impl #serde::Serialize for #name {
            fn serialize<S: #serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> #serde::Deserialize<'de> for #name {
            fn deserialize<D: #serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let value = <::std::string::String as #serde::Deserialize>::deserialize(deserializer)?;
                ::core::result::Result::Ok(match <Self as ::core::convert::From<&str>>::from(&value) {
                    Self::#unknown(_) => Self::#unknown(value),
                    known => known,
                })
            }
        }

        #schemars
    })
}

/// An enum of exact JSON values, with hand-written serde impls that write and accept
/// exactly those values (compared as `serde_json::Value`s).
fn exact_item(tool: &ToolModel, def: &ExactEnumDef) -> Result<TokenStream, Error> {
    let bad = |ident: &str| bad_ident(tool, ident);
    let name = type_ident(&def.name).ok_or_else(|| bad(&def.name))?;
    let mut doc = docs::doc_lines(&def.doc);
    doc.push(String::new());
    doc.push(
        " Serializes to exactly the schema's JSON value and accepts only those values.".to_owned(),
    );
    let idents = def
        .variants
        .iter()
        .map(|(ident, _)| type_ident(ident).ok_or_else(|| bad(ident)))
        .collect::<Result<Vec<_>, Error>>()?;
    let jsons: Vec<&str> = def.variants.iter().map(|(_, json)| json.as_str()).collect();
    let variant_docs: Vec<String> = jsons
        .iter()
        .map(|j| format!(" The JSON value `{}`.", docs::inline(&j.replace('`', "'"))))
        .collect();
    let single = def.variants.len() == 1;
    let (default_derive, default_attr) = if single {
        (quote!(Default,), quote!(#[default]))
    } else {
        (quote!(), quote!())
    };
    let first_attr = idents.iter().enumerate().map(|(i, _)| {
        if i == 0 {
            default_attr.clone()
        } else {
            quote!()
        }
    });
    let private = private();
    let serde = quote!(#private::serde);
    let json = quote!(#private::serde_json);
    let exact_schema = derives_schemars(tool, &def.name).then(|| {
        let schemars = quote!(#private::schemars);
        let type_name = &def.name;
        quote! {
            impl #schemars::JsonSchema for #name {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(#type_name)
                }

                fn json_schema(_: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                    let values = Self::VALUES
                        .iter()
                        .filter_map(|v| #json::from_str::<#json::Value>(v).ok())
                        .collect();
                    let mut schema = #json::Map::new();
                    schema.insert("enum".into(), #json::Value::Array(values));
                    #schemars::Schema::from(schema)
                }
            }
        }
    });
    let allows = lint_allows(&def.name, &[]);
    Ok(quote! {
        #(#[doc = #doc])*
        #[allow(dead_code, clippy::type_complexity)]
        #allows
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, #default_derive)]
        pub enum #name {
            #(
                #[doc = #variant_docs]
                #first_attr
                #idents,
            )*
        }

        #[allow(dead_code, clippy::type_complexity)]
        impl #name {
            /// Every value the schema allows, as JSON text, in schema order.
            pub const VALUES: &'static [&'static str] = &[#(#jsons),*];

            /// This value as JSON text.
            pub const fn as_json(&self) -> &'static str {
                match self {
                    #(Self::#idents => #jsons,)*
                }
            }
        }

        impl #serde::Serialize for #name {
            fn serialize<S: #serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                let value: #json::Value = #json::from_str(self.as_json())
                    .map_err(<S::Error as #serde::ser::Error>::custom)?;
                #serde::Serialize::serialize(&value, serializer)
            }
        }

        #exact_schema

        impl<'de> #serde::Deserialize<'de> for #name {
            fn deserialize<D: #serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let value = <#json::Value as #serde::Deserialize>::deserialize(deserializer)?;
                #(
                    if #json::from_str::<#json::Value>(#jsons)
                        .is_ok_and(|v| #private::json_equal(&v, &value))
                    {
                        return ::core::result::Result::Ok(Self::#idents);
                    }
                )*
                ::core::result::Result::Err(<D::Error as #serde::de::Error>::custom(
                    ::std::format!("expected one of {}, found {}", Self::VALUES.join(", "), value),
                ))
            }
        }
    })
}

/// A `#[serde(tag)]` enum.
fn tagged_item(tool: &ToolModel, def: &TaggedEnumDef) -> Result<TokenStream, Error> {
    let bad = |ident: &str| bad_ident(tool, ident);
    let name = type_ident(&def.name).ok_or_else(|| bad(&def.name))?;
    let doc = docs::doc_lines(&def.doc);
    let tag = &def.tag;
    let variants = def
        .variants
        .iter()
        .map(|v| {
            let ident = type_ident(&v.ident).ok_or_else(|| bad(&v.ident))?;
            let value = &v.value;
            let doc = format!(
                " `\"{}\": \"{}\"`.",
                docs::inline(tag),
                docs::inline(&value.replace('`', "'"))
            );
            let payload = match &v.payload {
                Some(p) => {
                    let p = type_ident(p).ok_or_else(|| bad(p))?;
                    quote!((#p))
                }
                None => quote!(),
            };
            Ok(quote! {
                #[doc = #doc]
                #[serde(rename = #value)]
                #ident #payload
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let attrs = serde_type_attrs(
        tool,
        &def.name,
        quote!(Debug, Clone, PartialEq,),
        quote!(, tag = #tag),
    );
    Ok(quote! {
        #(#[doc = #doc])*
        #attrs
        pub enum #name {
            #(#variants,)*
        }
    })
}

/// A `#[serde(untagged)]` enum.
fn untagged_item(tool: &ToolModel, def: &UntaggedEnumDef) -> Result<TokenStream, Error> {
    let bad = |ident: &str| bad_ident(tool, ident);
    let name = type_ident(&def.name).ok_or_else(|| bad(&def.name))?;
    let doc = docs::doc_lines(&def.doc);
    let variants = def
        .variants
        .iter()
        .map(|v| {
            let ident = type_ident(&v.ident).ok_or_else(|| bad(&v.ident))?;
            let ty = rust_type(&v.ty);
            let doc = docs::doc_lines(&v.doc);
            Ok(quote! {
                #(#[doc = #doc])*
                #ident(#ty)
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let attrs = serde_type_attrs(
        tool,
        &def.name,
        quote!(Debug, Clone, PartialEq,),
        quote!(, untagged),
    );
    Ok(quote! {
        #(#[doc = #doc])*
        #attrs
        pub enum #name {
            #(#variants,)*
        }
    })
}

/// The tokens of a type.
fn rust_type(ty: &RustType) -> TokenStream {
    match ty {
        RustType::String => quote!(::std::string::String),
        RustType::Int(int) => {
            let ident = Ident::new(int.name(), Span::call_site());
            quote!(#ident)
        }
        RustType::Tuple(items) => {
            let items = items.iter().map(rust_type);
            quote!((#(#items,)*))
        }
        RustType::Map(value) => {
            let value = rust_type(value);
            quote!(::std::collections::BTreeMap<::std::string::String, #value>)
        }
        RustType::Boxed(inner) => {
            let inner = rust_type(inner);
            quote!(::std::boxed::Box<#inner>)
        }
        RustType::F64 => quote!(f64),
        RustType::Bool => quote!(bool),
        RustType::Vec(item) => {
            let item = rust_type(item);
            quote!(::std::vec::Vec<#item>)
        }
        RustType::JsonMap => {
            let private = private();
            quote!(#private::serde_json::Map<::std::string::String, #private::serde_json::Value>)
        }
        RustType::Value => {
            let private = private();
            quote!(#private::serde_json::Value)
        }
        RustType::Option(inner) => {
            let inner = rust_type(inner);
            quote!(::core::option::Option<#inner>)
        }
        // Checked when the type itself is emitted; a bad name here means a bug, and the
        // parse of the emitted item reports it.
        RustType::Named(name) => match type_ident(name) {
            Some(ident) => quote!(#ident),
            None => rust_type(&RustType::Value),
        },
    }
}

/// `#[allow(..)]` for the lints a type's name (`non_camel_case_types`: a tagged name such
/// as `SearchA_h…`, or a user-chosen one; `""` checks none) or its fields
/// (`non_snake_case`: tagged fields such as `foo_bar__h…`) would trip; nothing when none.
fn lint_allows(name: &str, fields: &[&RustIdent]) -> TokenStream {
    let lints = lint_list(name, fields);
    if lints.is_empty() {
        return TokenStream::new();
    }
    let lints = lints.iter().map(|lint| Ident::new(lint, Span::call_site()));
    quote!(#[allow(#(#lints),*)])
}

/// The lints [`lint_allows`] exempts a type `name` (empty: none to check) with `fields` from:
/// `non_camel_case_types` for a name rustc's lint rejects, `non_snake_case` when a field's is.
fn lint_list(name: &str, fields: &[&RustIdent]) -> Vec<&'static str> {
    let mut lints = Vec::new();
    if !name.is_empty() && !names::is_lint_camel_case(name) {
        lints.push("non_camel_case_types");
    }
    if fields.iter().any(|f| !names::is_lint_snake_case(&f.name)) {
        lints.push("non_snake_case");
    }
    lints
}

/// Every field identifier of a struct: properties, `const` properties, the extra map.
fn field_names(def: &StructDef) -> Vec<&RustIdent> {
    def.fields
        .iter()
        .map(|f| &f.ident)
        .chain(def.consts.iter().map(|c| &c.ident))
        .chain(def.extra.iter().map(|e| &e.ident))
        .collect()
}

/// A type or variant identifier, `None` unless `name` is a plain identifier.
fn type_ident(name: &str) -> Option<Ident> {
    names::is_plain_ident(name).then(|| Ident::new(name, Span::call_site()))
}

/// A field identifier (maybe raw), `None` unless it is valid.
fn field_ident(ident: &RustIdent) -> Option<Ident> {
    if !names::is_valid(ident) {
        return None;
    }
    Some(if ident.raw {
        Ident::new_raw(&ident.name, Span::call_site())
    } else {
        Ident::new(&ident.name, Span::call_site())
    })
}
