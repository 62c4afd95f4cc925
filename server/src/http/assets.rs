//! Sending the built app's files over HTTP. A file is sent precompressed (`br`, `gzip`) when the
//! build made a fresh `NAME.br` / `NAME.gz` beside it (`taskview precompress`),
//! cached for good when its name carries Trunk's content hash and revalidated
//! otherwise, always with an `ETag` (and `304` on `If-None-Match`). Every app
//! route gets `index.html` (SPA fallback) with the app's Content-Security-Policy;
//! a missing file is a `404`, never the app.

use crate::app_files::{content_type, AppFiles, Content, Representation, ENCODINGS, INDEX};
use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio_util::io::ReaderStream;

/// `Cache-Control` of files whose name changes with their content.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of everything else: keep, but ask (`ETag`) before reuse.
pub const REVALIDATE: &str = "no-cache";

/// What the app's page carries on a first visit (docs/behaviour.md §10).
#[derive(Debug, Default)]
pub struct FirstVisit {
    /// The `Link` header that announces the reads the page makes first.
    pub preload: Option<HeaderValue>,
    /// The first screen's HTML, put first in `<body>`.
    pub screen: Option<String>,
}

/// Serves the app's files.
pub struct Assets {
    files: AppFiles,
    csp: HeaderValue,
    /// Markup written into the app's page (`--embed-origin`'s allow-list).
    page_meta: Option<String>,
}

impl Assets {
    /// The app's `files`; `csp` goes on the app's pages and on error pages,
    /// `page_meta` into the app's page (before `</head>`).
    pub fn new(files: AppFiles, csp: HeaderValue, page_meta: Option<String>) -> Assets {
        Assets {
            files,
            csp,
            page_meta,
        }
    }

    /// Answers a request that no API route took; `visit` is what the app's
    /// page carries on a first visit (for other files, nothing).
    pub async fn respond(&self, request: Request, visit: FirstVisit) -> Response {
        let head = match *request.method() {
            Method::GET => false,
            Method::HEAD => true,
            _ => {
                let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
                let allow = HeaderValue::from_static("GET, HEAD");
                response.headers_mut().insert(header::ALLOW, allow);
                return response;
            }
        };
        let path = request.uri().path();
        let target = match resolve(path) {
            Some(name) if self.files.is_file(&name).await => name,
            _ if looks_like_a_file(path) => return self.not_found("no such file\n"),
            _ => INDEX.to_string(),
        };
        let is_app = target == INDEX;
        let written = self.page_meta.is_some() || visit.screen.is_some();
        let sent = if is_app && written {
            let additions = (self.page_meta.as_deref(), visit.screen.as_deref());
            self.send_page(additions, request.headers(), head).await
        } else {
            self.send(&target, request.headers(), head, is_app).await
        };
        match sent {
            Ok(mut response) => {
                if let Some(link) = visit.preload.filter(|_| is_app) {
                    response.headers_mut().insert(header::LINK, link);
                }
                response
            }
            Err(e) => {
                tracing::warn!(file = %target, "cannot read: {e}");
                self.not_found("the file cannot be read\n")
            }
        }
    }

