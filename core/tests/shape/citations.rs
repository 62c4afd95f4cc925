//! Every citation points at something the repository holds (docs/contributing.md,
//! "Citations"): a document named in code, tests, scripts or docs (`docs/behaviour.md`,
//! `e2e/README.md`) exists, relative to the repository or to the citing file; a section
//! cited after it (`docs/behaviour.md §3.2, §4`) is a numbered heading of that document, and
//! a heading named in quotes right after it (`README.md "Install"`) is one of its headings;
//! inside `docs/`, a bare `§N` names a section of the page itself. Issue numbers are not
//! citations: a clone has no tracker.
//!
//! Left out: builds, installed packages, fixtures (recorded input, cited as written by other
//! tools), vendored files and lockfiles. The `checker` tests run the same rules on a made-up
//! tree, so the check is seen to find what it looks for.

use super::walk::{self, workspace};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Text files that may cite documents.
const CHECKED: [&str; 11] = [
    ".rs", ".mjs", ".js", ".md", ".toml", ".sh", ".css", ".html", ".json", ".yml", ".yaml",
];

/// Extensionless files that may cite documents.
const CHECKED_NAMES: [&str; 2] = ["Makefile", "run"];

/// Documents the project used to cite from outside the repository: named without a folder,
/// they are citations (a bare name that is not one of these and that the repository does not
/// hold is an example, such as a file a test writes).
const RETIRED: [&str; 8] = [
    "SPEC.md",
    "ARCHITECTURE.md",
    "kandev-wire.md",
    "dialects.md",
    "agents-today.md",
    "agents-more.md",
    "peers.md",
    "toolchain.md",
];

/// This file: its tests hold made-up citations on purpose.
const THIS_FILE: &str = "core/tests/shape/citations.rs";

/// One citation that points nowhere.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    file: String,
    line: usize,
    what: String,
}

/// Every checked file below `root`, as shown relative to it.
fn files(root: &Path) -> Vec<(String, PathBuf)> {
    let folder = |name: &str| {
        let hidden = name.starts_with('.') && name != ".ci" && name != ".cargo";
        !hidden && !super::walk::NOT_OURS.contains(&name)
    };
    let file = |name: &str| {
        (CHECKED.iter().any(|ext| name.ends_with(ext)) || CHECKED_NAMES.contains(&name))
            && !name.ends_with("-lock.json")
    };
    walk::files(root, &folder, &file)
}

/// The section numbers and heading texts of a markdown document: `## 3. The card` gives `3`
/// and `the card`, `### 3.2 Chip formats` gives `3.2` and `chip formats`.
fn headings(text: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut numbers, mut names) = (BTreeSet::new(), BTreeSet::new());
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let title = title.trim_start_matches('§').trim();
        let number: String = title
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
            .collect();
        let number = number.trim_end_matches('.');
        if number.starts_with(|c: char| c.is_ascii_digit()) {
            numbers.insert(number.to_string());
            let rest = title[number.len()..].trim_start_matches('.').trim();
            names.insert(rest.to_lowercase());
        }
        names.insert(title.to_lowercase());
    }
    (numbers, names)
}

/// The document a cited path names, if the repository holds it: relative to the root, else
/// to the citing file's folder.
fn resolve(root: &Path, citing: &str, cited: &str) -> Option<PathBuf> {
    let from_root = root.join(cited);
    if from_root.is_file() {
        return Some(from_root);
    }
    let folder = Path::new(citing).parent().unwrap_or(Path::new(""));
    let from_file = root.join(folder).join(cited);
    from_file.is_file().then_some(from_file)
}

/// Skips what may sit between the sections of one citation: spaces, commas, `and`, and a
/// comment's leader at the start of a wrapped line.
fn skip_joiners(text: &str) -> &str {
    let mut rest = text;
    loop {
        let before = rest.len();
        rest = rest.trim_start_matches([' ', '\t', '\n', ',', ';']);
        for leader in ["//!", "///", "//", "#", "* ", "and ", "or "] {
            if let Some(after) = rest.strip_prefix(leader) {
                rest = after;
            }
        }
        if rest.len() == before {
            return rest;
        }
    }
}

