//! Reading a transcript and the files found beside it: by URL (the session's
//! companions fetched beside it), from a picked or dropped file, or from a
//! picked or dropped folder. Which files belong together is core's decision
//! (`import::folder`, `import::wanted_companions`); this module only reads.

use crate::sources::http::{get_text, HttpError};
use js_sys::{Array, Function, Promise, Reflect};
use std::collections::HashSet;
use taskview_core::read::import::folder::{companion_path, sibling_url, url_stem, SessionFiles};
use taskview_core::read::import::{
    listed_companions, opencode, wanted_among, wanted_companions, wanted_listing, COMPANION_ROUNDS,
};
use taskview_core::screen::export::{masked_note, Transcript, DATA_ID, MASKED_ATTR};
use taskview_core::screen::view::sessions::FileFacts;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, DataTransfer, File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry,
};

/// A transcript's text and the files read with it, `(path relative to the
/// transcript's folder, text)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opened {
    /// What to call it in the source bar.
    pub name: String,
    pub text: String,
    pub files: Vec<(String, String)>,
}

impl Opened {
    /// The files as the importers take them.
    pub fn file_refs(&self) -> Vec<(&str, &str)> {
        self.files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect()
    }
}

/// Reads a local file (picker or drop) as text.
pub async fn read_file(file: &File) -> Result<String, String> {
    blob_text(file, &file.name()).await
}

/// The first `bytes` of a file as text (a character cut at the end reads as U+FFFD).
pub async fn read_head(file: &File, bytes: u32) -> Result<String, String> {
    let head = file
        .slice_with_f64_and_f64(0.0, f64::from(bytes))
        .map_err(|e| format!("could not read {}: {e:?}", file.name()))?;
    blob_text(&head, &file.name()).await
}

/// The text of `blob` (part or all of the file `name`).
async fn blob_text(blob: &Blob, name: &str) -> Result<String, String> {
    let text = JsFuture::from(blob.text())
        .await
        .map_err(|e| format!("could not read {name}: {e:?}"))?;
    text.as_string()
        .ok_or_else(|| format!("{name} is not a text file"))
}

/// The name of a picked or dropped folder: the first part of its files' paths.
pub fn folder_name(files: &[(String, File)]) -> String {
    files
        .first()
        .and_then(|(path, _)| path.split('/').next())
        .unwrap_or_default()
        .to_string()
}

/// Fetches the transcript at `src` and, for a session of an agent CLI
/// (`…/<stem>.jsonl`, or an OpenCode export), the files beside it that the
/// session names, in rounds (`wanted_companions`), then, when a run no file
/// names ran, those its folder's listing names (`wanted_listing`). A
/// companion that cannot be fetched is skipped: its card keeps its
/// "transcript not loaded" note.
pub async fn fetch(src: &str) -> Result<Opened, HttpError> {
    let text = get_text(src).await?;
    let mut files: Vec<(String, String)> = Vec::new();
    // An OpenCode export's child sessions lie beside it, whatever its stem.
    let stem = url_stem(src).or_else(|| opencode::exports_beside(src, &text).then_some(""));
    if let Some(stem) = stem {
        let mut tried: HashSet<String> = HashSet::new();
        fetch_rounds(src, &text, stem, &mut files, &mut tried).await;
        // A run no file names (a foreground helper's): its folder's listing
        // names its transcript, where the server lists folders.
        let found: Vec<(&str, &str)> = files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        if let Some(folder) = wanted_listing(&text, stem, &found) {
            if let Some(listing) = get_text_opt(sibling_url(src, &folder)).await {
                let listed = listed_companions(&folder, &listing, &found);
                fetch_paths(src, listed, &mut files, &mut tried).await;
                fetch_rounds(src, &text, stem, &mut files, &mut tried).await;
            }
        }
    }
    Ok(Opened {
        name: src.to_string(),
        text,
        files,
    })
}

/// Fetches, round after round, the companions the session wants
/// (`wanted_companions`) that were not tried yet.
async fn fetch_rounds(
    src: &str,
    text: &str,
    stem: &str,
    files: &mut Vec<(String, String)>,
    tried: &mut HashSet<String>,
) {
    for _ in 0..COMPANION_ROUNDS {
        let found: Vec<(&str, &str)> = files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let wanted = wanted_companions(text, stem, &found);
        if !fetch_paths(src, wanted, files, tried).await {
            break;
        }
    }
}

/// Fetches the `paths` beside `src` not tried yet into `files`; false when
/// none was left to try.
async fn fetch_paths(
    src: &str,
    paths: Vec<String>,
    files: &mut Vec<(String, String)>,
    tried: &mut HashSet<String>,
) -> bool {
    let wanted: Vec<String> = paths
        .into_iter()
        .filter(|p| tried.insert(p.clone()))
        .collect();
    if wanted.is_empty() {
        return false;
    }
    let fetched = futures_join(wanted.iter().map(|p| get_text_opt(sibling_url(src, p)))).await;
    files.extend(
        wanted
            .into_iter()
            .zip(fetched)
            .filter_map(|(path, text)| Some((path, text?))),
    );
    true
}

async fn get_text_opt(url: String) -> Option<String> {
    get_text(&url).await.ok()
}

/// Runs the futures concurrently and returns their outputs in order.
async fn futures_join<F: std::future::Future<Output = Option<String>> + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<Option<String>> {
    let handles: Vec<_> = futures
        .map(|f| {
            let (tx, rx) = futures_channel::oneshot::channel();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = tx.send(f.await);
            });
            rx
        })
        .collect();
    let mut out = Vec::with_capacity(handles.len());
    for rx in handles {
        out.push(rx.await.ok().flatten());
    }
    out
}

