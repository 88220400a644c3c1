//! The README and the guide (`docs/guide/src/*.md`) against the code: every Rust block is a
//! region of a compiled file, every relative link and anchor resolves, and every manifest
//! example parses. (The manifest reference, `docs/guide/src/manifest-reference.md`, is
//! generated from the manifest's JSON Schema: `oma-mcp-build --test it manifest_reference`.)
//!
//! A region is the lines between a `// GUIDE: begin <name>` (or `// README: begin`) line and
//! the next `// GUIDE: end` (or `// README: end`) line of a Rust file in the workspace, less
//! their common indentation; a file holding one must be compiled by the test command (an
//! example, a test module). A ` ```rust ` block that is deliberately not compiled is written
//! ` ```rust,ignore ` with `<!-- ignore: <why> -->` on the line above it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::workspace_root;

/// The README and every chapter of the guide, as paths relative to the workspace root.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_owned()];
    let dir = workspace_root().join("docs/guide/src");
    let mut chapters: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/guide/src/{name}"))
        .collect();
    chapters.sort();
    docs.extend(chapters);
    docs
}

fn read(path: &str) -> String {
    std::fs::read_to_string(workspace_root().join(path)).unwrap()
}

/// A fenced code block: the 1-based line of its opening fence, the info string, the line
/// above the fence and the body (its lines less the fence's indentation, each with `\n`).
struct Fence {
    line: usize,
    info: String,
    above: String,
    body: String,
}

/// The fenced code blocks of a Markdown text, and the lines outside them (1-based line
/// number, text).
fn split_fences(text: &str) -> (Vec<Fence>, Vec<(usize, &str)>) {
    let mut fences = Vec::new();
    let mut prose = Vec::new();
    let mut open: Option<(Fence, usize, usize)> = None; // (fence, indent, backticks)
    let mut previous = "";
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let ticks = trimmed.chars().take_while(|c| *c == '`').count();
        match &mut open {
            None if ticks >= 3 => {
                let fence = Fence {
                    line: i + 1,
                    info: trimmed[ticks..].trim().to_owned(),
                    above: previous.trim().to_owned(),
                    body: String::new(),
                };
                open = Some((fence, indent, ticks));
            }
            None => prose.push((i + 1, line)),
            Some((_, _, open_ticks))
                if ticks >= *open_ticks && trimmed[ticks..].trim().is_empty() =>
            {
                fences.push(open.take().unwrap().0);
            }
            Some((fence, indent, _)) => {
                let strip = line.len() - line.trim_start().len();
                fence.body.push_str(&line[strip.min(*indent)..]);
                fence.body.push('\n');
            }
        }
        previous = line;
    }
    assert!(open.is_none(), "a code block is not closed");
    (fences, prose)
}

/// `text` less the indentation its non-blank lines share.
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| {
            if l.len() >= indent {
                &l[indent..]
            } else {
                l.trim_start()
            }
        })
        .fold(String::new(), |mut out, l| {
            out.push_str(l);
            out.push('\n');
            out
        })
}

/// The Rust files of the workspace (not `target/`, `node_modules/` or hidden folders).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// One shown region: its file (relative to the workspace root), line and text (dedented).
struct Region {
    file: String,
    line: usize,
    text: String,
}

/// Every region of every Rust file of the workspace.
fn regions() -> Vec<Region> {
    let root = workspace_root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut regions = Vec::new();
    for path in files {
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !(source.contains("// GUIDE: begin") || source.contains("// README: begin")) {
            continue;
        }
        let file = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let mut open: Option<(usize, String)> = None;
        for (i, line) in source.lines().enumerate() {
            let marker = line.trim_start();
            if marker.starts_with("// GUIDE: begin") || marker.starts_with("// README: begin") {
                assert!(
                    open.is_none(),
                    "{file}:{}: a region begins inside another",
                    i + 1
                );
                open = Some((i + 1, String::new()));
            } else if marker.starts_with("// GUIDE: end") || marker.starts_with("// README: end") {
                let (begin, text) = open
                    .take()
                    .unwrap_or_else(|| panic!("{file}:{}: a region ends before it begins", i + 1));
                regions.push(Region {
                    file: file.clone(),
                    line: begin,
                    text: dedent(&text),
                });
            } else if let Some((_, text)) = &mut open {
                text.push_str(line);
                text.push('\n');
            }
        }
        assert!(open.is_none(), "{file}: a region does not end");
    }
    regions
}

