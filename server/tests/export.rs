//! `taskview export` (docs/behaviour.md §9): the page inlines the built app and the
//! transcript under a CSP that allows exactly those inline pieces and no
//! network; a session folder brings its subagent files; secrets are masked
//! unless `--no-mask` says to keep them.

mod common;

use common::TempDir;
use std::process::Command;
use taskview_server::commands::export::{page, read, Secrets, Transcript};
use taskview_server::http::policy::csp_hash;

/// A built app as Trunk writes it (minified index.html).
fn built_app() -> TempDir {
    let dist = TempDir::new("export-dist");
    dist.write(
        "index.html",
        "<!doctype html><html lang=en><meta data-js=/app-1.js data-wasm=/app-1_bg.wasm name=taskview-boot>\
         <script src=/boot-1.js type=module></script><link href=/base-1.css rel=stylesheet>\
         <link href=/cards-1.css integrity=sha384-x rel=stylesheet><link href=/favicon.svg rel=icon></head>",
    );
    dist.write(
        "app-1.js",
        "async function __wbg_init(_){}export{initSync,__wbg_init as default};",
    );
    dist.write("app-1_bg.wasm", [0, 97, 115, 109, 1, 0, 0, 0]);
    dist.write("base-1.css", ":root { --bg: #fff; }");
    dist.write("cards-1.css", ".card { color: red; }");
    dist
}

/// The text between `open` and the next `close`.
fn between<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let start = text.find(open).unwrap_or_else(|| panic!("no {open}")) + open.len();
    let end = text[start..].find(close).unwrap() + start;
    &text[start..end]
}

#[test]
fn the_page_inlines_app_styles_and_data_under_a_csp_of_their_hashes_and_no_network() {
    let dist = built_app();
    let transcript = Transcript {
        name: "a <b>.json".into(),
        text: r#"{"messages":[{"content":"</script><script>alert(1)</script>"}]}"#.into(),
        files: vec![("subagents/x.jsonl".into(), "</script>".into())],
    };
    let html = page(&dist.0, &transcript, Secrets::Mask).unwrap().html;
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\" data-export=\"1\">"));
    assert!(html.contains("<title>a &lt;b&gt;.json · taskview</title>"));
    let style = between(&html, "<style>", "</style>");
    assert_eq!(style, ":root { --bg: #fff; }\n.card { color: red; }\n");
    let module = between(&html, "<script type=\"module\">", "</script>");
    assert!(module.starts_with("async function __wbg_init"));
    assert!(module.contains("await __wbg_init({module_or_path:u})"));
    let wasm = between(&html, "id=\"taskview-wasm\">", "</script>");
    assert_eq!(wasm, "AGFzbQEAAAA=");
    // Three script elements only: the transcript cannot close its own.
    assert_eq!(html.matches("<script").count(), 3);
    // Nothing secret in it: none masked.
    let data = between(
        &html,
        "id=\"taskview-export\" data-secrets-masked=\"0\">",
        "</script>",
    );
    let data: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(data["text"], transcript.text.as_str());
    assert_eq!(data["files"][0][1], "</script>");
    let csp = between(
        &html,
        "http-equiv=\"Content-Security-Policy\" content=\"",
        "\"",
    );
    assert!(csp.contains(&format!(
        "script-src '{}' 'wasm-unsafe-eval';",
        csp_hash(module)
    )));
    assert!(csp.contains(&format!("style-src '{}' 'unsafe-hashes'", csp_hash(style))));
    assert!(csp.contains("default-src 'none';") && csp.contains("connect-src 'none';"));
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("http"),
        "{csp}"
    );
}

#[test]
fn a_missing_build_is_a_clear_error() {
    let empty = TempDir::new("export-empty");
    let err = page(&empty.0, &Transcript::default(), Secrets::Mask).unwrap_err();
    assert!(err.contains("build the app first"), "{err}");
}

#[test]
fn a_session_folder_exports_its_session_with_its_subagent_files() {
    let dir = TempDir::new("export-folder");
    dir.write("notes.json", "{\"messages\":[]}");
    dir.write("abc.jsonl", "{\"type\":\"user\"}\n");
    dir.write("abc/subagents/agent-1.jsonl", "{\"type\":\"assistant\"}\n");
    dir.write("abc/subagents/agent-2.jsonl", "{}\n");
    let t = read(&dir.0, None).unwrap();
    assert_eq!(t.name, "abc.jsonl");
    assert_eq!(t.text, "{\"type\":\"user\"}\n");
    let names: Vec<&str> = t.files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["abc/subagents/agent-1.jsonl", "abc/subagents/agent-2.jsonl"]
    );
    let one = read(&dir.0.join("notes.json"), None).unwrap();
    assert_eq!((one.name.as_str(), one.files.len()), ("notes.json", 0));
    assert!(read(&dir.0.join("gone.json"), None).is_err());
    let other = read(&dir.0, Some("notes")).unwrap();
    assert_eq!((other.name.as_str(), other.files.len()), ("notes.json", 0));
    let by_path = read(&dir.0, Some("abc.jsonl")).unwrap();
    assert_eq!(
        (by_path.name.as_str(), by_path.files.len()),
        ("abc.jsonl", 2)
    );
    let unknown = read(&dir.0, Some("zzz")).unwrap_err();
    assert!(
        unknown.contains("no session zzz; it holds: abc.jsonl, notes.json"),
        "{unknown}"
    );
    let none = TempDir::new("export-none");
    none.write("readme.md", "hi");
    assert!(read(&none.0, None).unwrap_err().contains("no transcript"));
}

