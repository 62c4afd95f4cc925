//! The built app's files, wherever they are: a folder on disk (`--dist`) or
//! the copy compiled into the binary (feature `embed-app`, the release
//! build's). Files are named by their path inside the app (`index.html`,
//! `app-<hash>/loader.js`); each may have precompressed twins (`NAME.br`,
//! `NAME.gz`, made by `taskview precompress`). Also what a file's extension
//! says: its `Content-Type` and whether the build precompresses it.

pub(crate) mod compress;

use axum::body::Bytes;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Extension, `Content-Type`, and whether the build precompresses it.
const TYPES: &[(&str, &str, bool)] = &[
    ("html", "text/html; charset=utf-8", true),
    ("js", "text/javascript; charset=utf-8", true),
    ("mjs", "text/javascript; charset=utf-8", true),
    ("css", "text/css; charset=utf-8", true),
    ("wasm", "application/wasm", true),
    ("svg", "image/svg+xml", true),
    ("json", "application/json", true),
    ("map", "application/json", true),
    ("txt", "text/plain; charset=utf-8", true),
    ("jsonl", "text/plain; charset=utf-8", false),
    ("ndjson", "text/plain; charset=utf-8", false),
    ("png", "image/png", false),
    ("ico", "image/x-icon", false),
    ("woff2", "font/woff2", false),
];

/// The encodings the build makes, in the order the server prefers them:
/// `Content-Encoding` token and file suffix.
pub const ENCODINGS: [(&str, &str); 2] = [("br", "br"), ("gzip", "gz")];

/// The app's page, served for every app route.
pub const INDEX: &str = "index.html";

/// Where the app's files are.
#[derive(Clone, Debug, PartialEq)]
pub enum AppFiles {
    /// A built app on disk (`--dist`), read per request.
    Folder(PathBuf),
    /// The app compiled into the binary (or, in tests, loaded into memory).
    Embedded(Arc<EmbeddedApp>),
}

/// One file as found: its content, size and entity tag, and the encoding of
/// a twin (`None`: the file itself).
pub struct Representation {
    pub content: Content,
    pub len: u64,
    pub etag: String,
    pub encoding: Option<&'static str>,
}

/// A file's bytes: open on disk, or in memory.
pub enum Content {
    File(tokio::fs::File),
    Bytes(Bytes),
}

impl AppFiles {
    /// Whether `name` (a path inside the app, `/`-separated, no `.` or `..`)
    /// is a file of the app.
    pub async fn is_file(&self, name: &str) -> bool {
        match self {
            AppFiles::Folder(dir) => tokio::fs::metadata(dir.join(name))
                .await
                .is_ok_and(|meta| meta.is_file()),
            AppFiles::Embedded(app) => app.files.contains_key(name),
        }
    }

    /// The file `name` as text (the app's page, to write into).
    pub async fn read_to_string(&self, name: &str) -> std::io::Result<String> {
        match self {
            AppFiles::Folder(dir) => tokio::fs::read_to_string(dir.join(name)).await,
            AppFiles::Embedded(app) => {
                let file = app.files.get(name).ok_or_else(not_found)?;
                String::from_utf8(file.bytes.to_vec()).map_err(std::io::Error::other)
            }
        }
    }

