//! The type model: plain data with honest `Eq`/`Ord`, no text (the `emit` module writes the
//! code from it).

use super::super::identifiers::RustIdent;

/// A Rust integer type, chosen by `format` or by `minimum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum IntType {
    /// `i8` (`format: int8`).
    I8,
    /// `i16` (`format: int16`).
    I16,
    /// `i32` (`format: int32`).
    I32,
    /// `i64`: the default.
    I64,
    /// `u8` (`format: uint8`).
    U8,
    /// `u16` (`format: uint16`).
    U16,
    /// `u32` (`format: uint32`).
    U32,
    /// `u64` (`format: uint64`, or `minimum >= 0` without a format).
    U64,
}

impl IntType {
    /// The Rust name of the type.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::I8 => "i8",
            Self::I16 => "i16",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
        }
    }
}

/// The Rust type of a field, an array item, a map value or a union variant.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RustType {
    /// `String`.
    String,
    /// An integer type.
    Int(IntType),
    /// `f64`.
    F64,
    /// `bool`.
    Bool,
    /// `Vec<T>`.
    Vec(Box<RustType>),
    /// A tuple `(A, B, ..)` (a fixed-length array with per-position schemas).
    Tuple(Vec<RustType>),
    /// `BTreeMap<String, T>` (an object with typed `additionalProperties`).
    Map(Box<RustType>),
    /// `serde_json::Map<String, serde_json::Value>`.
    JsonMap,
    /// `serde_json::Value`.
    Value,
    /// `Option<T>` (a nullable value; never nested).
    Option(Box<RustType>),
    /// `Box<T>`: a recursive reference back to a type being defined.
    Boxed(Box<RustType>),
    /// A struct or enum generated in the same module.
    Named(String),
}

impl RustType {
    /// The `i64` type.
    #[cfg(test)]
    pub(crate) const I64: Self = Self::Int(IntType::I64);

    /// `Option<self>`, without nesting options.
    pub(crate) fn nullable(self) -> Self {
        match self {
            Self::Option(_) => self,
            other => Self::Option(Box::new(other)),
        }
    }

    /// Whether this is an `Option<_>`.
    pub(crate) fn is_option(&self) -> bool {
        matches!(self, Self::Option(_))
    }

    /// Without a `Box` around it: containers (`Vec`, maps) need no box for recursion.
    pub(crate) fn unboxed(self) -> Self {
        match self {
            Self::Boxed(inner) => *inner,
            other => other,
        }
    }
}

/// A field of a generated struct.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Field {
    /// The Rust field name.
    pub ident: RustIdent,
    /// The JSON property name.
    pub json_name: String,
    /// The declared type; optional fields are wrapped in `Option` by the emitter.
    pub ty: RustType,
    /// Whether the schema lists the property in `required`. A required `Option` field is
    /// sent as `null` when `None`; an optional one is left out.
    pub required: bool,
    /// The property's `description`.
    pub description: Option<String>,
    /// Notes on how the schema was mapped, its `format` and `default` (for the doc comment).
    pub notes: Vec<String>,
    /// JSON pointer to the property's schema in the tool descriptor.
    pub pointer: String,
}

/// A property whose schema is a `const` (of any JSON type): the struct has no field for it,
/// always sends it by itself (hand-written `Serialize`), and rejects any other value when
/// deserializing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ConstProperty {
    /// The name of the property in the deserializing helper struct (distinct from the
    /// fields' names).
    pub ident: RustIdent,
    /// The JSON property name.
    pub property: String,
    /// The constant value as canonical JSON text.
    pub value: String,
    /// Whether the schema lists the property in `required` (then it must be present when
    /// deserializing).
    pub required: bool,
}

/// The `#[serde(flatten)]` map that holds properties beyond the declared ones: when
/// `additionalProperties` is a schema, in an output struct whatever the schema says (so a
/// property the server adds later is kept), and in an argument struct the schema cannot type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ExtraField {
    /// The Rust field name (`additional_properties` unless a property has it).
    pub ident: RustIdent,
    /// The value type of the map.
    pub value: RustType,
    /// Why the map is there, for its doc comment.
    pub role: ExtraRole,
}

/// Why a struct has an [`ExtraField`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum ExtraRole {
    /// The schema's `additionalProperties` is a schema: the map's values follow it.
    Declared,
    /// An output struct keeps the properties its schema does not list (values as sent).
    Unlisted,
    /// An argument type the schema cannot type: every property is in the map.
    Untyped,
}

/// A generated struct.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct StructDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text (the schema's description, or a generated sentence).
    pub doc: String,
    /// The fields, in the schema's property order.
    pub fields: Vec<Field>,
    /// The `const` properties the struct sends by itself, in the schema's property order.
    pub consts: Vec<ConstProperty>,
    /// The map of additional properties.
    pub extra: Option<ExtraField>,
    /// The JSON names of the required fields in the order the constructor `new` takes them:
    /// the order of the schema's `required` list (for merged schemas, each part's list in
    /// turn), each name once; names without a field (a `const`, an undeclared property) are
    /// left out.
    pub required_order: Vec<String>,
}