/// Every ` ```rust ` block of the README and the guide is the verbatim region of a compiled
/// file (or ` ```rust,ignore ` with its reason above it), and every region is shown somewhere.
#[test]
fn rust_blocks_are_compiled_regions() {
    let regions = regions();
    let mut shown = BTreeSet::new();
    let mut problems = String::new();
    for doc in documents() {
        let (fences, _) = split_fences(&read(&doc));
        for fence in fences {
            let mut info = fence.info.split(',').map(str::trim);
            if info.next() != Some("rust") {
                continue;
            }
            if info.any(|flag| flag == "ignore") {
                let reason = fence
                    .above
                    .strip_prefix("<!-- ignore:")
                    .and_then(|r| r.strip_suffix("-->"))
                    .map(str::trim);
                if reason.is_none_or(str::is_empty) {
                    let _ = writeln!(
                        problems,
                        "{doc}:{}: a ```rust,ignore block needs `<!-- ignore: <why> -->` on the line above it",
                        fence.line
                    );
                }
                continue;
            }
            match regions.iter().position(|r| r.text == fence.body) {
                Some(at) => {
                    shown.insert(at);
                }
                None => {
                    let _ = writeln!(
                        problems,
                        "{doc}:{}: this ```rust block is not the verbatim region of a compiled file: \
                         put the code between `// GUIDE: begin <name>` and `// GUIDE: end` in a file \
                         the tests compile and show that region here as it is (or mark the block \
                         ```rust,ignore with `<!-- ignore: <why> -->` above it)",
                        fence.line
                    );
                }
            }
        }
    }
    for (at, region) in regions.iter().enumerate() {
        if !shown.contains(&at) {
            let _ = writeln!(
                problems,
                "{}:{}: this region is shown in neither README.md nor docs/guide/src/*.md \
                 (show it verbatim in a ```rust block, or remove its markers)",
                region.file, region.line
            );
        }
    }
    assert!(problems.is_empty(), "\n{problems}");
}

/// The anchors of a Markdown file's headings (repeated ones as `-1`, `-2`, …).
fn anchors(text: &str) -> BTreeSet<String> {
    let (_, prose) = split_fences(text);
    let mut ids = BTreeSet::new();
    for (_, line) in prose {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let id = oma_mcp_test_support::heading_anchor(&line[hashes..]);
        let mut unique = id.clone();
        let mut n = 0;
        while !ids.insert(unique.clone()) {
            n += 1;
            unique = format!("{id}-{n}");
        }
    }
    ids
}

/// A line with its inline code spans emptied (so code that looks like a link is not one).
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(c);
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The link targets of a Markdown text outside code: inline links `[..](target)`,
/// reference definitions `[..]: target` and mdBook's `{{#include target}}`, each with its
/// line.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let (_, prose) = split_fences(text);
    let mut targets = Vec::new();
    for (n, line) in prose {
        if let Some(include) = line.trim().strip_prefix("{{#include ") {
            targets.push((n, include.trim_end_matches("}}").trim().to_owned()));
            continue;
        }
        let line = without_code_spans(line);
        if line.starts_with('[')
            && let Some((_, rest)) = line.split_once("]: ")
        {
            targets.push((n, rest.split_whitespace().next().unwrap_or("").to_owned()));
        }
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            targets.push((n, target.trim_matches(['<', '>']).to_owned()));
            rest = &after[end..];
        }
    }
    targets
}

