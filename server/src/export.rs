//! `taskview export`: one self-contained HTML file of a transcript (SPEC.md
//! §9). The built app's wasm (base64), its wasm-bindgen module and its styles
//! go inline with the transcript's files, under a `<meta>` Content-Security-
//! Policy that allows only those inline pieces and no network at all. The
//! page carries `data-export="1"`; the app then opens the inline transcript
//! in its file view, from `file://` as from anywhere.

use crate::policy::{csp_hash, TABLE_ALIGNMENT_STYLES};
use base64::Engine;
use serde_json::json;
use std::path::{Path, PathBuf};
use taskview_core::import::folder::main_session;

/// A transcript to export: its text, name and the files read with it
/// (`(path relative to its folder, text)`, e.g. a Claude Code session's
/// subagent files).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transcript {
    pub name: String,
    pub text: String,
    pub files: Vec<(String, String)>,
}

/// The id of the inline transcript (`<script type="application/json">`).
pub const DATA_ID: &str = "taskview-export";
/// The id of the inline wasm (base64).
const WASM_ID: &str = "taskview-wasm";

/// Reads a transcript file, or a folder as the app's folder picker does (the
/// session with the most companions, `folder::main_session`).
pub fn read(path: &Path) -> Result<Transcript, String> {
    if path.is_dir() {
        return read_folder(path);
    }
    let text = read_text(path)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    Ok(Transcript {
        name,
        text,
        files: Vec::new(),
    })
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn read_folder(dir: &Path) -> Result<Transcript, String> {
    let mut paths = Vec::new();
    walk(dir, dir, &mut paths)?;
    paths.sort();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let chosen = main_session(&refs)
        .ok_or_else(|| format!("{} holds no transcript (.json or .jsonl)", dir.display()))?;
    let session = &paths[chosen.session];
    let folder = session.rsplit_once('/').map_or("", |(d, _)| d);
    let mut files = Vec::with_capacity(chosen.companions.len());
    for at in chosen.companions {
        let path = &paths[at];
        let relative = path
            .strip_prefix(folder)
            .map_or(path.as_str(), |p| p.trim_start_matches('/'));
        files.push((relative.to_string(), read_text(&dir.join(path))?));
    }
    Ok(Transcript {
        name: session.clone(),
        text: read_text(&dir.join(session))?,
        files,
    })
}

/// Every file under `dir`, as `/`-separated paths relative to `root`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(root, &path, out)?;
        } else if let Ok(relative) = path.strip_prefix(root) {
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
    Ok(())
}

/// The built app's pieces the page inlines, named by its `index.html`.
struct Built {
    styles: String,
    module: String,
    wasm: Vec<u8>,
}

fn read_built(dist: &Path) -> Result<Built, String> {
    let index = read_text(&dist.join("index.html"))
        .map_err(|e| format!("{e}; build the app first (make build) or pass --dist DIR"))?;
    let file = |name: &str| -> PathBuf { dist.join(name.trim_start_matches('/')) };
    let js = attribute(&index, "data-js").ok_or("index.html names no app module (data-js)")?;
    let wasm = attribute(&index, "data-wasm").ok_or("index.html names no wasm (data-wasm)")?;
    let mut styles = String::new();
    for tag in index.split('<').filter(|t| t.starts_with("link ")) {
        if tag.contains("rel=stylesheet") || tag.contains("rel=\"stylesheet\"") {
            if let Some(href) = attribute(tag, "href") {
                styles.push_str(&read_text(&file(&href))?);
                styles.push('\n');
            }
        }
    }
    let module = read_text(&file(&js))?;
    if !module.contains("__wbg_init as default") {
        return Err(format!(
            "{js} is not a wasm-bindgen module this export knows"
        ));
    }
    let wasm = std::fs::read(file(&wasm)).map_err(|e| format!("cannot read {}: {e}", wasm))?;
    Ok(Built {
        styles,
        module,
        wasm,
    })
}

/// The value of attribute `name` in minified or ordinary markup.
fn attribute(markup: &str, name: &str) -> Option<String> {
    let at = markup.find(&format!("{name}="))? + name.len() + 1;
    let rest = &markup[at..];
    let value = match rest.chars().next()? {
        quote @ ('"' | '\'') => rest[1..].split(quote).next()?,
        _ => rest.split([' ', '>']).next()?,
    };
    Some(value.to_string())
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The whole page for `transcript` with the app built in `dist`.
pub fn page(dist: &Path, transcript: &Transcript) -> Result<String, String> {
    let built = read_built(dist)?;
    if built.module.contains("</script") || built.styles.contains("</style") {
        return Err("the built app contains a closing tag; it cannot be inlined".into());
    }
    let boot = format!(
        "{}\nconst b=atob(document.getElementById(\"{WASM_ID}\").textContent.trim());\
         const u=new Uint8Array(b.length);for(let i=0;i<b.length;i++)u[i]=b.charCodeAt(i);\
         await __wbg_init({{module_or_path:u}});",
        built.module
    );
    // JSON with every `<` escaped: the transcript cannot close its element.
    let data = json!({"name": transcript.name, "text": transcript.text, "files": transcript.files})
        .to_string()
        .replace('<', "\\u003c");
    let table_styles: String = TABLE_ALIGNMENT_STYLES
        .iter()
        .map(|s| format!(" '{}'", csp_hash(s)))
        .collect();
    let policy = format!(
        "default-src 'none'; script-src '{}' 'wasm-unsafe-eval'; \
         style-src '{}' 'unsafe-hashes'{table_styles}; img-src data:; connect-src 'none'; \
         base-uri 'none'; form-action 'none'",
        csp_hash(&boot),
        csp_hash(&built.styles)
    );
    let wasm = base64::engine::general_purpose::STANDARD.encode(&built.wasm);
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\" data-export=\"1\">\n<head>\n\
         <meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>{} · taskview</title>\n<link rel=\"icon\" href=\"data:,\">\n\
         <style>{}</style>\n\
         <script type=\"application/json\" id=\"{DATA_ID}\">{data}</script>\n\
         <script type=\"application/octet-stream\" id=\"{WASM_ID}\">{wasm}</script>\n\
         <script type=\"module\">{boot}</script>\n\
         </head>\n<body></body>\n</html>\n",
        escape_html(&transcript.name),
        built.styles,
    ))
}

/// Reads `input` (a file or a folder) and writes its page to `output`.
pub fn export(dist: &Path, input: &Path, output: &Path) -> Result<(), String> {
    let transcript = read(input)?;
    let html = page(dist, &transcript)?;
    std::fs::write(output, html).map_err(|e| format!("cannot write {}: {e}", output.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_read_quoted_or_not() {
        let tag = "<meta data-js=/a-1.js data-wasm=\"/a_bg.wasm\" name=taskview-boot>";
        assert_eq!(attribute(tag, "data-js").as_deref(), Some("/a-1.js"));
        assert_eq!(attribute(tag, "data-wasm").as_deref(), Some("/a_bg.wasm"));
        assert_eq!(attribute(tag, "href"), None);
    }

    #[test]
    fn names_are_escaped_for_the_title() {
        assert_eq!(
            escape_html("<b a=\"1\">&"),
            "&lt;b a=&quot;1&quot;&gt;&amp;"
        );
    }
}