    /// The file `name` itself, or its twin compressed with `encoding` (one of
    /// [`ENCODINGS`]); `None` when there is no such file. A twin is trusted
    /// as `taskview precompress` left it (it rewrites or removes every twin):
    /// modification times do not say which is newer once a folder is copied
    /// or the clock steps during a build (once, styles written at the
    /// start of a build were sent uncompressed, their twins looking older).
    pub async fn open(
        &self,
        name: &str,
        encoding: Option<(&'static str, &str)>,
    ) -> std::io::Result<Option<Representation>> {
        let twin = encoding.map_or_else(|| name.to_string(), |(_, suffix)| twin_name(name, suffix));
        let encoding = encoding.map(|(token, _)| token);
        match self {
            AppFiles::Folder(dir) => {
                let path = dir.join(&twin);
                let Ok(meta) = tokio::fs::metadata(&path).await else {
                    return Ok(None);
                };
                if !meta.is_file() {
                    return Ok(None);
                }
                let file = tokio::fs::File::open(&path).await?;
                let meta = file.metadata().await?;
                Ok(Some(Representation {
                    etag: disk_entity_tag(meta.len(), meta.modified().ok(), encoding),
                    len: meta.len(),
                    content: Content::File(file),
                    encoding,
                }))
            }
            AppFiles::Embedded(app) => Ok(app.files.get(&twin).map(|file| Representation {
                content: Content::Bytes(file.bytes.clone()),
                len: file.bytes.len() as u64,
                etag: match encoding {
                    Some(encoding) => format!("\"{}-{encoding}\"", file.digest),
                    None => format!("\"{}\"", file.digest),
                },
                encoding,
            })),
        }
    }
}

fn not_found() -> std::io::Error {
    std::io::ErrorKind::NotFound.into()
}

/// A built app held in memory: each file's bytes and content digest.
#[derive(PartialEq)]
pub struct EmbeddedApp {
    files: HashMap<String, EmbeddedFile>,
}

#[derive(PartialEq)]
struct EmbeddedFile {
    bytes: Bytes,
    /// The start of the bytes' SHA-256, in hex: the entity tag.
    digest: String,
}

impl std::fmt::Debug for EmbeddedApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EmbeddedApp({} files)", self.files.len())
    }
}

impl EmbeddedApp {
    /// An app of these files, `(path inside the app, bytes)`; `None` when
    /// they hold no `index.html`.
    pub fn new(files: impl IntoIterator<Item = (String, Bytes)>) -> Option<EmbeddedApp> {
        let with_digests = files.into_iter().map(|(name, bytes)| {
            let digest = Sha256::digest(&bytes).into();
            (name, bytes, digest)
        });
        EmbeddedApp::with_digests(with_digests)
    }

    fn with_digests(
        files: impl IntoIterator<Item = (String, Bytes, [u8; 32])>,
    ) -> Option<EmbeddedApp> {
        let files: HashMap<String, EmbeddedFile> = files
            .into_iter()
            .map(|(name, bytes, digest)| {
                let digest = digest[..10].iter().map(|b| format!("{b:02x}")).collect();
                (name, EmbeddedFile { bytes, digest })
            })
            .collect();
        files.contains_key(INDEX).then_some(EmbeddedApp { files })
    }

    /// The app compiled into this binary, when it was built with the feature
    /// `embed-app` (the release build); `None` otherwise.
    pub fn built_in() -> Option<Arc<EmbeddedApp>> {
        built_in::app().map(Arc::new)
    }
}

#[cfg(feature = "embed-app")]
mod built_in {
    use super::EmbeddedApp;
    use axum::body::Bytes;
    use std::borrow::Cow;

    /// `dist/` as the release build left it (build.rs reruns when it
    /// changes); Trunk's lock file and the end-to-end tests' files left out.
    #[derive(rust_embed::Embed)]
    #[folder = "../dist/"]
    #[exclude = ".*"]
    #[exclude = "e2e/*"]
    struct Dist;

    pub fn app() -> Option<EmbeddedApp> {
        let files = Dist::iter().filter_map(|name| {
            let file = Dist::get(&name)?;
            let bytes = match file.data {
                Cow::Borrowed(bytes) => Bytes::from_static(bytes),
                Cow::Owned(bytes) => Bytes::from(bytes),
            };
            Some((name.into_owned(), bytes, file.metadata.sha256_hash()))
        });
        EmbeddedApp::with_digests(files)
    }
}

#[cfg(not(feature = "embed-app"))]
mod built_in {
    /// Built without the feature `embed-app`: no app inside.
    pub fn app() -> Option<super::EmbeddedApp> {
        None
    }
}