/// The URLs of this repository's files on GitHub.
const REPOSITORY_FILES: [&str; 2] = [
    "https://github.com/oma-mcp/oma-mcp/blob/main/",
    "https://github.com/oma-mcp/oma-mcp/tree/main/",
];

/// Every relative link of the README and the guide, and every link to this repository's files
/// on GitHub, names a file that exists, and every `#anchor` a heading of its file.
#[test]
fn relative_links_resolve() {
    let root = workspace_root();
    let mut problems = String::new();
    for doc in documents() {
        let dir = Path::new(&doc).parent().unwrap().to_owned();
        for (line, target) in link_targets(&read(&doc)) {
            // A link into this repository's files on GitHub (the guide's way to a file outside
            // the book) is checked as a path from the workspace root.
            let in_repository = REPOSITORY_FILES
                .iter()
                .find_map(|prefix| target.strip_prefix(prefix));
            if in_repository.is_none()
                && (target.is_empty() || target.contains("://") || target.starts_with("mailto:"))
            {
                continue;
            }
            let (file, anchor) = match in_repository.unwrap_or(&target).split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (in_repository.unwrap_or(&target), None),
            };
            let path = if in_repository.is_some() {
                PathBuf::from(file)
            } else if file.is_empty() {
                PathBuf::from(&doc)
            } else {
                dir.join(file)
            };
            let full = root.join(&path);
            if !full.exists() {
                let _ = writeln!(
                    problems,
                    "{doc}:{line}: `{target}`: {} does not exist",
                    path.display()
                );
                continue;
            }
            if let Some(anchor) = anchor {
                let text = if full.is_file() {
                    std::fs::read_to_string(&full).unwrap_or_default()
                } else {
                    String::new()
                };
                if !anchors(&text).contains(anchor) {
                    let _ = writeln!(
                        problems,
                        "{doc}:{line}: `{target}`: {} has no heading with the anchor #{anchor}",
                        path.display()
                    );
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{problems}");
}

/// Every TOML example of the README and the guide that pins a server (`[servers.…]`) is a
/// manifest `oma-mcp-build` reads.
#[test]
fn manifest_examples_parse() {
    let mut problems = String::new();
    let mut parsed = 0;
    for doc in documents() {
        let (fences, _) = split_fences(&read(&doc));
        for fence in fences {
            if fence.info != "toml" || !fence.body.lines().any(|l| l.starts_with("[servers.")) {
                continue;
            }
            parsed += 1;
            if let Err(e) = oma_mcp_build::manifest::Manifest::parse(
                &fence.body,
                Path::new("/project/oma-mcp.toml"),
            ) {
                let _ = writeln!(problems, "{doc}:{}: {}", fence.line, e);
            }
        }
    }
    assert!(parsed > 5, "only {parsed} manifest examples found");
    assert!(problems.is_empty(), "\n{problems}");
}

/// Fails unless the README or a chapter of the guide shows the (first) region of `path`
/// verbatim.
pub fn assert_docs_show(path: &str) {
    let region = regions()
        .into_iter()
        .find(|r| r.file == path)
        .unwrap_or_else(|| panic!("{path} has no region"));
    let shown = documents().iter().any(|doc| {
        split_fences(&read(doc))
            .0
            .iter()
            .any(|fence| fence.body == region.text)
    });
    assert!(
        shown,
        "neither README.md nor the guide shows the region of {path} verbatim: copy it there"
    );
}

#[test]
fn slugs_are_those_of_mdbook_and_github() {
    assert_eq!(
        oma_mcp_test_support::heading_anchor("Building arguments: `new` and `with_*`"),
        "building-arguments-new-and-with_"
    );
    assert_eq!(oma_mcp_test_support::heading_anchor("In CI"), "in-ci");
    assert_eq!(
        anchors("# A\n## A\n```\n# not a heading\n```\n"),
        BTreeSet::from(["a".to_owned(), "a-1".to_owned()])
    );
}
