//! JSON text exactly as JavaScript's `JSON.stringify` writes it (open-multi-agent's `docs/mcp.md`,
//! "Result mapping": the legacy `toolResult`, unknown blocks and `structuredContent` are
//! "pretty-printed JSON", the whole-response fallback is compact JSON, and `resource_link` names
//! and URIs are quoted with `JSON.stringify`).
//!
//! # Why not `serde_json::to_string_pretty`
//!
//! serde_json's layout (2-space indent, `": "`, `[]`/`{}` for empty containers) and its string
//! escaping (`\"`, `\\`, `\b \f \n \r \t`, other C0 controls as lowercase `\u00XX`, DEL,
//! U+2028/U+2029 and non-ASCII raw) already match `JSON.stringify`. Two things do not:
//!
//! - **Numbers.** The reference reads every number with `JSON.parse`, so it is an IEEE double,
//!   and prints it with ECMAScript `Number::toString`: `1.0` → `1`, `-0` → `0`, `1e5` →
//!   `100000`, `1e21` → `1e+21`, `12345678901234567890` → `12345678901234567000`. serde_json
//!   keeps `u64`/`i64` exact and prints floats as `1.0`, `-0.0`, `1e21`.
//! - **Key order.** A JavaScript object lists array-index keys (`"0"` … `"4294967294"` in
//!   canonical form) first, in ascending numeric order, then the other keys in insertion order.
//!   serde_json with `preserve_order` keeps the server's order for all keys.
//!
//! So this module writes JSON itself; it is small and pure, and never fails.

use serde_json::{Map, Number, Value};

/// `JSON.stringify(value)`: compact JSON text.
pub(crate) fn stringify_compact(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None, 0);
    out
}

/// `JSON.stringify(value, null, 2)`: JSON text with a 2-space indent.
pub(crate) fn stringify_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some(2), 0);
    out
}

/// `JSON.stringify(s)` for a string: `s` in double quotes, escaped as ECMAScript
/// `QuoteJSONString` does.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_quoted(&mut out, s);
    out
}

/// ECMAScript `String(value)` for a JSON value (used for the `[<type>]` label of unknown
/// blocks): strings verbatim, numbers per `Number::toString`, `[object Object]` for objects,
/// and arrays joined with `,` (`null` elements become empty), as `Array.prototype.toString`.
pub(crate) fn js_string(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) => s.clone(),
        Value::Object(_) => "[object Object]".to_owned(),
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Value::Null => String::new(),
                    other => js_string(other),
                })
                .collect();
            parts.join(",")
        }
    }
}

fn write_value(out: &mut String, value: &Value, indent: Option<usize>, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(&number_text(n)),
        Value::String(s) => write_quoted(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (key, item)) in js_key_order(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_quoted(out, key);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push('}');
        }
    }
}

/// In pretty mode, a line break followed by the indent of `depth`; nothing in compact mode.
fn newline(out: &mut String, indent: Option<usize>, depth: usize) {
    if let Some(step) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', step.saturating_mul(depth)));
    }
}

/// The entries of `map` in JavaScript property order: array-index keys ascending, then the
/// rest in insertion order.
fn js_key_order(map: &Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut indices: Vec<(u32, &str, &Value)> = Vec::new();
    let mut others: Vec<(&str, &Value)> = Vec::with_capacity(map.len());
    for (key, value) in map {
        match array_index(key) {
            Some(i) => indices.push((i, key, value)),
            None => others.push((key, value)),
        }
    }
    if indices.is_empty() {
        return others;
    }
    indices.sort_by_key(|&(i, _, _)| i);
    let mut ordered: Vec<(&str, &Value)> = indices.into_iter().map(|(_, k, v)| (k, v)).collect();
    ordered.extend(others);
    ordered
}

/// `Some(i)` when `key` is an ECMAScript array index: the canonical decimal form of an integer
/// in `0..=2^32 - 2` (no sign, no leading zero except `"0"` itself).
pub(crate) fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes.first() == Some(&b'0') {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    u32::try_from(n).ok().filter(|&i| i != u32::MAX)
}

