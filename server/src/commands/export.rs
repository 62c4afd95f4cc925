//! `taskview export`: reads a transcript (a file, or a session folder) and
//! the built app from `dist`, and writes their self-contained page
//! (`taskview_core::screen::export`, docs/behaviour.md §9), its secrets masked unless asked.

use std::path::{Path, PathBuf};
use taskview_core::read::import::folder::{
    companion_path, named_session, SessionFiles, NO_TRANSCRIPT,
};
use taskview_core::screen::export::{page as core_page, App};
pub use taskview_core::screen::export::{Page, Secrets, Transcript};
use taskview_core::screen::view::sessions::{
    main_choice, session_choices, FileFacts, TITLE_HEAD_BYTES,
};

/// Reads a transcript file, or one session of a folder with its companions:
/// `session` (its file name, with or without the extension, or its path in
/// the folder), else the one the file view opens (`main_session`).
pub fn read(path: &Path, session: Option<&str>) -> Result<Transcript, String> {
    if path.is_dir() {
        return read_folder(path, session);
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

fn read_folder(dir: &Path, session: Option<&str>) -> Result<Transcript, String> {
    let mut paths = Vec::new();
    walk(dir, dir, &mut paths)?;
    paths.sort();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let chosen = match session {
        Some(name) => named_session(&refs, name).map_err(|held| {
            format!(
                "{} holds no session {name}; it holds: {}",
                dir.display(),
                held.join(", ")
            )
        })?,
        None => main_session(dir, &paths),
    }
    .ok_or_else(|| format!("{} {NO_TRANSCRIPT}", dir.display()))?;
    let session = &paths[chosen.session];
    let mut files = Vec::with_capacity(chosen.companions.len());
    for at in chosen.companions {
        let path = &paths[at];
        files.push((companion_path(session, path), read_text(&dir.join(path))?));
    }
    Ok(Transcript {
        name: session.clone(),
        text: read_text(&dir.join(session))?,
        files,
    })
}

/// The session of the folder `dir` (holding `paths`) the file view would
/// open (`sessions::main_choice`, each session's head read for whether a
/// subagent spawned it).
fn main_session(dir: &Path, paths: &[String]) -> Option<SessionFiles> {
    let sizes: Vec<u64> = paths
        .iter()
        .map(|p| std::fs::metadata(dir.join(p)).map_or(0, |m| m.len()))
        .collect();
    let facts: Vec<FileFacts> = paths
        .iter()
        .zip(&sizes)
        .map(|(path, &size)| FileFacts {
            path,
            size,
            modified_ms: 0.0,
        })
        .collect();
    let mut choices = session_choices(&facts, 0.0);
    for choice in &mut choices {
        choice.titled(&read_head(&dir.join(&paths[choice.files.session])));
    }
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    main_choice(choices, &refs)
}

/// The first `TITLE_HEAD_BYTES` of a file, as the file view reads them
/// (empty when it cannot be read).
fn read_head(path: &Path) -> String {
    use std::io::Read;
    let mut head = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file
            .take(u64::from(TITLE_HEAD_BYTES))
            .read_to_end(&mut head);
    }
    String::from_utf8_lossy(&head).into_owned()
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
    let index = read_text(&dist.join("index.html")).map_err(|e| {
        format!("{e}; build the app first (make run or make install) or pass --dist DIR")
    })?;
    let file = |name: &str| -> PathBuf { dist.join(name.trim_start_matches('/')) };
    // A split build (`taskview split`) names its one-module twin for the export.
    let js = attribute(&index, "data-export-js")
        .or_else(|| attribute(&index, "data-js"))
        .ok_or("index.html names no app module (data-js)")?;
    let wasm = attribute(&index, "data-export-wasm")
        .or_else(|| attribute(&index, "data-wasm"))
        .ok_or("index.html names no wasm (data-wasm)")?;
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
    let wasm = std::fs::read(file(&wasm)).map_err(|e| format!("cannot read {wasm}: {e}"))?;
    Ok(Built {
        styles,
        module,
        wasm,
    })
}

/// The value of attribute `name` in minified or ordinary markup.
pub(crate) fn attribute(markup: &str, name: &str) -> Option<String> {
    let at = markup.find(&format!("{name}="))? + name.len() + 1;
    let rest = &markup[at..];
    let value = match rest.chars().next()? {
        quote @ ('"' | '\'') => rest[1..].split(quote).next()?,
        _ => rest.split([' ', '>']).next()?,
    };
    Some(value.to_string())
}

/// The whole page for `transcript` with the app built in `dist`.
pub fn page(dist: &Path, transcript: &Transcript, secrets: Secrets) -> Result<Page, String> {
    let built = read_built(dist)?;
    let app = App {
        module: &built.module,
        styles: &built.styles,
        wasm: &built.wasm,
    };
    core_page(&app, transcript, secrets)
}

/// Reads `input` (a file or a folder) and writes its page to `output`;
/// returns what masking did (`None`: secrets kept).
pub fn export(
    dist: &Path,
    input: &Path,
    session: Option<&str>,
    output: &Path,
    secrets: Secrets,
) -> Result<Option<taskview_core::screen::secrets::Masked>, String> {
    let transcript = read(input, session)?;
    let page = page(dist, &transcript, secrets)?;
    std::fs::write(output, page.html)
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    Ok(page.masked)
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
}
