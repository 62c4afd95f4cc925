//! Every command the docs show works (docs/contributing.md, "Citations"): each `taskview …`
//! line of a code block in README.md and docs/ is parsed by the server's own command line; the
//! one-shot ones that need nothing but files (`export`, `precompress`, `--help`) are run on
//! fixtures in a fresh folder; the others (`serve`, `split`) are parsed only. Each `make`
//! target the docs name is a target of the Makefile.

mod common;

use clap::Parser;
use common::TempDir;
use std::path::{Path, PathBuf};
use std::process::Command;
use taskview_server::cli::Cli;

/// One command line shown in a doc.
#[derive(Debug)]
struct Shown {
    doc: String,
    line: usize,
    words: Vec<String>,
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md and every page of docs/, as (shown name, text).
fn docs() -> Vec<(String, String)> {
    let root = repository();
    let mut pages = vec![root.join("README.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    in_docs.sort();
    pages.extend(in_docs);
    pages
        .into_iter()
        .map(|path| {
            let shown = path.strip_prefix(&root).unwrap().display().to_string();
            (shown, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// Splits a shell line into words: whitespace outside quotes, `'…'` and `"…"` quoting, a `#`
/// that starts a word begins a comment.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, '#') if !started => break,
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// The `taskview …` lines of the code blocks of `text`.
fn commands(doc: &str, text: &str) -> Vec<Shown> {
    let mut shown = Vec::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let line = line.trim_start().trim_start_matches("$ ");
        if fenced && line.starts_with("taskview ") {
            shown.push(Shown {
                doc: doc.to_string(),
                line: index + 1,
                words: shell_words(line),
            });
        }
    }
    shown
}

/// The `make` targets `text` names: `make x` at the start of a code line or of a code span.
fn make_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for piece in text.split(['`', '\n']) {
        let mut words = piece.split_whitespace();
        if words.next() == Some("make") {
            if let Some(target) = words.next() {
                targets.push(target.to_string());
            }
        }
    }
    targets
}

/// A built app as Trunk writes it, small but complete enough to export.
fn write_built_app(dir: &TempDir, dist: &str) {
    dir.write(
        &format!("{dist}/index.html"),
        "<!doctype html><html lang=en><meta data-js=/app-1.js data-wasm=/app-1_bg.wasm \
         name=taskview-boot><script src=/boot-1.js type=module></script>\
         <link href=/base-1.css rel=stylesheet></head>",
    );
    dir.write(
        &format!("{dist}/app-1.js"),
        "async function __wbg_init(_){}export{initSync,__wbg_init as default};".repeat(20),
    );
    dir.write(
        &format!("{dist}/app-1_bg.wasm"),
        [0, 97, 115, 109, 1, 0, 0, 0],
    );
    dir.write(
        &format!("{dist}/base-1.css"),
        ":root { --bg: #fff; }\n".repeat(50),
    );
}

/// Runs a shown one-shot command in a fresh folder holding what it reads; panics with the
/// doc's line when it fails or leaves nothing behind.
fn run(shown: &Shown) {
    let dir = TempDir::new("docs-command");
    let args = &shown.words[1..];
    let place = format!("{}:{}", shown.doc, shown.line);
    if args.iter().any(|a| a == "--help") {
        let out = taskview(&dir, args);
        assert!(out.status.success(), "{place}: {out:?}");
        return;
    }
    match args[0].as_str() {
        "export" => {
            let input = &args[1];
            let fixture = if input.ends_with(".jsonl") {
                "dialects/claude-code-session.jsonl"
            } else {
                "session-review-wave.json"
            };
            dir.write(input, taskview_testkit::fixture(fixture));
            write_built_app(&dir, "dist");
            let out = taskview(&dir, args);
            assert!(out.status.success(), "{place}: {out:?}");
            let output = args
                .iter()
                .position(|a| a == "-o" || a == "--output")
                .unwrap()
                + 1;
            let page = std::fs::read_to_string(dir.0.join(&args[output])).unwrap();
            assert!(page.contains("data-export"), "{place}: no exported page");
        }
        "precompress" => {
            write_built_app(&dir, &args[1]);
            let out = taskview(&dir, args);
            assert!(out.status.success(), "{place}: {out:?}");
            let twin = dir.0.join(&args[1]).join("base-1.css.br");
            assert!(twin.is_file(), "{place}: no brotli twin");
        }
        other => panic!("{place}: `{other}` is not a one-shot command"),
    }
}

fn taskview(dir: &TempDir, args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_taskview"))
        .args(args)
        .current_dir(&dir.0)
        .output()
        .unwrap()
}

fn every_shown_command() -> Vec<Shown> {
    docs()
        .iter()
        .flat_map(|(doc, text)| commands(doc, text))
        .collect()
}

#[test]
fn every_taskview_command_in_the_docs_parses_with_the_servers_command_line() {
    let shown = every_shown_command();
    assert!(
        shown.len() >= 15,
        "found only {} commands: {shown:#?}",
        shown.len()
    );
    for command in &shown {
        if let Err(e) = Cli::try_parse_from(&command.words) {
            panic!(
                "{}:{}: {:?} does not parse:\n{e}",
                command.doc, command.line, command.words
            );
        }
    }
}

#[test]
fn the_one_shot_commands_in_the_docs_run_on_fixtures() {
    let one_shot: Vec<Shown> = every_shown_command()
        .into_iter()
        .filter(|c| {
            c.words.iter().any(|w| w == "--help")
                || matches!(c.words[1].as_str(), "export" | "precompress")
        })
        .collect();
    let exports = one_shot.iter().filter(|c| c.words[1] == "export").count();
    assert!(exports >= 2, "the docs show {exports} export commands");
    for command in &one_shot {
        run(command);
    }
}

#[test]
fn every_make_target_the_docs_name_is_in_the_makefile() {
    let makefile = std::fs::read_to_string(repository().join("Makefile")).unwrap();
    let defined: Vec<&str> = makefile
        .lines()
        .filter_map(|line| line.split_once(':').map(|(target, _)| target))
        .filter(|target| !target.starts_with(['.', '#', '\t']) && !target.contains(' '))
        .collect();
    let mut named = 0;
    for (doc, text) in docs() {
        for target in make_targets(&text) {
            named += 1;
            assert!(
                defined.contains(&target.as_str()),
                "{doc}: `make {target}` is no target"
            );
        }
    }
    assert!(named >= 5, "the docs name only {named} make targets");
}

#[test]
fn shell_words_split_like_a_shell_and_drop_comments() {
    assert_eq!(
        shell_words("taskview serve --connect-origin https://x.example   # repeatable; '*' any"),
        ["taskview", "serve", "--connect-origin", "https://x.example"]
    );
    assert_eq!(
        shell_words("taskview export 'my session.jsonl' -o \"a b.html\""),
        ["taskview", "export", "my session.jsonl", "-o", "a b.html"]
    );
    assert_eq!(
        make_targets("run `make bench` or\nmake test  # all"),
        ["bench", "test"]
    );
}