/// Writes `s` quoted and escaped as ECMAScript `QuoteJSONString` does. Rust strings hold no
/// lone surrogates, so the `\uDXXX` case of that algorithm never arises.
fn write_quoted(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut start = 0;
    for (i, byte) in s.bytes().enumerate() {
        let escape: Option<&str> = match byte {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\x08' => Some("\\b"),
            b'\x0c' => Some("\\f"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x00..=0x1f => Some(""),
            _ => None,
        };
        let Some(escape) = escape else { continue };
        // `i` is at an ASCII byte, so it is a char boundary; `get` keeps this panic-free.
        out.push_str(s.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
    out.push('"');
}

/// A JSON number as `JSON.stringify` prints the double that `JSON.parse` reads from it.
fn number_text(n: &Number) -> String {
    match n.as_f64() {
        // JSON.parse turns numbers beyond the double range into ±Infinity, printed as null.
        Some(f) if !f.is_finite() => "null".to_owned(),
        Some(f) => js_number(f),
        None => n.to_string(),
    }
}

/// ECMAScript `Number::toString(x)` (radix 10) for a finite double: the shortest round-trip
/// digits, in plain notation for decimal exponents −7 < e < 21 and as `d.ddde±n` otherwise.
/// Zero (also `-0`) is `"0"`.
pub(crate) fn js_number(x: f64) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".to_owned()
        } else if x > 0.0 {
            "Infinity".to_owned()
        } else {
            "-Infinity".to_owned()
        };
    }
    let Some((digits, exp)) = shortest_digits(x.abs()) else {
        return x.to_string();
    };
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    // ECMAScript's n: the value is 0.digits × 10^n.
    let n = exp + 1;
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    let zeros = |count: i64| "0".repeat(usize::try_from(count).unwrap_or(0));
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.push_str(&zeros(n - k));
    } else if 0 < n && n <= 21 {
        let split = usize::try_from(n).unwrap_or(0);
        out.push_str(digits.get(..split).unwrap_or_default());
        out.push('.');
        out.push_str(digits.get(split..).unwrap_or_default());
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.push_str(&zeros(-n));
        out.push_str(&digits);
    } else {
        out.push_str(digits.get(..1).unwrap_or_default());
        if k > 1 {
            out.push('.');
            out.push_str(digits.get(1..).unwrap_or_default());
        }
        out.push('e');
        out.push(if n - 1 < 0 { '-' } else { '+' });
        out.push_str(&(n - 1).abs().to_string());
    }
    out
}

/// The shortest decimal digits that round-trip to `x > 0` and the decimal exponent of the
/// first digit, chosen as ECMAScript `Number::toString` chooses them: fewest digits, then
/// closest to `x`, then (on an exact tie) the even one.
///
/// Rust's `{:e}` gives the fewest digits and the closest, but breaks an exact tie upwards
/// (`977529347321332.25` → `…332.3`, where JavaScript prints `…332.2`), so a tie is detected and
/// resolved here. Ties are rare: checking costs one extra short format per odd last digit,
/// and an exact expansion only when the next five digits are `50000`.
fn shortest_digits(x: f64) -> Option<(String, i64)> {
    let (digits, exp) = sci_digits(&format!("{x:e}"))?;
    // ASCII digits: the byte parity is the digit parity.
    let last = *digits.as_bytes().last()?;
    if last % 2 == 0 {
        return Some((digits, exp));
    }
    let even = tie_neighbour(x, &digits, exp);
    Some((even.unwrap_or(digits), exp))
}

/// For odd shortest `digits`, the even neighbour with the same digit count when `x` lies
/// exactly halfway between the two and the neighbour also round-trips to `x`.
fn tie_neighbour(x: f64, digits: &str, exp: i64) -> Option<String> {
    let k = digits.len();
    let (probe, probe_exp) = sci_digits(&format!("{x:.prec$e}", prec = k + 4))?;
    if probe_exp != exp || probe.get(k..)? != "50000" {
        return None;
    }
    let below = probe.get(..k)?;
    let neighbour = if below == digits {
        increment_last(digits)?
    } else {
        below.to_owned()
    };
    if neighbour.len() != k || (below != digits && increment_last(below)? != digits) {
        return None;
    }
    // Confirm the tie on the exact binary value (at most 767 significant digits).
    let (exact, exact_exp) = sci_digits(&format!("{x:.800e}"))?;
    let midpoint = format!("{below}5");
    if exact_exp != exp || exact.trim_end_matches('0') != midpoint {
        return None;
    }
    let mantissa = format!("{}.{}e{exp}", neighbour.get(..1)?, neighbour.get(1..)?);
    (mantissa.parse::<f64>().ok()? == x).then_some(neighbour)
}

/// `digits` plus one in the last place, `None` when that carries (a shortest digit string
/// never ends in 9 followed by a round-trip neighbour, so a carry means no tie to fix).
fn increment_last(digits: &str) -> Option<String> {
    let (head, last) = digits.split_at_checked(digits.len().checked_sub(1)?)?;
    let last = last.bytes().next()?;
    (last < b'9').then(|| format!("{head}{}", char::from(last + 1)))
}

