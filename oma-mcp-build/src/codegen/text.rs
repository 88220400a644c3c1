//! Generated items written as text, in exactly the layout prettyplease gives them.
//!
//! The generator's token path builds tokens (`quote!`), parses them into a `syn::File` and
//! formats that with prettyplease; per item that costs far more than the text itself. The
//! item shapes that make up most of a module (see `emit/direct.rs`) are written with this
//! [`Writer`] instead, line by line.
//!
//! prettyplease lays code out with Oppen's algorithm: a *block* (a group of possible line
//! breaks, such as a generic argument list or a parameter list) stays on one line when the
//! text from the block's start up to the next possible break after its end fits before
//! column [`MARGIN`] (or [`MIN_SPACE`] past a deep line's indentation: [`limit`]);
//! otherwise every break of the block becomes a new line ("consistent" blocks, the only
//! kind written here). Each method below names the prettyplease rule it reproduces, and the
//! unit tests compare its output with prettyplease's layout of the same code at the widths
//! where the rule changes its mind. Where an item could need a rule not reproduced here, the
//! item writer returns `None` and the caller takes the token path, so the output is the
//! same either way.

/// prettyplease's target width: a line breaks when its text would pass this column.
pub(crate) const MARGIN: usize = 89;

/// How far prettyplease indents a nested block.
pub(crate) const INDENT: usize = 4;

/// The least room prettyplease gives a line after its indentation, however deep.
const MIN_SPACE: usize = 60;

/// The column a line indented by `indent` may reach: [`MARGIN`], or for a line indented
/// past `MARGIN - MIN_SPACE`, [`MIN_SPACE`] past its indentation.
pub(crate) fn limit(indent: usize) -> usize {
    MARGIN.max(indent + MIN_SPACE)
}

/// Appends `value` as a Rust string literal, escaped as `proc_macro2::Literal::string`
/// prints it (what the token path writes): `char::escape_debug` for every character except
/// `'` (kept as is), and NUL as `\0`, or `\x00` when an octal digit follows (so it cannot
/// read as an octal escape).
pub(crate) fn push_str_lit(out: &mut String, value: &str) {
    out.push('"');
    // Runs of characters that stand for themselves are copied whole.
    let mut run = 0;
    for (i, c) in value.char_indices() {
        if matches!(c, ' '..='~') && c != '"' && c != '\\' {
            continue;
        }
        out.push_str(&value[run..i]);
        run = i + c.len_utf8();
        match c {
            '\0' if value[run..].starts_with(|next| ('0'..='7').contains(&next)) => {
                out.push_str("\\x00");
            }
            '\0' => out.push_str("\\0"),
            _ => out.extend(c.escape_debug()),
        }
    }
    out.push_str(&value[run..]);
    out.push('"');
}

/// `value` as a Rust string literal ([`push_str_lit`]).
pub(crate) fn str_lit(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    push_str_lit(&mut out, value);
    out
}

/// The length of `items` on one line, `, ` between them.
fn joined_len<S: AsRef<str>>(items: &[S]) -> usize {
    items.iter().map(|i| i.as_ref().len()).sum::<usize>() + 2 * items.len().saturating_sub(1)
}

/// A type as prettyplease sees it for layout: a path, maybe with generic arguments
/// (`head<args>`). `impl Trait<..>` is one too: prettyplease writes `impl ` and the bound
/// with no break between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ty {
    /// The path up to the generic arguments: `::std::vec::Vec`, `u64`, `impl ::core::convert::Into`.
    pub(crate) head: String,
    /// The generic arguments, none for a plain path.
    pub(crate) args: Vec<Ty>,
}

impl Ty {
    /// A path without generic arguments.
    pub(crate) fn plain(head: impl Into<String>) -> Self {
        Self {
            head: head.into(),
            args: Vec::new(),
        }
    }

    /// `head<args>`.
    pub(crate) fn generic(head: impl Into<String>, args: Vec<Ty>) -> Self {
        Self {
            head: head.into(),
            args,
        }
    }

    /// The length of the type on one line.
    pub(crate) fn flat_len(&self) -> usize {
        if self.args.is_empty() {
            return self.head.len();
        }
        // `<` and `>`, `, ` between arguments.
        self.head.len()
            + 2
            + self.args.iter().map(Ty::flat_len).sum::<usize>()
            + 2 * (self.args.len() - 1)
    }