    async fn send(
        &self,
        name: &str,
        request: &HeaderMap,
        head: bool,
        is_app: bool,
    ) -> std::io::Result<Response> {
        let accept = request.get(header::ACCEPT_ENCODING);
        let (chosen, varies) = self.representation(name, accept).await?;
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(content_type(name)),
        );
        let cache = if is_content_hashed(name) {
            IMMUTABLE
        } else {
            REVALIDATE
        };
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
        let etag = HeaderValue::from_str(&chosen.etag).expect("an ETag is ASCII");
        headers.insert(header::ETAG, etag);
        if varies {
            headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        }
        if let Some(encoding) = chosen.encoding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        self.security_headers(&mut headers, is_app);
        if none_match(request.get(header::IF_NONE_MATCH), &chosen.etag) {
            headers.remove(header::CONTENT_TYPE);
            return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
        }
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(chosen.len));
        let body = match chosen.content {
            _ if head => Body::empty(),
            Content::File(file) => Body::from_stream(ReaderStream::new(file)),
            Content::Bytes(bytes) => Body::from(bytes),
        };
        Ok((StatusCode::OK, headers, body).into_response())
    }

    /// The file or its first acceptable precompressed twin (brotli, then
    /// gzip), and whether a twin exists at all (then the answer varies by
    /// `Accept-Encoding`).
    async fn representation(
        &self,
        name: &str,
        accept: Option<&HeaderValue>,
    ) -> std::io::Result<(Representation, bool)> {
        let mut varies = false;
        for encoding in ENCODINGS {
            let Some(twin) = self.files.open(name, Some(encoding)).await? else {
                continue;
            };
            varies = true;
            if accepts(accept, encoding.0) {
                return Ok((twin, true));
            }
        }
        let original = self.files.open(name, None).await?;
        Ok((original.ok_or(std::io::ErrorKind::NotFound)?, varies))
    }

    /// The app's page with markup written in, `(meta, screen)`: `meta` at the
    /// end of `<head>`, the first `screen` at the start of `<body>`. Read and
    /// written per request, so compressed per request (brotli or gzip, as
    /// accepted), its entity tag a digest of what is written, per encoding.
    async fn send_page(
        &self,
        (meta, screen): (Option<&str>, Option<&str>),
        request: &HeaderMap,
        head: bool,
    ) -> std::io::Result<Response> {
        let mut page = self.files.read_to_string(INDEX).await?;
        if let Some(meta) = meta {
            let at = page.find("</head>").unwrap_or(page.len());
            page.insert_str(at, meta);
        }
        if let Some(screen) = screen {
            let body = page
                .find("<body")
                .and_then(|at| page[at..].find('>').map(|end| at + end + 1));
            page.insert_str(body.unwrap_or(page.len()), screen);
        }
        let accept = request.get(header::ACCEPT_ENCODING);
        let encoding = ENCODINGS
            .iter()
            .map(|(encoding, _)| *encoding)
            .find(|encoding| accepts(accept, encoding));
        let digest = &crate::http::policy::csp_hash(&page)[7..27];
        let etag = match encoding {
            Some(encoding) => format!("\"{digest}-{encoding}\""),
            None => format!("\"{digest}\""),
        };
        let mut headers = HeaderMap::new();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(REVALIDATE));
        let tag = HeaderValue::from_str(&etag).expect("a base64 ETag is ASCII");
        headers.insert(header::ETAG, tag);
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        self.security_headers(&mut headers, true);
        if none_match(request.get(header::IF_NONE_MATCH), &etag) {
            return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
        }
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(content_type(INDEX)),
        );
        let level = crate::app_files::compress::PER_REQUEST_LEVEL;
        let body = match encoding {
            Some("br") => crate::app_files::compress::brotli(page.as_bytes(), level)?,
            Some(_) => crate::app_files::compress::gzip(page.as_bytes(), level)?,
            None => page.into_bytes(),
        };
        if let Some(encoding) = encoding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        let body = if head {
            Body::empty()
        } else {
            Body::from(body)
        };
        Ok((StatusCode::OK, headers, body).into_response())
    }

    fn not_found(&self, text: &'static str) -> Response {
        let mut headers = HeaderMap::new();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(REVALIDATE));
        self.security_headers(&mut headers, true);
        (StatusCode::NOT_FOUND, headers, text).into_response()
    }

    /// `nosniff` everywhere; the CSP on the app's pages and the server's own
    /// answers (other HTML of the app, such as a test's host page, is the
    /// operator's and keeps its own rules).
    fn security_headers(&self, headers: &mut HeaderMap, is_app: bool) {
        let nosniff = HeaderValue::from_static("nosniff");
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, nosniff);
        if is_app {
            headers.insert(header::CONTENT_SECURITY_POLICY, self.csp.clone());
        }
    }
}

/// The app's file that a URL path names (its path inside the app, `/`
/// between folders); `None` for paths that try to leave the app or cannot be
/// a file name.
fn resolve(path: &str) -> Option<String> {
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    let mut segments = Vec::new();
    for segment in decoded.split('/').filter(|s| !s.is_empty()) {
        if segment == "." || segment == ".." || segment.contains(['\\', '\0']) {
            return None;
        }
        segments.push(segment);
    }
    Some(segments.join("/"))
}

/// A missing path whose last segment has an extension is a missing file (404),
/// not an app route: `/e2e/gone.json` must not answer with `index.html`.
fn looks_like_a_file(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'))
}