/// Splits Rust's `{:e}` output `d[.ddd]e<exp>` of a positive number into its digit string and
/// decimal exponent.
fn sci_digits(sci: &str) -> Option<(String, i64)> {
    let (mantissa, exp) = sci.split_once('e')?;
    let exp = exp.parse::<i64>().ok()?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some((digits, exp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_follow_ecmascript() {
        let cases: &[(f64, &str)] = &[
            (f64::INFINITY, "Infinity"),
            // Within 10^-5 of a unit of a tie but not one (the exact value goes on with
            // `…00014`, `…00268`): the closest digits, although the even neighbour
            // round-trips too.
            (1.099_775_191_532_529_5e-200, "1.0997751915325295e-200"),
            (9.166_520_359_875_759e205, "9.166520359875759e+205"),
            (1.0, "1"),
            (-0.0, "0"),
            (0.5, "0.5"),
            (-1.5, "-1.5"),
            (123.456, "123.456"),
            (1e5, "100000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1.5e-6, "0.0000015"),
            (1e-7, "1e-7"),
            (-2.5e-9, "-2.5e-9"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (12345678901234567890.0, "12345678901234567000"),
            (9007199254740993.0, "9007199254740992"),
            // Exact ties between two shortest candidates go to the even one.
            // (x.25 and x.75 are exact doubles at this magnitude, where the spacing is 1/8.)
            (977_529_347_321_332.0 + 0.25, "977529347321332.2"),
            (977_529_347_321_332.0 + 0.75, "977529347321332.8"),
            (-(977_529_347_321_332.0 + 0.25), "-977529347321332.2"),
        ];
        for &(x, want) in cases {
            assert_eq!(js_number(x), want, "{x:e}");
        }
        assert_eq!(js_number(f64::NAN), "NaN");
        assert_eq!(js_number(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn parsed_numbers_print_as_javascript_does() {
        let v: Value = serde_json::from_str(
            "[1.0, -0, -0.0, 1e5, 2.50, 12345678901234567890, 18446744073709551615, \
             -9223372036854775808, 100000000000000000000000, 1E-7, 6.0]",
        )
        .unwrap();
        assert_eq!(
            stringify_compact(&v),
            "[1,0,0,100000,2.5,12345678901234567000,18446744073709552000,\
             -9223372036854776000,1e+23,1e-7,6]"
        );
    }

    #[test]
    fn long_mantissas_parse_correctly_rounded() {
        // Needs serde_json's `float_roundtrip` (without it this parses one ULP off and prints
        // …987e-187); the expected texts are Node's JSON.stringify output.
        let v: Value =
            serde_json::from_str("[-436957711067798754750e-207, 645970199426307850001e-221]")
                .unwrap();
        assert_eq!(
            stringify_compact(&v),
            "[-4.3695771106779877e-187,6.459701994263078e-201]"
        );
    }

    #[test]
    fn pretty_layout_matches_json_stringify() {
        let v = json!({"a": [1, {"b": "c"}], "e": {}, "f": [], "g": [[]], "h": null});
        assert_eq!(
            stringify_pretty(&v),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"c\"\n    }\n  ],\n  \"e\": {},\n  \
             \"f\": [],\n  \"g\": [\n    []\n  ],\n  \"h\": null\n}"
        );
        assert_eq!(stringify_pretty(&json!("hi")), "\"hi\"");
        assert_eq!(stringify_pretty(&json!(false)), "false");
        assert_eq!(
            stringify_compact(&json!({"a": [1, {}], "b": ""})),
            "{\"a\":[1,{}],\"b\":\"\"}"
        );
    }

    #[test]
    fn escaping_matches_quote_json_string() {
        assert_eq!(quote("ü\n\"x\""), "\"ü\\n\\\"x\\\"\"");
        assert_eq!(
            quote("\u{0}\u{1f}\u{7f}\u{2028}\u{2029}\\"),
            "\"\\u0000\\u001f\u{7f}\u{2028}\u{2029}\\\\\""
        );
        assert_eq!(quote("\u{8}\u{c}\r\t\u{b}"), "\"\\b\\f\\r\\t\\u000b\"");
        assert_eq!(quote("😀 é"), "\"😀 é\"");
        assert_eq!(quote(""), "\"\"");
    }

    #[test]
    fn keys_follow_javascript_property_order() {
        let v: Value = serde_json::from_str(
            r#"{"b":1,"2":2,"a":3,"10":4,"01":5,"-1":6,"4294967295":7,"4294967294":8,"0":9}"#,
        )
        .unwrap();
        assert_eq!(
            stringify_compact(&v),
            r#"{"0":9,"2":2,"10":4,"4294967294":8,"b":1,"a":3,"01":5,"-1":6,"4294967295":7}"#
        );
    }

    #[test]
    fn array_index_rule() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("4294967294"), Some(4_294_967_294));
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("99999999999"), None);
        assert_eq!(array_index("00"), None);
        assert_eq!(array_index("+1"), None);
        assert_eq!(array_index(""), None);
        assert_eq!(array_index("１"), None);
    }

    #[test]
    fn string_conversion_matches_javascript() {
        assert_eq!(js_string(&json!("video")), "video");
        assert_eq!(js_string(&json!(5)), "5");
        assert_eq!(js_string(&json!(1.0)), "1");
        assert_eq!(js_string(&json!(true)), "true");
        assert_eq!(js_string(&json!({"a": 1})), "[object Object]");
        assert_eq!(
            js_string(&json!([1, [2, null], {}, "x"])),
            "1,2,,[object Object],x"
        );
        assert_eq!(js_string(&json!([])), "");
    }
}