/// `NAME.SUFFIX`, the twin of `NAME`.
pub fn twin_name(name: &str, suffix: &str) -> String {
    format!("{name}.{suffix}")
}

/// `NAME.SUFFIX` beside the file `NAME`.
pub fn twin_path(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// A strong validator of a file on disk from its size and modification time
/// (to the nanosecond), like nginx's: no need to read a file to answer `304`.
fn disk_entity_tag(len: u64, modified: Option<SystemTime>, encoding: Option<&str>) -> String {
    let nanos = modified
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    match encoding {
        Some(encoding) => format!("\"{len:x}-{nanos:x}-{encoding}\""),
        None => format!("\"{len:x}-{nanos:x}\""),
    }
}

fn type_entry(name: &str) -> Option<&'static (&'static str, &'static str, bool)> {
    let ext = Path::new(name).extension()?.to_str()?.to_ascii_lowercase();
    TYPES.iter().find(|(known, _, _)| *known == ext)
}

/// The `Content-Type` of a file, by extension.
pub fn content_type(name: &str) -> &'static str {
    type_entry(name).map_or("application/octet-stream", |(_, mime, _)| mime)
}

/// Whether the build precompresses files like this one.
pub fn is_compressible(path: &Path) -> bool {
    path.to_str()
        .and_then(type_entry)
        .is_some_and(|(_, _, compressible)| *compressible)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_tags_of_files_on_disk_differ_by_size_time_and_encoding() {
        let t = UNIX_EPOCH + std::time::Duration::from_nanos(1_500);
        assert_eq!(disk_entity_tag(16, Some(t), None), "\"10-5dc\"");
        assert_eq!(disk_entity_tag(16, Some(t), Some("br")), "\"10-5dc-br\"");
        assert_ne!(
            disk_entity_tag(17, Some(t), None),
            disk_entity_tag(16, Some(t), None)
        );
    }

    #[test]
    fn types_and_precompression_follow_the_extension() {
        assert_eq!(content_type("a_bg.wasm"), "application/wasm");
        assert_eq!(content_type("INDEX.HTML"), "text/html; charset=utf-8");
        assert_eq!(content_type("app-1/x.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("blob"), "application/octet-stream");
        assert!(is_compressible(Path::new("a.js")));
        assert!(!is_compressible(Path::new("a.png")));
        assert_eq!(
            twin_path(Path::new("/d/a.js"), "br"),
            PathBuf::from("/d/a.js.br")
        );
        assert_eq!(twin_name("app-1/a.js", "gz"), "app-1/a.js.gz");
    }

    #[tokio::test]
    async fn embedded_files_and_their_twins_are_found_by_name() {
        let app = AppFiles::Embedded(Arc::new(
            EmbeddedApp::new([
                ("index.html".to_string(), Bytes::from_static(b"<html>")),
                ("a.js".to_string(), Bytes::from_static(b"js")),
                ("a.js.br".to_string(), Bytes::from_static(b"b")),
            ])
            .unwrap(),
        ));
        assert!(app.is_file("a.js").await && !app.is_file("b.js").await);
        let br = app.open("a.js", Some(ENCODINGS[0])).await.unwrap().unwrap();
        assert_eq!((br.len, br.encoding), (1, Some("br")));
        assert!(br.etag.ends_with("-br\""), "{}", br.etag);
        assert!(app
            .open("a.js", Some(ENCODINGS[1]))
            .await
            .unwrap()
            .is_none());
        let js = app.open("a.js", None).await.unwrap().unwrap();
        assert_ne!(js.etag, br.etag);
        assert_eq!(app.read_to_string("index.html").await.unwrap(), "<html>");
        let no_page = [("a.js".to_string(), Bytes::from_static(b"js"))];
        assert!(EmbeddedApp::new(no_page).is_none(), "an app has its page");
    }
}
