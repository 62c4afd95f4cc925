//! How `taskview serve` sends the built app (docs/behaviour.md §10: served
//! compressed, hashed assets cached for good): precompressed twins, caching
//! headers, entity tags and `304`, and the Content-Security-Policy of the
//! app's pages, on files, SPA fallback routes and 404s alike; the same
//! whether the app is a folder (`--dist`) or built into the binary.

mod common;

use common::*;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use taskview_server::app_files::EmbeddedApp;
use taskview_server::commands::precompress::precompress;
use taskview_server::http::policy::Policy;
use taskview_server::{Config, RunningServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const INDEX: &str = "<!doctype html><title>taskview</title><script type=\"module\" src=\"/boot-0123456789abcdef.js\"></script>";
const JS: &str = "js-0123456789abcdef.js";
const WASM: &str = "app-fedcba9876543210_bg.wasm";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const APP_ROUTES: [&str; 7] = [
    "/",
    "/index.html",
    "/board/wf-demo",
    "/task/task-demo-wave",
    "/embed/task/x",
    "/embed/view",
    "/view?src=/e2e/notes.json",
];

/// A built app in a temporary folder, precompressed like a release build,
/// with a test file beside it as the e2e harness serves them.
fn built_app() -> (TempDir, String) {
    let dist = TempDir::new("assets");
    let js = "export function start() { console.log('taskview'); }\n".repeat(40);
    dist.write("index.html", INDEX.repeat(4));
    dist.write(JS, &js);
    dist.write(WASM, [0, 97, 115, 109, 1, 0, 0, 0].repeat(200));
    dist.write("favicon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
    precompress(&dist.0).unwrap();
    dist.write("e2e/notes.json", "[]");
    (dist, js)
}

/// Where a test's server takes the app from.
#[derive(Clone, Copy, Debug)]
enum From {
    /// The folder, as `--dist` does.
    Folder,
    /// A copy in memory, as the release binary holds it.
    Embedded,
}

/// A test per source of the app: `check(From::Folder)` and `check(From::Embedded)`.
macro_rules! from_both {
    ($check:ident: $folder:ident, $embedded:ident) => {
        #[tokio::test]
        async fn $folder() {
            $check(From::Folder).await
        }

        #[tokio::test]
        async fn $embedded() {
            $check(From::Embedded).await
        }
    };
}

async fn serve_app(dist: &TempDir, policy: Policy) -> RunningServer {
    serve_app_from(dist, policy, From::Folder).await
}

async fn serve_app_from(dist: &TempDir, policy: Policy, from: From) -> RunningServer {
    let (dist, embedded) = match from {
        From::Folder => (Some(dist.0.clone()), None),
        From::Embedded => (None, Some(embedded_copy(&dist.0))),
    };
    start(Config {
        dist,
        embedded,
        policy,
        ..config(demo())
    })
    .await
}

/// Every file of `dir` (at any depth), by its path inside it.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().to_str().unwrap();
                files.push((name.replace('\\', "/"), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The app in `dir` held in memory, as the release build embeds it.
fn embedded_copy(dir: &Path) -> Arc<EmbeddedApp> {
    let files = files_of(dir)
        .into_iter()
        .map(|(name, bytes)| (name, bytes.into()));
    Arc::new(EmbeddedApp::new(files).expect("the app has an index.html"))
}

from_both!(precompressed_as_accepted: precompressed_as_accepted_from_a_folder, precompressed_as_accepted_from_the_embedded_app);

async fn precompressed_as_accepted(from: From) {
    let (dist, js) = built_app();
    let server = serve_app_from(&dist, Policy::default(), from).await;
    let path = format!("/{JS}");

    let (status, h, body) =
        fetch(&server, &path, &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-encoding"), Some("br"));
    assert_eq!(unbrotli(&body), js.as_bytes());
    assert_eq!(
        header(&h, "content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(header(&h, "vary"), Some("accept-encoding"));

    let (_, h, body) = fetch(&server, &path, &[("accept-encoding", "gzip;q=1, br;q=0")]).await;
    assert_eq!(header(&h, "content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&body), js.as_bytes());

    let (_, h, body) = fetch(&server, &path, &[]).await;
    assert_eq!(header(&h, "content-encoding"), None);
    assert_eq!(body, js.as_bytes());
    assert_eq!(
        header(&h, "vary"),
        Some("accept-encoding"),
        "caches must key on it"
    );
    assert_eq!(
        header(&h, "content-length"),
        Some(js.len().to_string().as_str())
    );

    let (_, h, body) = fetch(&server, &format!("/{WASM}"), &[("accept-encoding", "br")]).await;
    assert_eq!(header(&h, "content-type"), Some("application/wasm"));
    assert_eq!(header(&h, "content-encoding"), Some("br"));
    assert_eq!(unbrotli(&body).len(), 1600);
    server.shutdown().await.unwrap();
}

from_both!(hashed_immutable_others_revalidate: hashed_immutable_others_revalidate_from_a_folder, hashed_immutable_others_revalidate_from_the_embedded_app);

async fn hashed_immutable_others_revalidate(from: From) {
    let (dist, _) = built_app();
    let server = serve_app_from(&dist, Policy::default(), from).await;
    for path in [format!("/{JS}"), format!("/{WASM}")] {
        let (status, h, _) = fetch(&server, &path, &[("accept-encoding", "br")]).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&h, "cache-control"), Some(IMMUTABLE), "{path}");
        assert_eq!(
            header(&h, "x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert!(header(&h, "etag").is_some(), "{path}");
    }
    for path in ["/favicon.svg", "/e2e/notes.json"]
        .into_iter()
        .chain(APP_ROUTES)
    {
        let (status, h, _) = fetch(&server, path, &[]).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&h, "cache-control"), Some("no-cache"), "{path}");
        assert!(header(&h, "etag").is_some(), "{path}");
    }
    server.shutdown().await.unwrap();
}

from_both!(entity_tags_answer_304_per_representation: entity_tags_answer_304_per_representation_from_a_folder, entity_tags_answer_304_per_representation_from_the_embedded_app);

async fn entity_tags_answer_304_per_representation(from: From) {
    let (dist, _) = built_app();
    let server = serve_app_from(&dist, Policy::default(), from).await;
    for (path, encoding) in [
        (format!("/{JS}"), "br"),
        (format!("/{JS}"), "gzip"),
        (format!("/{JS}"), "identity"),
        ("/task/x".to_string(), "gzip"),
        ("/favicon.svg".to_string(), "gzip"),
    ] {
        let accept = [("accept-encoding", encoding)];
        let (_, first, _) = fetch(&server, &path, &accept).await;
        let etag = header(&first, "etag").unwrap().to_string();
        let (status, h, body) = fetch(&server, &path, &[accept[0], ("if-none-match", &etag)]).await;
        assert_eq!((status, body.len()), (304, 0), "{path} {encoding}");
        assert_eq!(header(&h, "etag"), Some(etag.as_str()), "{path}");
        assert_eq!(
            header(&h, "cache-control"),
            header(&first, "cache-control"),
            "{path}"
        );
        let weak = format!("W/{etag}");
        let (status, ..) = fetch(&server, &path, &[accept[0], ("if-none-match", &weak)]).await;
        assert_eq!(status, 304, "weak comparison: {path}");
        let (status, ..) =
            fetch(&server, &path, &[accept[0], ("if-none-match", "\"other\"")]).await;
        assert_eq!(status, 200, "{path}");
    }
    // The same file in another encoding is another representation.
    let (_, br, _) = fetch(&server, &format!("/{JS}"), &[("accept-encoding", "br")]).await;
    let (_, gz, _) = fetch(&server, &format!("/{JS}"), &[("accept-encoding", "gzip")]).await;
    assert_ne!(header(&br, "etag"), header(&gz, "etag"));
    let stale = header(&gz, "etag").unwrap();
    let (status, ..) = fetch(
        &server,
        &format!("/{JS}"),
        &[("accept-encoding", "br"), ("if-none-match", stale)],
    )
    .await;
    assert_eq!(status, 200);
    server.shutdown().await.unwrap();
}

from_both!(csp_on_app_routes_and_404s: csp_on_app_routes_and_404s_from_a_folder, csp_on_app_routes_and_404s_from_the_embedded_app);

async fn csp_on_app_routes_and_404s(from: From) {
    let (dist, _) = built_app();
    let server = serve_app_from(&dist, Policy::default(), from).await;
    let policy = Policy::default().header();
    let csp = policy.to_str().unwrap();
    for path in APP_ROUTES {
        let (status, h, body) = fetch(&server, path, &[]).await;
        assert_eq!(status, 200, "{path}");
        let page = String::from_utf8(body).unwrap();
        // A task page of a task the backend has adds its first screen (docs/behaviour.md §10).
        if path.starts_with("/task/") {
            assert!(page.starts_with(&INDEX.repeat(4)), "{path}");
            assert!(page.contains("id=\"first-screen\""), "{path}");
        } else {
            assert_eq!(page, INDEX.repeat(4), "{path}");
        }
        assert_eq!(header(&h, "content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(header(&h, "content-security-policy"), Some(csp), "{path}");
        assert_eq!(
            header(&h, "x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
    }
    for path in [
        "/e2e/gone.json",
        "/missing-0123456789abcdef.js",
        "/favicon.ico",
    ] {
        let (status, h, body) = fetch(&server, path, &[("accept-encoding", "br")]).await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(body, b"no such file\n", "{path}");
        assert_eq!(header(&h, "cache-control"), Some("no-cache"), "{path}");
        assert_eq!(header(&h, "content-security-policy"), Some(csp), "{path}");
        assert_eq!(
            header(&h, "x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(header(&h, "etag"), None, "{path}");
    }
    // Files are not pages: the policy travels with the app's documents only.
    let (_, h, _) = fetch(&server, &format!("/{JS}"), &[]).await;
    assert_eq!(header(&h, "content-security-policy"), None);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn origin_flags_shape_connect_src_and_frame_ancestors() {
    let (dist, _) = built_app();
    let policy = Policy {
        connect: vec!["https://kandev.example".parse().unwrap()],
        embed: vec!["https://docs.example".parse().unwrap()],
    };
    let server = serve_app(&dist, policy).await;
    let (_, h, _) = fetch(&server, "/embed/view", &[]).await;
    let csp = header(&h, "content-security-policy").unwrap();
    assert!(
        csp.contains("frame-ancestors 'self' https://docs.example;"),
        "{csp}"
    );
    assert!(
        csp.contains(" https://kandev.example wss://kandev.example;"),
        "{csp}"
    );
    assert!(
        csp.contains("script-src 'self' 'wasm-unsafe-eval';"),
        "{csp}"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn twins_older_than_their_file_head_and_other_methods() {
    let (dist, js) = built_app();
    // A file that looks newer than its twins, as after a copy of the folder
    // or a clock step during the build (once, four styles went out
    // uncompressed): the twins are the build's all the same.
    let later = SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(dist.0.join(JS))
        .unwrap()
        .set_modified(later)
        .unwrap();
    let server = serve_app(&dist, Policy::default()).await;
    let path = format!("/{JS}");
    let (_, h, body) = fetch(&server, &path, &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(header(&h, "content-encoding"), Some("br"));
    assert_eq!(unbrotli(&body), js.as_bytes());
    let (_, h, body) = fetch(&server, &path, &[]).await;
    assert_eq!(header(&h, "content-encoding"), None);
    assert_eq!(body, js.as_bytes());

    let url = format!("http://{}{path}", server.addr());
    let head = reqwest::Client::new().head(&url).send().await.unwrap();
    assert_eq!(head.status().as_u16(), 200);
    let length = head.headers()["content-length"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(length, js.len().to_string());
    assert!(head.bytes().await.unwrap().is_empty());

    let post = reqwest::Client::new().post(&url).send().await.unwrap();
    assert_eq!(post.status().as_u16(), 405);
    assert_eq!(post.headers()["allow"], "GET, HEAD");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn paths_cannot_leave_the_app_folder() {
    let root = TempDir::new("escape");
    root.write("site/index.html", INDEX);
    root.write("secret.txt", "secret");
    let server = start(Config {
        dist: Some(root.0.join("site")),
        ..config(demo())
    })
    .await;
    for path in [
        "/%2e%2e/secret.txt",
        "/e2e/..%2f..%2fsecret.txt",
        "/x/%2E%2E/%2e%2e/secret.txt",
    ] {
        // A raw request: HTTP clients would normalise the dots away.
        let mut socket = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        socket.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        socket.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 404"), "{path}: {answer}");
        assert!(!answer.ends_with("\r\n\r\nsecret"), "{path}: {answer}");
    }
    server.shutdown().await.unwrap();
}

from_both!(embed_origins_in_frame_ancestors_and_the_page: embed_origins_in_frame_ancestors_and_the_page_from_a_folder, embed_origins_in_frame_ancestors_and_the_page_from_the_embedded_app);

async fn embed_origins_in_frame_ancestors_and_the_page(from: From) {
    let (dist, _) = built_app();
    // Without --embed-origin: same origin only, and the page is sent as built.
    let server = serve_app_from(&dist, Policy::default(), from).await;
    let (_, h, body) = fetch(&server, "/embed/view", &[]).await;
    let csp = header(&h, "content-security-policy").unwrap();
    assert!(csp.contains("frame-ancestors 'self';"), "{csp}");
    assert_eq!(String::from_utf8(body).unwrap(), INDEX.repeat(4));
    server.shutdown().await.unwrap();

    let policy = Policy {
        embed: vec![
            "http://localhost:9000".parse().unwrap(),
            "https://docs.example".parse().unwrap(),
        ],
        ..Policy::default()
    };
    let server = serve_app_from(&dist, policy, from).await;
    let meta = "<meta name=\"taskview-embed-origins\" content=\"http://localhost:9000 https://docs.example\">";
    for path in ["/embed/view", "/embed/task/x", "/"] {
        let (status, h, body) = fetch(&server, path, &[("accept-encoding", "br, gzip")]).await;
        assert_eq!(status, 200, "{path}");
        let csp = header(&h, "content-security-policy").unwrap();
        assert!(
            csp.contains("frame-ancestors 'self' http://localhost:9000 https://docs.example;"),
            "{csp}"
        );
        // The page is compressed as it is sent (it differs per request).
        assert_eq!(header(&h, "content-encoding"), Some("br"), "{path}");
        let body = String::from_utf8(unbrotli(&body)).unwrap();
        assert_eq!(body, format!("{}{meta}", INDEX.repeat(4)), "{path}");
        // The page revalidates by an entity tag of what was sent.
        let etag = header(&h, "etag").unwrap().to_string();
        let (status, _, _) = fetch(
            &server,
            path,
            &[("accept-encoding", "br, gzip"), ("if-none-match", &etag)],
        )
        .await;
        assert_eq!(status, 304, "{path}");
    }
    // Other files are sent as they are.
    let (_, h, _) = fetch(&server, &format!("/{JS}"), &[("accept-encoding", "br")]).await;
    assert_eq!(header(&h, "content-encoding"), Some("br"));
    server.shutdown().await.unwrap();
}

/// A built app shaped like the release build's: Trunk's hashed styles,
/// scripts and wasm, and the split app's hashed folder, precompressed.
fn release_like_app() -> TempDir {
    let dist = TempDir::new("release-like");
    let css = |rule: &str| format!(".{rule} {{ color: var(--fg); margin: 0 auto; }}\n").repeat(30);
    let js = |name: &str| format!("export function {name}() {{ return '{name}'; }}\n").repeat(30);
    let wasm = [0, 97, 115, 109, 1, 0, 0, 0].repeat(300);
    dist.write("index.html", INDEX.repeat(4));
    for (i, sheet) in ["base", "shell", "transcript", "cards", "board", "timeline"]
        .iter()
        .enumerate()
    {
        dist.write(&format!("{sheet}-{i:016x}.css"), css(sheet));
    }
    dist.write("boot-0123456789abcdef.js", js("boot"));
    dist.write("taskview-app-1123456789abcdef.js", js("app"));
    dist.write("taskview-app-2123456789abcdef_bg.wasm", &wasm);
    dist.write("app-3123456789abcdef/taskview-app.js", js("split"));
    dist.write("app-3123456789abcdef/__wasm_split.js", js("loader"));
    dist.write("app-3123456789abcdef/taskview-app_bg.wasm", &wasm);
    dist.write("app-3123456789abcdef/split_file_view_1.wasm", &wasm);
    dist.write("favicon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
    precompress(&dist.0).unwrap();
    dist
}

from_both!(every_style_script_and_wasm_goes_out_compressed: every_style_script_and_wasm_goes_out_compressed_from_a_folder, every_style_script_and_wasm_goes_out_compressed_from_the_embedded_app);

/// docs/behaviour.md §10: every `.css`, `.js` and `.wasm` of the app is sent as the
/// brotli twin, else the gzip one, as the browser accepts, and as it is
/// to a browser that accepts neither; hashed ones cached for good.
async fn every_style_script_and_wasm_goes_out_compressed(from: From) {
    let dist = release_like_app();
    let server = serve_app_from(&dist, Policy::default(), from).await;
    let assets: Vec<(String, Vec<u8>)> = files_of(&dist.0)
        .into_iter()
        .filter(|(name, _)| [".css", ".js", ".wasm"].iter().any(|e| name.ends_with(e)))
        .collect();
    assert_eq!(assets.len(), 13, "{:?}", assets.iter().map(|a| &a.0));
    for (name, original) in assets {
        let path = format!("/{name}");
        let (status, h, body) = fetch(
            &server,
            &path,
            &[("accept-encoding", "gzip, deflate, br, zstd")],
        )
        .await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&h, "content-encoding"), Some("br"), "{path}");
        assert_eq!(unbrotli(&body), original, "{path}");
        assert_eq!(header(&h, "cache-control"), Some(IMMUTABLE), "{path}");
        let kind = match name.rsplit('.').next() {
            Some("css") => "text/css; charset=utf-8",
            Some("js") => "text/javascript; charset=utf-8",
            _ => "application/wasm",
        };
        assert_eq!(header(&h, "content-type"), Some(kind), "{path}");

        let (_, h, body) = fetch(&server, &path, &[("accept-encoding", "gzip, deflate")]).await;
        assert_eq!(header(&h, "content-encoding"), Some("gzip"), "{path}");
        assert_eq!(gunzip(&body), original, "{path}");

        for accept in [&[("accept-encoding", "identity")][..], &[]] {
            let (_, h, body) = fetch(&server, &path, accept).await;
            assert_eq!(header(&h, "content-encoding"), None, "{path}");
            assert_eq!(header(&h, "vary"), Some("accept-encoding"), "{path}");
            assert_eq!(body, original, "{path}");
        }

        let url = format!("http://{}{path}", server.addr());
        let head = reqwest::Client::new()
            .head(&url)
            .header("accept-encoding", "br")
            .send()
            .await
            .unwrap();
        let twin = std::fs::read(dist.0.join(format!("{name}.br"))).unwrap();
        assert_eq!(
            head.headers()["content-length"],
            twin.len().to_string().as_str(),
            "{path}"
        );
        assert!(head.bytes().await.unwrap().is_empty(), "{path}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_dist_folder_overrides_the_embedded_app() {
    let built_in = TempDir::new("built-in");
    built_in.write("index.html", "<title>built in</title>");
    built_in.write("only-built-in.txt", "built in");
    let folder = TempDir::new("override");
    folder.write("index.html", "<title>folder</title>");
    let embedded = Some(embedded_copy(&built_in.0));

    let server = start(Config {
        dist: Some(folder.0.clone()),
        embedded: embedded.clone(),
        ..config(demo())
    })
    .await;
    for path in ["/", "/board/wf-demo"] {
        let (status, _, body) = fetch(&server, path, &[]).await;
        assert_eq!(
            (status, body.as_slice()),
            (200, &b"<title>folder</title>"[..]),
            "{path}"
        );
    }
    let (status, ..) = fetch(&server, "/only-built-in.txt", &[]).await;
    assert_eq!(status, 404, "nothing of the embedded app");
    server.shutdown().await.unwrap();

    let server = start(Config {
        embedded,
        ..config(demo())
    })
    .await;
    let (status, _, body) = fetch(&server, "/board/wf-demo", &[]).await;
    assert_eq!(
        (status, body.as_slice()),
        (200, &b"<title>built in</title>"[..])
    );
    let (_, _, body) = fetch(&server, "/only-built-in.txt", &[]).await;
    assert_eq!(body, b"built in");
    server.shutdown().await.unwrap();
}
