//! JSON with comments (JSONC), as VS Code and Zed write their settings: `//` and `/* */`
//! comments and trailing commas are blanked out (each byte becomes a space, line breaks are
//! kept), so the JSON parser's line and column still point into the file as written.

use serde_json::Value;

/// Why a configuration file is not JSON, with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// The line, from 1.
    pub line: usize,
    /// The column (in bytes), from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// Parses JSON or JSONC text into a value.
///
/// # Errors
/// [`JsonError`] for an unterminated block comment or text that is not JSON once comments
/// and trailing commas are blanked out.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let plain = blank(text)?;
    serde_json::from_str(&plain).map_err(|e| {
        let message = e.to_string();
        // serde_json appends " at line L column C"; the position is given separately.
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_owned(),
            None => message,
        };
        JsonError {
            line: e.line(),
            column: e.column(),
            message,
        }
    })
}

/// `text` with comments, trailing commas and a byte-order mark replaced by spaces.
fn blank(text: &str) -> Result<String, JsonError> {
    let mut bytes = text.as_bytes().to_vec();
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes[..3].fill(b' ');
    }
    let mut i = 0;
    let mut in_string = false;
    // Positions of commas outside strings, and whether the next token closes a container.
    let mut last_comma: Option<usize> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                last_comma = None;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    bytes[i] = b' ';
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i;
                bytes[i] = b' ';
                bytes[i + 1] = b' ';
                i += 2;
                loop {
                    if i + 1 >= bytes.len() {
                        let (line, column) = position(text, start);
                        return Err(JsonError {
                            line,
                            column,
                            message: "a `/*` comment that is never closed with `*/`".to_owned(),
                        });
                    }
                    if bytes[i] == b'*' && bytes[i + 1] == b'/' {
                        bytes[i] = b' ';
                        bytes[i + 1] = b' ';
                        i += 2;
                        break;
                    }
                    if bytes[i] != b'\n' {
                        bytes[i] = b' ';
                    }
                    i += 1;
                }
            }
            b',' => {
                last_comma = Some(i);
                i += 1;
            }
            b']' | b'}' => {
                if let Some(comma) = last_comma.take() {
                    bytes[comma] = b' ';
                }
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            _ => {
                last_comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes were written over whole comments (UTF-8 sequences included) and the
    // mark, so the text is still UTF-8; a failure here would be a bug, reported as JSON's.
    String::from_utf8(bytes).map_err(|_| JsonError {
        line: 1,
        column: 1,
        message: "not UTF-8 text".to_owned(),
    })
}

/// The 1-based line and byte column of byte offset `at`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..at.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = at
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_read() {
        let text =
            "{\n  // a server\n  \"a\": [1, 2,], /* x */\n  \"b\": \"//not a comment\",\n}\n";
        assert_eq!(
            parse(text),
            Ok(serde_json::json!({"a": [1, 2], "b": "//not a comment"}))
        );
    }

    #[test]
    fn errors_point_into_the_file() {
        let text = "{\n  // comment é\n  \"a\": 1\n  \"b\": 2\n}";
        assert_eq!(
            parse(text),
            Err(JsonError {
                line: 4,
                column: 3,
                message: "expected `,` or `}`".to_owned()
            })
        );
        assert_eq!(
            parse("{ /* open").map_err(|e| e.to_string()),
            Err("line 1 column 3: a `/*` comment that is never closed with `*/`".to_owned())
        );
        assert!(parse("").is_err());
        assert!(parse("\"\\").is_err());
    }
}
