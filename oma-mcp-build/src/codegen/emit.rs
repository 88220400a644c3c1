//! The type model → tokens (`quote!`) → `syn::File` → text (`prettyplease`).
//!
//! Everything outside the generated module is named by an absolute path (`::core::…`,
//! `::std::…`, `::oma_mcp_runtime::…`), so a tool called `option` or `string` cannot shadow
//! what the code uses.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::ToolModel;
use super::docs;
use super::names::{self, RustIdent};
use super::schema::{EnumDef, Field, RustType, StructDef, TypeDef};
use crate::error::Error;

/// The whole file: `header`, `TOOL_NAMES`, then each tool's items.
pub(crate) fn file(header: &str, tools: &[ToolModel]) -> Result<String, Error> {
    let names = tools.iter().map(|t| t.mcp_name.as_str());
    let module = quote! {
        /// The raw MCP names of the tools in this module, in snapshot order.
        #[allow(dead_code)]
        pub const TOOL_NAMES: &[&str] = &[#(#names),*];
    };
    let mut items = parse("", module)?.items;
    for tool in tools {
        items.extend(parse(&tool.mcp_name, tool_items(tool)?)?.items);
    }
    // One item at a time, so a blank line separates items.
    let mut out = String::from(header);
    let mut single = parse("", TokenStream::new())?;
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        single.items = vec![item];
        out.push_str(&prettyplease::unparse(&single));
    }
    Ok(out)
}

fn parse(tool: &str, tokens: TokenStream) -> Result<syn::File, Error> {
    syn::parse2(tokens).map_err(|e| Error::InvalidGeneratedCode {
        tool: tool.to_owned(),
        reason: e.to_string(),
    })
}

/// The marker type, its `McpTool` impl, and the argument types.
fn tool_items(tool: &ToolModel) -> Result<TokenStream, Error> {
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
    let mut tokens = quote! {
        #(#[doc = #doc])*
        #[allow(dead_code)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct #marker;

        impl ::oma_mcp_runtime::McpTool for #marker {
            type Args = #args;
            const MCP_NAME: &'static str = #mcp_name;
            const NAME: &'static str = #name;
            const DESCRIPTION: ::core::option::Option<&'static str> = #description;
            const INPUT_SCHEMA: &'static str = #input_schema;
            const DIGEST: &'static str = #digest;
            const CONSEQUENTIAL: bool = #consequential;
        }
    };
    for def in &tool.types {
        tokens.extend(match def {
            TypeDef::Struct(s) => struct_item(tool, s)?,
            TypeDef::Enum(e) => enum_item(tool, e)?,
        });
    }
    Ok(tokens)
}

const SERDE_CRATE: &str = "::oma_mcp_runtime::__private::serde";

fn struct_item(tool: &ToolModel, def: &StructDef) -> Result<TokenStream, Error> {
    let name = type_ident(&def.name).ok_or_else(|| Error::InvalidIdentifier {
        tool: tool.mcp_name.clone(),
        pointer: "/inputSchema".to_owned(),
        ident: def.name.clone(),
    })?;
    let doc = docs::doc_lines(&def.doc);
    let default = def.all_optional().then(|| quote!(Default,));
    let fields = def
        .fields
        .iter()
        .map(|f| field(tool, f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(quote! {
        #(#[doc = #doc])*
        #[allow(dead_code)]
        #[derive(
            Debug,
            Clone,
            PartialEq,
            #default
            ::oma_mcp_runtime::__private::serde::Serialize,
            ::oma_mcp_runtime::__private::serde::Deserialize
        )]
        #[serde(crate = #SERDE_CRATE)]
        pub struct #name {
            #(#fields,)*
        }
    })
}

fn field(tool: &ToolModel, f: &Field) -> Result<TokenStream, Error> {
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
    if optional {
        serde_args.push(quote!(
            skip_serializing_if = "::core::option::Option::is_none",
            default
        ));
    }
    let serde_attr = (!serde_args.is_empty()).then(|| quote!(#[serde(#(#serde_args),*)]));
    let mut doc = f
        .description
        .as_deref()
        .map(docs::doc_lines)
        .unwrap_or_default();
    if doc.is_empty() {
        doc.push(format!(" The \"{}\" property.", docs::inline(&f.json_name)));
    }
    for note in &f.notes {
        doc.push(String::new());
        doc.push(format!(" {}", docs::inline(note)));
    }
    Ok(quote! {
        #(#[doc = #doc])*
        #serde_attr
        pub #ident: #ty
    })
}

fn enum_item(tool: &ToolModel, def: &EnumDef) -> Result<TokenStream, Error> {
    let bad = |ident: &str| Error::InvalidIdentifier {
        tool: tool.mcp_name.clone(),
        pointer: "/inputSchema".to_owned(),
        ident: ident.to_owned(),
    };
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
    Ok(quote! {
        #(#[doc = #doc])*
        #[allow(dead_code)]
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Hash,
            ::oma_mcp_runtime::__private::serde::Serialize,
            ::oma_mcp_runtime::__private::serde::Deserialize
        )]
        #[serde(crate = #SERDE_CRATE)]
        pub enum #name {
            #(#variants,)*
        }
    })
}

/// The tokens of a type.
fn rust_type(ty: &RustType) -> TokenStream {
    match ty {
        RustType::String => quote!(::std::string::String),
        RustType::I64 => quote!(i64),
        RustType::F64 => quote!(f64),
        RustType::Bool => quote!(bool),
        RustType::Vec(item) => {
            let item = rust_type(item);
            quote!(::std::vec::Vec<#item>)
        }
        RustType::JsonMap => quote! {
            ::oma_mcp_runtime::__private::serde_json::Map<
                ::std::string::String,
                ::oma_mcp_runtime::__private::serde_json::Value
            >
        },
        RustType::Value => quote!(::oma_mcp_runtime::__private::serde_json::Value),
        RustType::Option(inner) => {
            let inner = rust_type(inner);
            quote!(::core::option::Option<#inner>)
        }
        // Checked when the type itself is emitted; a bad name here means a bug, and the
        // parse of the emitted item reports it.
        RustType::Named(name) => match type_ident(name) {
            Some(ident) => quote!(#ident),
            None => quote!(::oma_mcp_runtime::__private::serde_json::Value),
        },
    }
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