#[test]
fn a_folder_of_opencode_exports_exports_its_root_session_with_every_child_export() {
    // The child sessions' exports sort before the root's: only their heads
    // (`info.parentID`) say they are subagents'.
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/captures/opencode-1.18.33/parallel-wave/exports");
    let dir = TempDir::new("export-opencode");
    let mut roots = Vec::new();
    let mut children = Vec::new();
    for entry in std::fs::read_dir(capture).unwrap().map(Result::unwrap) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let export: serde_json::Value = serde_json::from_str(&text).unwrap();
        match export["info"]["parentID"].is_string() {
            true => children.push(name.clone()),
            false => roots.push(name.clone()),
        }
        dir.write(&name, text);
    }
    assert_eq!(
        (roots.len(), children.len()),
        (1, 4),
        "the capture's sessions"
    );
    let t = read(&dir.0, None).unwrap();
    assert_eq!(t.name, roots[0], "the root session, not a child's");
    let mut files: Vec<&str> = t.files.iter().map(|(n, _)| n.as_str()).collect();
    files.sort();
    children.sort();
    assert_eq!(files, children, "every child export with it");
}

const GITHUB_PAT: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
const PRIVATE_KEY: &str = "-----BEGIN RSA PRIVATE KEY-----\\n\
    zR9hImrhUziuGjQATTO6DSRqwEyBsbryPjv57vX3nytJNK+H9VILablLDZguhbtV\\n\
    tnKocmN6zXRm/LYODo/xhGOw5LK6KXA0dPBkrGj3APWwKz3GZvRb3qosyu3NK1FX\\n\
    -----END RSA PRIVATE KEY-----";

/// A session folder whose session and subagent hold secrets.
fn session_with_secrets() -> TempDir {
    let dir = TempDir::new("export-secrets");
    dir.write(
        "abc.jsonl",
        format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"push with {GITHUB_PAT}\"}}}}\n"
        ),
    );
    dir.write(
        "abc/subagents/agent-1.jsonl",
        format!("{{\"type\":\"assistant\",\"content\":\"{PRIVATE_KEY}\"}}\n"),
    );
    dir
}

/// Runs `taskview export` on `input` with `extra` flags; its stdout and page.
fn run_export(dist: &TempDir, input: &std::path::Path, extra: &[&str]) -> (String, String) {
    let output = input.with_extension("html");
    let run = Command::new(env!("CARGO_BIN_EXE_taskview"))
        .arg("export")
        .arg(input)
        .arg("-o")
        .arg(&output)
        .arg("--dist")
        .arg(&dist.0)
        .args(extra)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let html = std::fs::read_to_string(&output).unwrap();
    (String::from_utf8(run.stdout).unwrap(), html)
}

#[test]
fn export_masks_secrets_by_default_and_says_how_many() {
    let dist = built_app();
    let dir = session_with_secrets();
    let (stdout, html) = run_export(&dist, &dir.0, &[]);
    assert!(
        stdout.ends_with("\nmasked 2 secrets (1 github-pat, 1 private-key)\n"),
        "{stdout}"
    );
    assert!(!html.contains(GITHUB_PAT) && !html.contains("zR9hImrh"));
    assert!(html.contains("data-secrets-masked=\"2\""));
    let data = between(&html, "data-secrets-masked=\"2\">", "</script>");
    let data = Transcript::from_json(data).unwrap();
    assert!(data.text.contains("push with [masked: github-pat]"));
    assert_eq!(
        data.files[0].1,
        "{\"type\":\"assistant\",\"content\":\"[masked: private-key]\"}\n"
    );
}

#[test]
fn export_no_mask_keeps_secrets_and_says_so() {
    let dist = built_app();
    let dir = session_with_secrets();
    let (stdout, html) = run_export(&dist, &dir.0, &["--no-mask"]);
    assert!(stdout.ends_with("\nsecrets not masked\n"), "{stdout}");
    assert!(html.contains(GITHUB_PAT) && html.contains("zR9hImrh"));
    assert!(html.contains("data-secrets-masked=\"kept\""));
}