    /// Appends the type on one line.
    pub(crate) fn push_flat(&self, out: &mut String) {
        out.push_str(&self.head);
        if self.args.is_empty() {
            return;
        }
        out.push('<');
        for (i, arg) in self.args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            arg.push_flat(out);
        }
        out.push('>');
    }
}

/// Text being written line by line; `col` is the length of the line being written,
/// `line_indent` its indentation.
#[derive(Default)]
pub(crate) struct Writer {
    out: String,
    col: usize,
    line_indent: usize,
}

impl Writer {
    /// An empty writer.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The text written so far.
    pub(crate) fn finish(self) -> String {
        self.out
    }

    /// Appends `text` (no line break in it) to the current line.
    pub(crate) fn push(&mut self, text: &str) {
        self.out.push_str(text);
        self.col += text.len();
    }

    /// Appends `items` to the current line, `, ` between them.
    fn push_joined<S: AsRef<str>>(&mut self, items: &[S]) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.push(item.as_ref());
        }
    }

    /// Appends `value` as a string literal ([`push_str_lit`]) to the current line.
    pub(crate) fn push_lit(&mut self, value: &str) {
        let start = self.out.len();
        push_str_lit(&mut self.out, value);
        self.col += self.out.len() - start;
    }

    /// Starts a line indented by `indent`.
    pub(crate) fn indent(&mut self, indent: usize) {
        for _ in 0..indent {
            self.out.push(' ');
        }
        self.col = indent;
        self.line_indent = indent;
    }

    /// Ends the current line.
    pub(crate) fn newline(&mut self) {
        self.out.push('\n');
        self.col = 0;
        self.line_indent = 0;
    }

    /// A whole line: `text` indented by `indent`.
    pub(crate) fn line(&mut self, indent: usize, text: &str) {
        self.indent(indent);
        self.push(text);
        self.newline();
    }

    /// A doc comment line for the doc attribute `#[doc = doc]`. prettyplease writes `///`
    /// and the text with trailing spaces removed when the text has no line break and does
    /// not start with `/` (else a block comment or the attribute); `None` then, which the
    /// callers turn into the token path.
    #[must_use]
    pub(crate) fn doc(&mut self, indent: usize, doc: &str) -> Option<()> {
        if doc.contains('\n') || doc.starts_with('/') {
            return None;
        }
        self.indent(indent);
        self.push("///");
        self.push(doc.trim_end_matches(' '));
        self.newline();
        Some(())
    }

    /// Doc comment lines ([`Writer::doc`]).
    #[must_use]
    pub(crate) fn docs<S: AsRef<str>>(&mut self, indent: usize, docs: &[S]) -> Option<()> {
        for doc in docs {
            self.doc(indent, doc.as_ref())?;
        }
        Some(())
    }

    /// An attribute with a list, `#[name(items)]`, on its own line at `indent`.
    ///
    /// prettyplease rule (attribute token lists): one line when it fits before [`MARGIN`]
    /// (up to the closing `)]`), else `#[name(`, one item a line indented one level
    /// deeper with a comma after each but the last, and `)]`.
    pub(crate) fn attr_list<S: AsRef<str>>(&mut self, indent: usize, name: &str, items: &[S]) {
        // `#[`, `(`, `)]`.
        let flat = indent + name.len() + 5 + joined_len(items);
        self.indent(indent);
        self.push("#[");
        self.push(name);
        self.push("(");
        if flat <= limit(indent) {
            self.push_joined(items);
        } else {
            self.newline();
            for (i, item) in items.iter().enumerate() {
                self.indent(indent + INDENT);
                self.push(item.as_ref());
                if i + 1 < items.len() {
                    self.push(",");
                }
                self.newline();
            }
            self.indent(indent);
        }
        self.push(")]");
        self.newline();
    }

    /// Appends `ty` to the current line, where `tail` more bytes follow it before the next
    /// possible break (a `,` written after a field or a non-last argument: 1; the
    /// trailing comma of a broken list, which prettyplease adds only when it breaks and
    /// does not count: 0); broken lines are indented from `indent`.
    ///
    /// prettyplease rule (angle-bracketed generic arguments): `head<` then a block of the
    /// arguments, each followed by `,` and a space, the last by a break that writes `,`
    /// only when broken. On one line when the type and `tail` fit before [`limit`] of the
    /// line's indentation; else
    /// one argument a line, one level deeper than `indent`, each laid out by the same
    /// rule, and `>` back at `indent`.
    pub(crate) fn ty(&mut self, ty: &Ty, indent: usize, tail: usize) {
        if ty.args.is_empty() || self.col + ty.flat_len() + tail <= limit(self.line_indent) {
            let start = self.out.len();
            ty.push_flat(&mut self.out);
            self.col += self.out.len() - start;
            return;
        }
        self.push(&ty.head);
        self.push("<");
        self.newline();
        let inner = indent + INDENT;
        for (i, arg) in ty.args.iter().enumerate() {
            let last = i + 1 == ty.args.len();
            self.indent(inner);
            self.ty(arg, inner, usize::from(!last));
            self.push(",");
            self.newline();
        }
        self.indent(indent);
        self.push(">");
    }

    /// A function signature at `indent` up to its opening brace: `prefix(params) -> Self {`
    /// where `prefix` is `pub fn name` and `ret` is what follows the parameters
    /// (`) -> Self {`, starting with the `)`). Each parameter is its text up to the type
    /// (`name: `, or `mut self` with no type) and its type.
    ///
    /// prettyplease rule (signatures): the parameter list is a block that ends before the
    /// `{` break, so it stays on one line when the whole signature fits before [`MARGIN`];
    /// else one parameter a line, one level deeper, each followed by `,`, its type laid out
    /// by [`Writer::ty`] (the last parameter's comma is written only because the list
    /// broke, so it does not count), and `ret` back at `indent`.
    pub(crate) fn signature(
        &mut self,
        indent: usize,
        prefix: &str,
        params: &[(String, Option<Ty>)],
        ret: &str,
    ) {
        let flat = indent
            + prefix.len()
            + 1
            + params
                .iter()
                .map(|(p, ty)| p.len() + ty.as_ref().map_or(0, Ty::flat_len))
                .sum::<usize>()
            + 2 * params.len().saturating_sub(1)
            + ret.len();
        self.indent(indent);
        self.push(prefix);
        self.push("(");
        if flat <= limit(indent) {
            for (i, (p, ty)) in params.iter().enumerate() {
                if i > 0 {
                    self.push(", ");
                }
                self.push(p);
                if let Some(ty) = ty {
                    self.ty(ty, indent, 0);
                }
            }
        } else {
            self.newline();
            let inner = indent + INDENT;
            for (i, (p, ty)) in params.iter().enumerate() {
                let last = i + 1 == params.len();
                self.indent(inner);
                self.push(p);
                if let Some(ty) = ty {
                    self.ty(ty, inner, usize::from(!last));
                }
                self.push(",");
                self.newline();
            }
            self.indent(indent);
        }
        self.push(ret);
        self.newline();
    }

    /// A constant whose value is an array of string literals, `prefix[items];` at `indent`
    /// (`prefix` ends with the text before the `[`).
    ///
    /// prettyplease rule (arrays of other than integer, byte, char or bool literals): one
    /// line when it fits before [`MARGIN`] (up to the `;`); else `prefix[`, one item a line
    /// one level deeper with a comma after each, and `];`.
    pub(crate) fn array_const<S: AsRef<str>>(&mut self, indent: usize, prefix: &str, items: &[S]) {
        let flat = indent + prefix.len() + 1 + joined_len(items) + 2;
        self.indent(indent);
        self.push(prefix);
        self.push("[");
        if items.is_empty() {
            // prettyplease writes an empty array as `[]`.
        } else if flat <= limit(indent) {
            self.push_joined(items);
        } else {
            self.newline();
            for item in items {
                self.indent(indent + INDENT);
                self.push(item.as_ref());
                self.push(",");
                self.newline();
            }
            self.indent(indent);
        }
        self.push("];");
        self.newline();
    }

    /// A struct literal ending a function body: `Self { fields }` at `indent`.
    ///
    /// prettyplease rule (struct expressions): one line when it fits before [`MARGIN`]
    /// and its text from `Self` to the space before `}` is at most 34 bytes
    /// (`end_with_max_width(34)`); else `Self {`, one field a line one level deeper with a
    /// comma after each, and `}`. A field whose value is a call with one argument
    /// ([`Init::call`]) that passes the margin on its line has its argument on a line of
    /// its own (call arguments break as generic arguments do).
    pub(crate) fn self_literal(&mut self, indent: usize, fields: &[Init]) {
        let fields_len = fields.iter().map(Init::flat_len).sum::<usize>() + 2 * (fields.len() - 1);
        // `Self {`, the space after it, the fields, the space before `}`.
        let width = 6 + 1 + fields_len + 1;
        // The line ends with the `}` after the literal's text.
        let end = indent + width + 1;
        if width <= 34 && end <= limit(indent) {
            self.indent(indent);
            self.push("Self { ");
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    self.push(", ");
                }
                f.push_flat(self);
            }
            self.push(" }");
            self.newline();
            return;
        }
        self.line(indent, "Self {");
        let inner = indent + INDENT;
        for (i, f) in fields.iter().enumerate() {
            self.indent(inner);
            // The comma after a field counts, except the last one's (written only because
            // the literal broke).
            let tail = usize::from(i + 1 < fields.len());
            match &f.arg {
                Some(arg) if inner + f.flat_len() + tail > limit(inner) => {
                    self.push(&f.head);
                    self.push("(");
                    self.newline();
                    self.line(inner + INDENT, &format!("{arg},"));
                    self.indent(inner);
                    self.push(")");
                }
                _ => f.push_flat(self),
            }
            self.push(",");
            self.newline();
        }
        self.line(indent, "}");
    }
}

