//! The `${…}` references clients write in their configuration: `${VAR}` and
//! `${VAR:-default}` (Claude Code), `${env:VAR}` (VS Code, Cursor, Windsurf), `${input:id}`
//! (VS Code's `inputs`), and predefined variables such as `${workspaceFolder}`.

/// One `${…}` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// An environment variable: `${VAR}`, `${env:VAR}`, `${VAR:-default}`.
    Env {
        /// The variable's name.
        name: String,
        /// The value used when the variable is not set (`${VAR:-default}`).
        default: Option<String>,
    },
    /// A VS Code input: `${input:id}`.
    Input(String),
    /// The folder the client opened: `${workspaceFolder}` (or `${workspaceRoot}`).
    WorkspaceFolder,
    /// Anything else the client expands (`${userHome}`, `${config:…}`, …), as written between
    /// the braces.
    Other(String),
}

impl Reference {
    /// Reads the text between `${` and `}`.
    fn from_body(body: &str) -> Self {
        let is_name = |s: &str| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if let Some(name) = body.strip_prefix("env:")
            && !name.is_empty()
            && !name.contains(['=', '\0'])
        {
            return Reference::Env {
                name: name.to_owned(),
                default: None,
            };
        }
        if let Some(id) = body.strip_prefix("input:")
            && !id.is_empty()
        {
            return Reference::Input(id.to_owned());
        }
        if matches!(body, "workspaceFolder" | "workspaceRoot") {
            return Reference::WorkspaceFolder;
        }
        if let Some((name, default)) = body.split_once(":-")
            && is_name(name)
            && !default.contains("${")
        {
            return Reference::Env {
                name: name.to_owned(),
                default: Some(default.to_owned()),
            };
        }
        // `userHome` is the only lower-case name clients predefine that a variable could be
        // mistaken for; upper-case and snake-case names are variables.
        if is_name(body) && body != "userHome" && !body.contains(':') {
            return Reference::Env {
                name: body.to_owned(),
                default: None,
            };
        }
        Reference::Other(body.to_owned())
    }
}

/// A piece of a configuration string: literal text or a reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text.
    Text(String),
    /// A `${…}` reference.
    Ref(Reference),
}

/// Splits `value` into literal text and references; a `${` without its `}` is text.
pub fn parts(value: &str) -> Vec<Part> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        if start > 0 {
            out.push(Part::Text(rest[..start].to_owned()));
        }
        out.push(Part::Ref(Reference::from_body(
            &rest[start + 2..start + 2 + len],
        )));
        rest = &rest[start + 2 + len + 1..];
    }
    if !rest.is_empty() {
        out.push(Part::Text(rest.to_owned()));
    }
    out
}

/// The reference `value` is exactly, if it is one and nothing else.
pub fn exact(value: &str) -> Option<Reference> {
    match parts(value.trim()).as_slice() {
        [Part::Ref(reference)] => Some(reference.clone()),
        _ => None,
    }
}

/// Whether `value` holds any reference.
pub fn has_reference(value: &str) -> bool {
    parts(value).iter().any(|p| matches!(p, Part::Ref(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str, default: Option<&str>) -> Reference {
        Reference::Env {
            name: name.to_owned(),
            default: default.map(str::to_owned),
        }
    }

    #[test]
    fn every_form_is_read() {
        assert_eq!(exact("${GITHUB_TOKEN}"), Some(env("GITHUB_TOKEN", None)));
        assert_eq!(exact("${env:API_KEY}"), Some(env("API_KEY", None)));
        assert_eq!(exact("${PORT:-8080}"), Some(env("PORT", Some("8080"))));
        assert_eq!(
            exact("${input:api-key}"),
            Some(Reference::Input("api-key".into()))
        );
        assert_eq!(
            exact("${workspaceFolder}"),
            Some(Reference::WorkspaceFolder)
        );
        assert_eq!(
            exact("${userHome}"),
            Some(Reference::Other("userHome".into()))
        );
        assert_eq!(exact("Bearer ${TOKEN}"), None);
        assert_eq!(
            parts("Bearer ${TOKEN} x ${"),
            vec![
                Part::Text("Bearer ".into()),
                Part::Ref(env("TOKEN", None)),
                Part::Text(" x ${".into()),
            ]
        );
        assert!(!has_reference("$VAR"));
    }
}