/// A section number at the start of `text` (`3.2`, `11.4`, `1.4`), and what follows it.
fn section(text: &str) -> Option<(&str, &str)> {
    let len = text
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
        .map(|(i, c)| i + c.len_utf8())
        .last()?;
    let number = text[..len].trim_end_matches('.');
    (!number.is_empty()).then(|| (number, &text[number.len()..]))
}

/// Skips the qualifiers a section may carry: `item 6`, `step 1`, `a`, a range `–1.5` or
/// `–§5`, a list name (`ACP 4`, `Claude Code 7–8`) and a quoted label.
fn skip_qualifiers(text: &str) -> (&str, Vec<&str>) {
    let mut rest = text;
    let mut more = Vec::new();
    loop {
        let before = rest.len();
        for word in [" item ", " step ", " ACP ", " Claude Code ", " part "] {
            if let Some(after) = rest.strip_prefix(word) {
                rest = after.trim_start_matches(|c: char| c.is_ascii_digit() || c == '–');
            }
        }
        if let Some(after) = rest.strip_prefix('–').or_else(|| rest.strip_prefix("–§")) {
            let after = after.trim_start_matches('§');
            if let Some((number, after)) = section(after) {
                more.push(number);
                rest = after;
            }
        }
        for letter in [" a", " b", " c"] {
            if rest.starts_with(letter) && !rest[letter.len()..].starts_with(char::is_alphanumeric)
            {
                rest = &rest[letter.len()..];
            }
        }
        if let Some(after) = rest.strip_prefix(" \"") {
            rest = after.split_once('"').map_or(after, |(_, after)| after);
        }
        if rest.len() == before {
            return (rest, more);
        }
    }
}

/// Where a document name cited at `start` ends, with its path: `docs/behaviour.md`,
/// `e2e/README.md`; `None` when the characters there make no document name, or it is part
/// of a URL.
fn document_at(line: &str, end: usize) -> Option<(usize, &str)> {
    let start = line[..end]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || "_-./".contains(c)))
        .map_or(0, |i| i + 1);
    let name = &line[start..end];
    let word_start = line[..start]
        .rfind(char::is_whitespace)
        .map_or(0, |i| i + 1);
    let stem = name
        .trim_end_matches(".md")
        .rsplit('/')
        .next()
        .unwrap_or("");
    let in_url = line[word_start..start].contains("://") || name.starts_with("//");
    (!stem.is_empty() && !in_url).then_some((start, name))
}

/// Whether `at` sits inside a string literal of a Rust or JavaScript line (an odd number of
/// `"` before it, outside a comment): a file name a test writes, not a citation.
fn in_code_string(shown: &str, text: &str, at: usize) -> bool {
    let code = [".rs", ".mjs", ".js"]
        .iter()
        .any(|ext| shown.ends_with(ext));
    let line = &text[text[..at].rfind('\n').map_or(0, |i| i + 1)..at];
    code && !line.contains("//") && line.matches('"').count() % 2 == 1
}