/// A field of a struct literal ([`Writer::self_literal`]): `head`, or the call `head(arg)`.
pub(crate) struct Init {
    head: String,
    arg: Option<String>,
}

impl Init {
    /// A field written as it is: `name`, `name: value`.
    pub(crate) fn text(text: impl Into<String>) -> Self {
        Self {
            head: text.into(),
            arg: None,
        }
    }

    /// A field whose value is a call with one argument that cannot break (an identifier):
    /// `head` is `name: path`.
    pub(crate) fn call(head: impl Into<String>, arg: impl Into<String>) -> Self {
        Self {
            head: head.into(),
            arg: Some(arg.into()),
        }
    }

    fn flat_len(&self) -> usize {
        self.head.len() + self.arg.as_ref().map_or(0, |a| a.len() + 2)
    }

    fn push_flat(&self, w: &mut Writer) {
        w.push(&self.head);
        if let Some(arg) = &self.arg {
            w.push("(");
            w.push(arg);
            w.push(")");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the token path writes for a string literal.
    fn proc_macro2_lit(value: &str) -> String {
        proc_macro2::Literal::string(value).to_string()
    }

    #[test]
    fn string_literals_are_escaped_as_proc_macro2_prints_them() {
        let hostile = [
            "",
            "plain text",
            "quote \" backslash \\ apostrophe ' tab \t newline \n return \r",
            "nul \0 then digit \x001 then 7 \x007 then 8 \08 at end \0",
            "\0",
            "\x01\x02\x1b\x7f controls",
            "line sep \u{2028} para sep \u{2029} bom \u{feff} zwj \u{200d}",
            "bidi \u{202e} \u{2066} soft hyphen \u{ad} nbsp \u{a0}",
            "emoji 🦀 👩‍💻 accents é ü CJK 漢字 combining e\u{301}",
            "private use \u{e000} unassigned \u{40000} noncharacter \u{fffe} \u{ffff}",
            "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"x\":\"a\\nb\"}",
            "}\"#; r#\"raw\"#",
        ];
        for value in hostile {
            assert_eq!(str_lit(value), proc_macro2_lit(value), "{value:?}");
        }
        // Every scalar value of the first planes, one at a time and after a NUL.
        for c in (0..0x3_0000u32).filter_map(char::from_u32) {
            let one = c.to_string();
            assert_eq!(str_lit(&one), proc_macro2_lit(&one), "{c:?}");
            let after_nul = format!("\0{c}");
            assert_eq!(str_lit(&after_nul), proc_macro2_lit(&after_nul), "{c:?}");
        }
    }

    /// prettyplease's layout of a whole file.
    fn unparse(code: &str) -> String {
        prettyplease::unparse(&syn::parse_file(code).expect("test code parses"))
    }

    fn vec_of(item: &str) -> Ty {
        Ty::generic("::std::vec::Vec", vec![Ty::plain(item)])
    }

    fn map_of(value: Ty) -> Ty {
        Ty::generic(
            "::std::collections::BTreeMap",
            vec![Ty::plain("::std::string::String"), value],
        )
    }

    /// A struct with one field of each type, written by [`Writer::ty`], equals
    /// prettyplease's layout for field names whose lines end on both sides of the margin.
    #[test]
    fn field_types_break_where_prettyplease_breaks() {
        let types = [
            vec_of("A"),
            map_of(Ty::plain("::oma_mcp_runtime::__private::serde_json::Value")),
            Ty::generic(
                "::core::option::Option",
                vec![map_of(vec_of("::std::string::String"))],
            ),
            Ty::generic(
                "::core::option::Option",
                vec![vec_of("SomeVeryLongGeneratedTypeNameOfTheArgumentsItem")],
            ),
            // Deep enough that the lines' indentation passes `MARGIN - MIN_SPACE`.
            (0..12).fold(Ty::plain("::std::string::String"), |inner, _| {
                Ty::generic("::std::vec::Vec", vec![inner])
            }),
        ];
        for ty in &types {
            for name_len in 1..90 {
                let name = "f".repeat(name_len);
                let mut w = Writer::new();
                // A field, and an associated type in an impl, which breaks the same way.
                for (open, lead, end) in [
                    ("struct S {", format!("pub {name}: "), ","),
                    ("impl T for S {", format!("type {name} = "), ";"),
                ] {
                    w.line(0, open);
                    w.indent(4);
                    w.push(&lead);
                    w.ty(ty, 4, 1);
                    w.push(end);
                    w.newline();
                    w.line(0, "}");
                }
                let text = w.finish();
                assert_eq!(text, unparse(&text), "{ty:?}, name of {name_len}");
            }
        }
    }

    /// Signatures, their parameter types and a struct literal body, around the margin.
    #[test]
    fn signatures_and_struct_literals_break_where_prettyplease_breaks() {
        let into = |ty: Ty| Ty::generic("impl ::core::convert::Into", vec![ty]);
        for name_len in 1..80 {
            let name = "p".repeat(name_len);
            let param_sets: Vec<Vec<(String, Option<Ty>)>> = vec![
                vec![(format!("{name}: "), Some(Ty::plain("f64")))],
                vec![
                    ("mut self".to_owned(), None),
                    (format!("{name}: "), Some(into(vec_of("Item")))),
                ],
                vec![
                    (
                        format!("{name}: "),
                        Some(into(Ty::plain("::std::string::String"))),
                    ),
                    ("b: ".to_owned(), Some(into(map_of(vec_of("X"))))),
                ],
                vec![
                    ("a: ".to_owned(), Some(Ty::plain("bool"))),
                    (format!("{name}: "), Some(into(map_of(vec_of("Xy"))))),
                ],
            ];
            for params in &param_sets {
                let mut w = Writer::new();
                w.line(0, "impl S {");
                w.signature(4, "pub fn new", params, ") -> Self {");
                let fields = [
                    Init::call(format!("{name}: ::core::convert::Into::into"), name.clone()),
                    Init::text(name.as_str()),
                    Init::text("b: c"),
                    Init::text("_non_exhaustive: ()"),
                ];
                w.self_literal(8, &fields[name_len % 4..]);
                w.line(4, "}");
                w.line(0, "}");
                let text = w.finish();
                assert_eq!(text, unparse(&text), "{params:?}");
            }
        }
    }

    /// Arrays of string literals in a constant, around the margin.
    #[test]
    fn string_arrays_break_where_prettyplease_breaks() {
        for len in 0..60 {
            let items = [str_lit("up"), str_lit(&"v".repeat(len)), str_lit("💥")];
            for n in 0..=items.len() {
                let mut w = Writer::new();
                w.line(0, "impl S {");
                w.array_const(
                    4,
                    "pub const VALUES: &'static [&'static str] = &",
                    &items[..n],
                );
                w.line(0, "}");
                w.array_const(0, "pub const TOOL_NAMES: &[&str] = &", &items[..n]);
                let text = w.finish();
                assert_eq!(text, unparse(&text), "{len} {n}");
            }
        }
    }

    /// Attribute lists around the margin.
    #[test]
    fn attribute_lists_break_where_prettyplease_breaks() {
        for len in 1..100 {
            let rename = format!("rename = {}", str_lit(&"r".repeat(len)));
            let ident = "x".repeat(len);
            let lists: [&[&str]; 3] = [
                &[rename.as_str()],
                &[
                    rename.as_str(),
                    "skip_serializing_if = \"::core::option::Option::is_none\"",
                    "default",
                ],
                &["Debug", "Clone", ident.as_str()],
            ];
            for items in lists {
                let mut w = Writer::new();
                w.line(0, "struct S {");
                w.attr_list(4, "serde", items);
                w.line(4, "f: u8,");
                w.line(0, "}");
                w.attr_list(0, "allow", items);
                w.line(0, "struct T;");
                let text = w.finish();
                assert_eq!(text, unparse(&text), "{items:?}");
            }
        }
    }
}