/// What the session chooser knows of a folder's files (`(relative path, file)`).
pub fn facts(files: &[(String, File)]) -> Vec<FileFacts<'_>> {
    files
        .iter()
        .map(|(path, file)| FileFacts {
            path,
            size: file.size() as u64,
            modified_ms: file.last_modified(),
        })
        .collect()
}

/// Reads one session of a picked or dropped folder (`chosen`, from
/// `view::sessions::session_choices`) with its companions.
pub async fn read_session(
    files: &[(String, File)],
    chosen: &SessionFiles,
) -> Result<Opened, String> {
    let (session_path, session_file) = &files[chosen.session];
    let text = read_file(session_file).await?;
    let mut companions = Vec::with_capacity(chosen.companions.len());
    for &at in &chosen.companions {
        let (path, file) = &files[at];
        if let Ok(text) = read_file(file).await {
            companions.push((companion_path(session_path, path), text));
        }
    }
    // Then what the session wants beyond its own folder (a fork's inherited
    // runs, under the session it came from), round after round.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    for _ in 0..COMPANION_ROUNDS {
        let found: Vec<(&str, &str)> = companions
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let wanted: Vec<usize> = wanted_among(session_path, &text, &paths, &found)
            .into_iter()
            .filter(|&at| {
                let name = companion_path(session_path, paths[at]);
                companions.iter().all(|(n, _)| *n != name)
            })
            .collect();
        if wanted.is_empty() {
            break;
        }
        for at in wanted {
            let (path, file) = &files[at];
            if let Ok(text) = read_file(file).await {
                companions.push((companion_path(session_path, path), text));
            }
        }
    }
    Ok(Opened {
        name: session_path.clone(),
        text,
        files: companions,
    })
}

/// The files of a picker, with the paths a folder picker gives them
/// (`webkitRelativePath`), else their names.
pub fn picked(list: &web_sys::FileList) -> Vec<(String, File)> {
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|file| {
            let path = Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|p| p.as_string())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| file.name());
            (path, file)
        })
        .collect()
}

/// The files of a drop, with their paths: dropped folders are walked.
pub async fn dropped(data: &DataTransfer) -> Vec<(String, File)> {
    let items = data.items();
    let entries: Vec<FileSystemEntry> = (0..items.length())
        .filter_map(|i| items.get(i))
        .filter_map(|item| item.webkit_get_as_entry().ok().flatten())
        .collect();
    if entries.is_empty() {
        return data.files().map(|list| picked(&list)).unwrap_or_default();
    }
    let mut out = Vec::new();
    let mut pending = entries;
    while let Some(entry) = pending.pop() {
        if entry.is_directory() {
            let dir: FileSystemDirectoryEntry = entry.unchecked_into();
            pending.extend(read_directory(&dir).await);
        } else if let Some(file) = entry_file(entry.unchecked_ref()).await {
            let path = entry.full_path().trim_start_matches('/').to_string();
            out.push((path, file));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every entry of a dropped folder (`readEntries` answers in batches).
async fn read_directory(dir: &FileSystemDirectoryEntry) -> Vec<FileSystemEntry> {
    let reader = dir.create_reader();
    let mut all = Vec::new();
    loop {
        let batch = callback_promise(|resolve, reject| {
            reader.read_entries_with_callback_and_callback(resolve, reject)
        })
        .await;
        let Some(batch) = batch.and_then(|b| b.dyn_into::<Array>().ok()) else {
            break;
        };
        if batch.length() == 0 {
            break;
        }
        all.extend(batch.iter().map(JsCast::unchecked_into::<FileSystemEntry>));
    }
    all
}

async fn entry_file(entry: &FileSystemFileEntry) -> Option<File> {
    callback_promise(|resolve, reject| {
        entry.file_with_callback_and_callback(resolve, reject);
        Ok(())
    })
    .await
    .and_then(|f| f.dyn_into().ok())
}

/// Awaits a callback-style browser API; `None` when it fails.
async fn callback_promise(
    start: impl FnOnce(&Function, &Function) -> Result<(), JsValue>,
) -> Option<JsValue> {
    let mut start = Some(start);
    let mut started = Ok(());
    let promise = Promise::new(&mut |resolve, reject| {
        if let Some(start) = start.take() {
            started = start(&resolve, &reject);
        }
    });
    started.ok()?;
    JsFuture::from(promise).await.ok()
}

/// Whether this page is a `taskview export` file (`<html data-export="1">`).
pub fn is_export() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-export"))
        .is_some_and(|v| v == "1")
}

/// The transcript an exported page carries inline (`taskview export`), as
/// `{name, text, files: [[path, text]…]}` JSON; `None` on other pages.
pub fn exported() -> Option<Result<Opened, String>> {
    if !is_export() {
        return None;
    }
    let text = web_sys::window()?
        .document()?
        .get_element_by_id(DATA_ID)?
        .text_content()?;
    Some(
        Transcript::from_json(&text)
            .map(|t| Opened {
                name: t.name,
                text: t.text,
                files: t.files,
            })
            .ok_or_else(|| "the exported transcript is damaged".to_string()),
    )
}

/// An exported page's note of the secrets its export masked
/// (`export::masked_note`); `None` on other pages.
pub fn exported_masking() -> Option<String> {
    if !is_export() {
        return None;
    }
    let data = web_sys::window()?.document()?.get_element_by_id(DATA_ID)?;
    masked_note(data.get_attribute(MASKED_ATTR).as_deref())
}