/// Whether `If-None-Match` names this entity tag (weak comparison, `*` = any).
fn none_match(header: Option<&HeaderValue>, etag: &str) -> bool {
    let Some(list) = header.and_then(|h| h.to_str().ok()) else {
        return false;
    };
    list.split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// Whether `Accept-Encoding` accepts `coding` (by name or `*`, with q > 0).
fn accepts(header: Option<&HeaderValue>, coding: &str) -> bool {
    let Some(list) = header.and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let mut wildcard = false;
    for item in list.split(',') {
        let mut parts = item.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let quality = parts
            .find_map(|p| p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")))
            .map_or(1.0, |q| q.parse::<f32>().unwrap_or(0.0));
        if name.eq_ignore_ascii_case(coding) {
            return quality > 0.0;
        }
        if name == "*" {
            wildcard = quality > 0.0;
        }
    }
    wildcard
}

/// Trunk's hashed names at the app's top (`NAME-<16 hex digits>.EXT`, and
/// `…_bg.wasm`), and the files of a hashed folder there (`app-<16 hex
/// digits>/`, `taskview split`).
fn is_content_hashed(name: &str) -> bool {
    let hashed = |name: &str| {
        let stem = name.split('.').next().unwrap_or(name);
        let stem = stem.strip_suffix("_bg").unwrap_or(stem);
        stem.rsplit_once('-').is_some_and(|(_, hash)| {
            hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
        })
    };
    match name.split_once('/') {
        None => hashed(name),
        Some((folder, file)) => !file.contains('/') && hashed(folder),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> HeaderValue {
        HeaderValue::from_str(text).unwrap()
    }

    #[test]
    fn accept_encoding_honours_names_wildcards_and_zero_quality() {
        let cases = [
            ("gzip, deflate, br, zstd", true, true),
            ("gzip", false, true),
            ("br;q=0, gzip;q=0.5", false, true),
            ("*", true, true),
            ("*;q=0, gzip", false, true),
            ("identity", false, false),
            ("BR", true, false),
            ("br; q=0.000", false, false),
        ];
        for (header, br, gzip) in cases {
            let h = value(header);
            assert_eq!(accepts(Some(&h), "br"), br, "{header}");
            assert_eq!(accepts(Some(&h), "gzip"), gzip, "{header}");
        }
        assert!(!accepts(None, "gzip"));
    }

    #[test]
    fn if_none_match_compares_weakly_and_understands_lists_and_star() {
        let etag = "\"10-abc\"";
        assert!(none_match(Some(&value("\"10-abc\"")), etag));
        assert!(none_match(Some(&value("W/\"10-abc\"")), etag));
        assert!(none_match(Some(&value("\"x\", \"10-abc\"")), etag));
        assert!(none_match(Some(&value("*")), etag));
        assert!(!none_match(Some(&value("\"10-abd\"")), etag));
        assert!(!none_match(None, etag));
    }

    #[test]
    fn only_trunk_hashed_names_and_the_split_apps_folder_are_immutable() {
        for (name, hashed) in [
            ("taskview-app-502dc4a8da825a9e_bg.wasm", true),
            ("taskview-app-ae983bd377b67ffa.js", true),
            ("base-197b3c6f87fe8519.css", true),
            ("index.html", false),
            ("favicon.svg", false),
            ("notes-2026.json", false),
            ("app-502dc4a8da825a9g.js", false),
            (
                "app-502dc4a8da825a9e/split_live_timeline_7804949925772887851.wasm",
                true,
            ),
            ("app-502dc4a8da825a9e/__wasm_split.js", true),
            ("app-502dc4a8da825a9g/__wasm_split.js", false),
            ("recordings/__wasm_split.js", false),
            ("e2e/taskview-app-ae983bd377b67ffa.js", false),
            ("app-502dc4a8da825a9e/deeper/x.js", false),
        ] {
            assert_eq!(is_content_hashed(name), hashed, "{name}");
        }
    }

    #[test]
    fn paths_that_leave_the_app_resolve_to_nothing() {
        assert_eq!(resolve("/e2e/a%20b.json").as_deref(), Some("e2e/a b.json"));
        assert_eq!(resolve("//app-1//x.js").as_deref(), Some("app-1/x.js"));
        assert_eq!(resolve("/").as_deref(), Some(""));
        for bad in ["/../etc/passwd", "/e2e/%2e%2e/x", "/a\\b", "/%00", "/%ff"] {
            assert_eq!(resolve(bad), None, "{bad}");
        }
    }
}
