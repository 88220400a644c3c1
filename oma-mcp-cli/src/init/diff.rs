//! A unified diff of two texts by lines (as `diff -u` prints it, three lines of context), for
//! `oma-mcp init --dry-run`.

/// One line of the edit script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Remove,
    Add,
}

/// The unified diff from `old` to `new`, headed `--- old_name` and `+++ new_name`; empty when
/// the texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let script = script(&a, &b);
    // The position (old, new) before each step of the script.
    let mut at = Vec::with_capacity(script.len());
    let (mut i, mut j) = (0, 0);
    for op in &script {
        at.push((i, j));
        match op {
            Op::Keep => {
                i += 1;
                j += 1;
            }
            Op::Remove => i += 1,
            Op::Add => j += 1,
        }
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let changed: Vec<usize> = (0..script.len())
        .filter(|&k| script[k] != Op::Keep)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 6 {
            end = changed[k];
            k += 1;
        }
        let end = (end + 4).min(script.len());
        let (old_start, new_start) = at[start];
        let old_count = script[start..end].iter().filter(|o| **o != Op::Add).count();
        let new_count = script[start..end]
            .iter()
            .filter(|o| **o != Op::Remove)
            .count();
        let range = |first: usize, count: usize| match count {
            0 => format!("{first},0"),
            1 => format!("{}", first + 1),
            n => format!("{},{n}", first + 1),
        };
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(old_start, old_count),
            range(new_start, new_count)
        ));
        for step in start..end {
            let (i, j) = at[step];
            match script[step] {
                Op::Keep => out.push_str(&format!(" {}\n", a[i])),
                Op::Remove => out.push_str(&format!("-{}\n", a[i])),
                Op::Add => out.push_str(&format!("+{}\n", b[j])),
            }
        }
    }
    out
}

/// The shortest edit script by the longest common subsequence (manifests are small; past
/// four million cells, everything old is removed and everything new added).
fn script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > 4_000_000 {
        return std::iter::repeat_n(Op::Remove, n)
            .chain(std::iter::repeat_n(Op::Add, m))
            .collect();
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(Op::Keep);
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(Op::Remove);
            i += 1;
        } else {
            out.push(Op::Add);
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_as_diff_prints_them() {
        assert_eq!(unified("a\n", "a\n", "x", "y"), "");
        assert_eq!(
            unified("", "[servers.a]\ncommand = \"x\"\n", "m", "m"),
            "--- m\n+++ m\n@@ -0,0 +1,2 @@\n+[servers.a]\n+command = \"x\"\n"
        );
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
        assert_eq!(
            unified(old, new, "m", "m"),
            "--- m\n+++ m\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }
}
