//! Output truncation (open-multi-agent's `docs/mcp.md` introduction: MCP tools get the
//! framework's "output truncation" like any tool; its `truncateToolOutput`), with lengths in
//! UTF-16 code units as JavaScript counts them.

use crate::ToolResult;

/// The marker between head and tail without its number: `\n\n[...truncated  characters...]\n\n`
/// is 33 UTF-16 units.
const MARKER_OVERHEAD: usize = 33;

/// Cuts `data` to at most `max_chars` UTF-16 code units, keeping its head (about 70 %) and
/// tail (about 30 %) around a marker saying how many units were removed.
///
/// Exactly the open-multi-agent's algorithm: with `len` the text's length, nothing changes when
/// `len <= max_chars`; otherwise `overhead = 33 + digits(len)`; if `max_chars <= overhead` the
/// result is the first `max_chars` units; else `avail = max_chars - overhead`,
/// `head = floor(avail * 0.7)` (computed in `f64`, as JavaScript does: `90 * 0.7` is
/// `62.99999999999999`, so `head` is 62 there, not 63), `tail = avail - head`, and the result is
/// the first `head` units, `\n\n[...truncated <len - head - tail> characters...]\n\n`, then the
/// last `tail` units.
///
/// A cut through a surrogate pair leaves half a character, which Rust strings cannot hold: it
/// becomes U+FFFD (JavaScript keeps a lone surrogate).
///
/// ```
/// use oma_mcp_runtime::tool::truncate_tool_output;
/// let text = "abcdefghijklmnopqrstuvwxyz".repeat(4);
/// assert_eq!(
///     truncate_tool_output(&text, 60),
///     "abcdefghijklmnop\n\n[...truncated 80 characters...]\n\nstuvwxyz"
/// );
/// ```
pub fn truncate_tool_output(data: &str, max_chars: usize) -> String {
    let len = data.encode_utf16().count();
    if len <= max_chars {
        return data.to_owned();
    }
    let units: Vec<u16> = data.encode_utf16().collect();
    let overhead = MARKER_OVERHEAD + len.to_string().len();
    if max_chars <= overhead {
        return String::from_utf16_lossy(&units[..max_chars]);
    }
    let avail = max_chars - overhead;
    // Truncation toward zero of a non-negative finite product: `floor`, as `Math.floor`.
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let head = ((avail as f64) * 0.7).floor() as usize;
    let head = head.min(avail);
    let tail = avail - head;
    let removed = len - head - tail;
    format!(
        "{}\n\n[...truncated {removed} characters...]\n\n{}",
        String::from_utf16_lossy(&units[..head]),
        String::from_utf16_lossy(&units[len - tail..]),
    )
}

/// Applies [`truncate_tool_output`] to a result's `data` when open-multi-agent does: `max_chars` is
/// `Some(max)` with `max > 0`, the result has no `model_output` (rich results are never cut),
/// and `data` is longer than `max` UTF-16 units. `is_error` is kept.
pub fn truncate_result(mut result: ToolResult, max_chars: Option<usize>) -> ToolResult {
    match max_chars {
        Some(max) if max > 0 && result.model_output.is_none() => {
            if result.data.len() > max {
                // Byte length ≥ UTF-16 length, so shorter byte strings never need a cut.
                result.data = truncate_tool_output(&result.data, max);
            }
            result
        }
        _ => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelPart;

    fn alphabet4() -> String {
        "abcdefghijklmnopqrstuvwxyz".repeat(4)
    }

    /// Five worked examples of the framework's head/tail cut, with the exact marker text.
    #[test]
    fn worked_examples_of_the_head_tail_cut() {
        let text = alphabet4();
        assert_eq!(text.len(), 104);
        assert_eq!(truncate_tool_output(&text, 104), text);
        assert_eq!(
            truncate_tool_output(&text, 103),
            format!(
                "{}\n\n[...truncated 37 characters...]\n\n{}",
                &text[..46],
                &text[104 - 21..]
            )
        );
        assert_eq!(
            &text[..46],
            "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrst"
        );
        assert_eq!(&text[104 - 21..], "fghijklmnopqrstuvwxyz");
        assert_eq!(
            truncate_tool_output(&text, 60),
            "abcdefghijklmnop\n\n[...truncated 80 characters...]\n\nstuvwxyz"
        );
        assert_eq!(
            truncate_tool_output(&text, 37),
            "\n\n[...truncated 103 characters...]\n\nz"
        );
        assert_eq!(truncate_tool_output(&text, 36), &text[..36]);
    }

    #[test]
    fn results_never_exceed_max() {
        let text = alphabet4();
        for max in 1..=104 {
            let out = truncate_tool_output(&text, max);
            assert!(out.encode_utf16().count() <= max, "max {max}: {out:?}");
        }
    }

    /// `floor(90 * 0.7)` is 62 in JavaScript (the product is 62.99999999999999).
    #[test]
    fn head_is_floored_like_javascript() {
        let text = "x".repeat(200);
        // overhead 36, avail 90 → head 62, tail 28, removed 110.
        let out = truncate_tool_output(&text, 126);
        assert_eq!(
            out,
            format!(
                "{}\n\n[...truncated 110 characters...]\n\n{}",
                "x".repeat(62),
                "x".repeat(28)
            )
        );
    }

    #[test]
    fn counts_utf16_units() {
        // "é" is one unit, "😀" two: 40 units in 30 chars... lengths as JavaScript counts them.
        let text = "é😀".repeat(20);
        assert_eq!(text.encode_utf16().count(), 60);
        assert_eq!(truncate_tool_output(&text, 60), text);
        // max 4 ≤ overhead: the first 4 units, "é😀é" minus nothing = 4 units.
        assert_eq!(truncate_tool_output(&text, 4), "é😀é");
        // max 3: "é😀" is exactly 3 units.
        assert_eq!(truncate_tool_output(&text, 3), "é😀");
        // max 2: "é" plus half an emoji → U+FFFD.
        assert_eq!(truncate_tool_output(&text, 2), "é\u{FFFD}");
    }

    #[test]
    fn result_rules() {
        let long = ToolResult::text(alphabet4());
        assert_eq!(truncate_result(long.clone(), None), long);
        assert_eq!(truncate_result(long.clone(), Some(0)), long);
        assert_eq!(truncate_result(long.clone(), Some(104)), long);
        let cut = truncate_result(long.clone(), Some(60));
        assert_eq!(
            cut.data,
            "abcdefghijklmnop\n\n[...truncated 80 characters...]\n\nstuvwxyz"
        );
        assert!(!cut.is_error);

        let mut error = long.clone();
        error.is_error = true;
        let cut = truncate_result(error, Some(36));
        assert_eq!(
            (cut.data.as_str(), cut.is_error),
            (&alphabet4()[..36], true)
        );

        let mut rich = long.clone();
        rich.model_output = Some(vec![ModelPart::Text {
            text: "t".to_owned(),
        }]);
        assert_eq!(truncate_result(rich.clone(), Some(10)), rich);

        // 30 chars of two bytes each: 60 bytes but 30 units, not cut at 30.
        let wide = ToolResult::text("é".repeat(30));
        assert_eq!(truncate_result(wide.clone(), Some(30)), wide);
    }
}