/// What one file cites that the repository does not hold.
fn check_file(root: &Path, shown: &str, text: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    let own_sections =
        (shown.starts_with("docs/") && shown.ends_with(".md")).then(|| headings(text));
    let mut report = |at: usize, what: String| {
        let line = text[..at].matches('\n').count() + 1;
        found.push(Finding {
            file: shown.to_string(),
            line,
            what,
        });
    };
    let mut cited_sections: BTreeSet<usize> = BTreeSet::new();
    for (end, _) in text.match_indices(".md").map(|(i, m)| (i + m.len(), m)) {
        if text[end..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some((start, name)) = document_at(text, end) else {
            continue;
        };
        let quoted = ['"', '\'']
            .iter()
            .any(|q| text[..start].ends_with(*q) && text[end..].starts_with(*q))
            || in_code_string(shown, text, start);
        let Some(doc) = resolve(root, shown, name) else {
            let example = !name.contains('/') && !RETIRED.contains(&name);
            if !quoted && !example {
                report(start, format!("{name}: no such file in the repository"));
            }
            continue;
        };
        check_sections(
            &doc,
            name,
            &text[end..],
            end,
            &mut cited_sections,
            &mut report,
        );
    }
    for (at, _) in text.match_indices("README \"") {
        let Some(doc) = resolve(root, shown, "README.md") else {
            report(at, "README: no README.md beside it".to_string());
            continue;
        };
        let after = at + "README".len();
        check_sections(
            &doc,
            "README",
            &text[after..],
            after,
            &mut cited_sections,
            &mut report,
        );
    }
    if let Some((numbers, _)) = &own_sections {
        for (at, _) in text.match_indices('§') {
            if cited_sections.contains(&at) || text[..at].ends_with('–') {
                continue;
            }
            let after = skip_joiners(&text[at + '§'.len_utf8()..]);
            if let Some((number, _)) = section(after) {
                if !numbers.contains(number) {
                    report(at, format!("§{number}: no such section in this page"));
                }
            }
        }
    }
    for (at, word) in issue_numbers(text) {
        report(
            at,
            format!("{word}: a tracker a clone does not have; cite the doc instead"),
        );
    }
    found
}

/// Checks the sections (`§N`) or the quoted heading that follow a citation of `doc`, noting
/// where each `§` was read so the page's own check skips it.
fn check_sections(
    doc: &Path,
    name: &str,
    after: &str,
    offset: usize,
    cited: &mut BTreeSet<usize>,
    report: &mut impl FnMut(usize, String),
) {
    let Ok(body) = fs::read_to_string(doc) else {
        return;
    };
    let (numbers, names) = headings(&body);
    let quoted = after
        .strip_prefix(" \"")
        .or_else(|| after.strip_prefix(", \""))
        .or_else(|| after.strip_prefix(" §\""));
    if let Some(quoted) = quoted {
        let heading = quoted.split('"').next().unwrap_or("").to_lowercase();
        if !heading.contains('\n') && !names.contains(&heading) {
            report(offset, format!("{name} \"{heading}\": no such heading"));
        }
        return;
    }
    let mut rest = after;
    loop {
        let next = skip_joiners(rest);
        let Some(sign) = next.strip_prefix('§') else {
            return;
        };
        let at = offset + (after.len() - next.len());
        cited.insert(at);
        let Some((number, tail)) = section(sign.trim_start()) else {
            return;
        };
        let (tail, more) = skip_qualifiers(tail);
        for number in std::iter::once(number).chain(more) {
            if !numbers.contains(number) {
                report(at, format!("{name} §{number}: no such section"));
            }
        }
        rest = tail;
    }
}

/// `issue 12`, `Issue 25`, `issues 24 and 26`: where each stands, and the words.
fn issue_numbers(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for word in ["issue ", "Issue ", "issues ", "Issues "] {
        for (at, _) in text.match_indices(word) {
            let before_ok = !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric());
            if before_ok && text[at + word.len()..].starts_with(|c: char| c.is_ascii_digit()) {
                let digits: String = text[at + word.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                out.push((at, format!("{word}{digits}")));
            }
        }
    }
    out
}

/// Every citation below `root` that points nowhere.
fn check(root: &Path) -> Vec<Finding> {
    let mut found = Vec::new();
    for (shown, path) in files(root) {
        if shown == THIS_FILE {
            continue;
        }
        if let Ok(text) = fs::read_to_string(&path) {
            found.extend(check_file(root, &shown, &text));
        }
    }
    found.sort();
    found
}

#[test]
fn every_citation_points_at_a_document_and_section_the_repository_holds() {
    let root = workspace();
    let files = files(&root);
    for reached in [
        "core/src/lib.rs",
        "docs/behaviour.md",
        "e2e/README.md",
        "Makefile",
    ] {
        assert!(
            files.iter().any(|(shown, _)| shown == reached),
            "the walk reaches {reached}"
        );
    }
    let found: Vec<String> = check(&root)
        .into_iter()
        .map(|f| format!("{}:{}: {}", f.file, f.line, f.what))
        .collect();
    assert!(
        found.is_empty(),
        "citations that point nowhere:\n{}",
        found.join("\n")
    );
}

mod checker {
    use super::*;

    /// A made-up repository: `files` as (path, text), written below a fresh folder.
    fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("citations-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        root
    }

    const DOC: &str = "# Rules\n\n## 1. One\n\n### 1.1 Sub\n\n## 2. Two\n\n## Named part\n\n```\n## 9. In a fence\n```\n";

    fn findings(root: &Path) -> Vec<(String, usize, String)> {
        check(root)
            .into_iter()
            .map(|f| (f.file, f.line, f.what))
            .collect()
    }

    #[test]
    fn citations_of_what_the_tree_holds_pass() {
        let root = tree(
            "good",
            &[
                ("docs/rules.md", DOC),
                ("README.md", "# It\n\n## Install\n\nSee [rules](docs/rules.md).\n"),
                (
                    "src/lib.rs",
                    "//! The rule (docs/rules.md §1.1, §2 and §1; docs/rules.md §1 item 6).\n\
                     /// Wrapped (docs/rules.md §1,\n/// §2) and named (docs/rules.md \"Named part\").\n\
                     /// A range: docs/rules.md §1–§2; a label: docs/rules.md §2 \"Two\".\n",
                ),
                ("e2e/README.md", "# e2e\n\nAs README.md says, and ../README.md \"Install\".\n"),
                ("Makefile", "# README \"Install\"\nrun:\n\ttrue\n"),
                ("docs/other.md", "# Other\n\n## 1. Only\n\nAs §1 says, and rules.md §2.\n"),
                ("core/src/x.rs", "// https://example.com/SPEC.md and google/gemini#20258\n"),
                (
                    "core/tests/y.rs",
                    "let t = \"see `plan.md`, cat: CHANGELOG.md\";\nlet h = r#\"<a href=\"x/y.md\">\"#;\nrender(\"[a](x/z.md)\");\n\
                     drop(['-repo/notes.md', 'hi']);\n",
                ),
            ],
        );
        assert_eq!(findings(&root), vec![]);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn citations_of_what_the_tree_lacks_are_found_each_with_its_line() {
        let root = tree(
            "bad",
            &[
                ("docs/rules.md", DOC),
                (
                    "src/lib.rs",
                    "//! As SPEC.md §5 says (reference/dialects.md §2.4).\n\
                     //! docs/nonexistent.md, docs/rules.md §3 and docs/rules.md §1.1, §9.\n\
                     //! docs/rules.md \"Unnamed\"; issue 12 and Issues 24.\n",
                ),
                ("docs/other.md", "# Other\n\n## 1. Only\n\nAs §4 says.\n"),
                ("Makefile", "# README \"Install\"\n"),
            ],
        );
        let expected = vec![
            ("Makefile", 1, "README: no README.md beside it"),
            ("docs/other.md", 5, "§4: no such section in this page"),
            ("src/lib.rs", 1, "SPEC.md: no such file in the repository"),
            (
                "src/lib.rs",
                1,
                "reference/dialects.md: no such file in the repository",
            ),
            (
                "src/lib.rs",
                2,
                "docs/nonexistent.md: no such file in the repository",
            ),
            ("src/lib.rs", 2, "docs/rules.md §3: no such section"),
            ("src/lib.rs", 2, "docs/rules.md §9: no such section"),
            (
                "src/lib.rs",
                3,
                "Issues 24: a tracker a clone does not have; cite the doc instead",
            ),
            (
                "src/lib.rs",
                3,
                "docs/rules.md \"unnamed\": no such heading",
            ),
            (
                "src/lib.rs",
                3,
                "issue 12: a tracker a clone does not have; cite the doc instead",
            ),
        ];
        let expected: Vec<(String, usize, String)> = expected
            .into_iter()
            .map(|(f, l, w)| (f.to_string(), l, w.to_string()))
            .collect();
        assert_eq!(findings(&root), expected);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn builds_packages_fixtures_and_vendored_files_are_not_read() {
        let cites = "SPEC.md §5, issue 7\n";
        let root = tree(
            "skipped",
            &[
                ("target/debug/x.rs", cites),
                ("e2e/node_modules/pkg/README.md", cites),
                ("tests/fixtures/real/README.md", cites),
                ("core/vendor/gitleaks/README.md", cites),
                ("e2e/package-lock.json", cites),
                ("src/lib.rs", "//! Nothing cited.\n"),
            ],
        );
        assert_eq!(findings(&root), vec![]);
        fs::remove_dir_all(root).unwrap();
    }
}