impl StructDef {
    /// A struct with fields only; the constructor takes the required ones in field order.
    pub(crate) fn new(name: impl Into<String>, doc: impl Into<String>, fields: Vec<Field>) -> Self {
        let required_order = fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.json_name.clone())
            .collect();
        Self {
            name: name.into(),
            doc: doc.into(),
            fields,
            consts: Vec::new(),
            extra: None,
            required_order,
        }
    }

    /// The required fields in constructor order: those of [`StructDef::required_order`] in
    /// its order, then any other required field in field order.
    pub(crate) fn constructor_fields(&self) -> Vec<&Field> {
        let mut fields: Vec<&Field> = self
            .required_order
            .iter()
            .filter_map(|json| {
                self.fields
                    .iter()
                    .find(|f| f.required && f.json_name == *json)
            })
            .collect();
        for f in &self.fields {
            if f.required && !self.required_order.contains(&f.json_name) {
                fields.push(f);
            }
        }
        fields
    }

    /// Whether every field is an `Option` (then the struct derives `Default`).
    pub(crate) fn all_optional(&self) -> bool {
        self.fields.iter().all(|f| !f.required || f.ty.is_option())
    }
}

/// A variant of a generated string enum.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Variant {
    /// The Rust variant name.
    pub ident: String,
    /// The JSON string value.
    pub value: String,
}

/// A generated string enum (`Display`, `FromStr`, `as_str`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct EnumDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text.
    pub doc: String,
    /// The variants, in the schema's order, one per distinct value.
    pub variants: Vec<Variant>,
    /// Whether the enum also holds the values the schema does not list, in a last variant
    /// [`UNKNOWN_VARIANT`]`(String)`: output enums are open (a value the server adds later
    /// still deserializes, as the raw string), argument enums closed (the schema is the
    /// contract for what is sent).
    pub open: bool,
}

/// The variant of an open [`EnumDef`] that holds a value the schema does not list. A schema
/// value whose variant would get this name is tagged instead (`Unknown_h…`, see
/// `identifiers::variant_idents`), so the name never passes between the catch-all and a value.
pub(crate) const UNKNOWN_VARIANT: &str = "Unknown";

/// A generated enum over exact JSON values that are not all strings (an `enum` of numbers,
/// a `const`): it serializes to exactly the schema's value and accepts only those values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ExactEnumDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text.
    pub doc: String,
    /// `(variant name, canonical JSON of the value)`, in schema order. A single variant (a
    /// `const`) makes the type `Default`.
    pub variants: Vec<(String, String)>,
}

/// A variant of a tagged union.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct TaggedVariant {
    /// The Rust variant name.
    pub ident: String,
    /// The discriminator's value.
    pub value: String,
    /// The struct with the branch's other properties; `None` when it has none (a unit
    /// variant).
    pub payload: Option<String>,
}

/// A `oneOf`/`anyOf` of objects that share a constant discriminator property:
/// `#[serde(tag = "<tag>")]`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct TaggedEnumDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text.
    pub doc: String,
    /// The discriminator property.
    pub tag: String,
    /// One variant per branch, in schema order.
    pub variants: Vec<TaggedVariant>,
}

/// A variant of an untagged union.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct UntaggedVariant {
    /// The Rust variant name.
    pub ident: String,
    /// The branch's type.
    pub ty: RustType,
    /// Doc text (the branch's description, or its JSON type).
    pub doc: String,
}

/// A union whose branches a JSON value's shape tells apart: `#[serde(untagged)]`, tried in
/// variant order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct UntaggedEnumDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text.
    pub doc: String,
    /// The variants, in the order serde tries them.
    pub variants: Vec<UntaggedVariant>,
}

/// `pub type <name> = <ty>;`: an output type whose schema is neither an object nor a union
/// (`integer`, an array, a `$ref`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct AliasDef {
    /// The Rust type name.
    pub name: String,
    /// Doc text.
    pub doc: String,
    /// The aliased type.
    pub ty: RustType,
}

/// A generated type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum TypeDef {
    /// A type alias.
    Alias(AliasDef),
    /// A struct.
    Struct(StructDef),
    /// A string enum.
    Enum(EnumDef),
    /// An enum of exact JSON values.
    Exact(ExactEnumDef),
    /// A tagged union.
    Tagged(TaggedEnumDef),
    /// An untagged union.
    Untagged(UntaggedEnumDef),
}

impl TypeDef {
    /// The Rust type name.
    pub(crate) fn name(&self) -> &str {
        match self {
            Self::Alias(d) => &d.name,
            Self::Struct(d) => &d.name,
            Self::Enum(d) => &d.name,
            Self::Exact(d) => &d.name,
            Self::Tagged(d) => &d.name,
            Self::Untagged(d) => &d.name,
        }
    }

    /// The doc text.
    pub(crate) fn doc(&self) -> &str {
        match self {
            Self::Alias(d) => &d.doc,
            Self::Struct(d) => &d.doc,
            Self::Enum(d) => &d.doc,
            Self::Exact(d) => &d.doc,
            Self::Tagged(d) => &d.doc,
            Self::Untagged(d) => &d.doc,
        }
    }

    /// Replaces the doc text.
    pub(crate) fn set_doc(&mut self, doc: String) {
        match self {
            Self::Alias(d) => d.doc = doc,
            Self::Struct(d) => d.doc = doc,
            Self::Enum(d) => d.doc = doc,
            Self::Exact(d) => d.doc = doc,
            Self::Tagged(d) => d.doc = doc,
            Self::Untagged(d) => d.doc = doc,
        }
    }
}
