//! `taskview split`: the release build's code splitting (a build step, like
//! `precompress`). Trunk builds the app as one module; this takes cargo's
//! wasm of the same app built with the feature `split` (and linked with
//! `--emit-relocs`), cuts it at the app's `split_view!` functions
//! (`wasm_split_cli_support`), runs wasm-bindgen and wasm-opt on the parts,
//! and writes them to `dist/app-<hash>/`. `index.html` then boots the split
//! app; Trunk's single module stays beside it for the exported page, which
//! must be one file (`data-export-js`, `data-export-wasm`).

use sha2::{Digest, Sha256, Sha384};
use std::path::{Path, PathBuf};
use std::process::Command;
use taskview_core::screen::export::base64;

/// The wasm-bindgen module's name inside the split folder.
const MODULE: &str = "taskview-app";

/// The external tools and wasm-opt's arguments (those of `index.html`'s
/// Trunk link, so both builds are optimized alike).
pub struct Tools {
    pub wasm_bindgen: PathBuf,
    pub wasm_opt: PathBuf,
    pub opt_args: Vec<String>,
}

/// Splits `raw` into `dist/app-<hash>/` and points `dist/index.html` at it.
/// Returns the folder's URL path.
pub fn split(raw: &Path, dist: &Path, tools: &Tools) -> Result<String, String> {
    let index_path = dist.join("index.html");
    let index = std::fs::read_to_string(&index_path)
        .map_err(|e| format!("cannot read {}: {e}", index_path.display()))?;
    if index.contains("data-export-js=") {
        return Err("index.html boots a split app already: build it with Trunk again".into());
    }
    let input = std::fs::read(raw).map_err(|e| format!("cannot read {}: {e}", raw.display()))?;
    let folder = format!("app-{}", &hex(&Sha256::digest(&input))[..16]);
    let work = dist.join(".split");
    let out = dist.join(&folder);
    for dir in [&work, &out] {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let main = work.join(format!("{MODULE}.wasm"));
    let main_module = format!("./{MODULE}.js");
    let mut options = wasm_split_cli_support::Options::new(&input);
    options.output_dir = &work;
    options.main_out_path = &main;
    options.main_module = &main_module;
    wasm_split_cli_support::transform(options).map_err(|e| format!("wasm-split: {e}"))?;
    run(Command::new(&tools.wasm_bindgen)
        .args([
            "--target=web",
            "--keep-lld-exports",
            "--no-demangle",
            "--no-typescript",
        ])
        .arg(format!("--out-name={MODULE}"))
        .arg("--out-dir")
        .args([&out, &main]))?;
    for entry in std::fs::read_dir(&work).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if path != main && (name.ends_with(".wasm") || name.ends_with(".js")) {
            std::fs::copy(&path, out.join(&*name)).map_err(|e| e.to_string())?;
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    for entry in std::fs::read_dir(&out).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "wasm") {
            run(Command::new(&tools.wasm_opt)
                .args(&tools.opt_args)
                .arg("--strip-debug")
                .arg(&path)
                .arg("-o")
                .arg(&path))?;
        }
    }
    let url = format!("/{folder}");
    let integrity = |name: &str| -> Result<String, String> {
        let bytes = std::fs::read(out.join(name)).map_err(|e| e.to_string())?;
        Ok(format!("sha384-{}", base64(&Sha384::digest(bytes))))
    };
    let split_app = SplitApp {
        js: format!("{url}/{MODULE}.js"),
        js_integrity: integrity(&format!("{MODULE}.js"))?,
        wasm: format!("{url}/{MODULE}_bg.wasm"),
        wasm_integrity: integrity(&format!("{MODULE}_bg.wasm"))?,
        loader: format!("{url}/__wasm_split.js"),
    };
    std::fs::write(&index_path, boot_split(&index, &split_app)?).map_err(|e| e.to_string())?;
    // Trunk's module, kept for the export, was linked with --emit-relocs too.
    let twin = crate::commands::export::attribute(&index, "data-wasm")
        .ok_or("index.html names no wasm")?;
    let twin = dist.join(twin.trim_start_matches('/'));
    let bytes = std::fs::read(&twin).map_err(|e| format!("cannot read {}: {e}", twin.display()))?;
    std::fs::write(&twin, without_link_sections(&bytes)?).map_err(|e| e.to_string())?;
    Ok(url)
}

/// `wasm` without the linker's custom sections (`linking`, `reloc.*`), which
/// only `taskview split` reads.
pub fn without_link_sections(wasm: &[u8]) -> Result<Vec<u8>, String> {
    const HEADER: usize = 8;
    if wasm.len() < HEADER || &wasm[..4] != b"\0asm" {
        return Err("not a wasm module".into());
    }
    let mut out = wasm[..HEADER].to_vec();
    let mut at = HEADER;
    while at < wasm.len() {
        let id = wasm[at];
        let (size, size_len) = leb128(&wasm[at + 1..]).ok_or("a section's size is cut")?;
        let body = at + 1 + size_len;
        let end = body
            .checked_add(size)
            .filter(|&e| e <= wasm.len())
            .ok_or("a section is cut")?;
        let linker_only = id == 0
            && leb128(&wasm[body..end]).is_some_and(|(len, len_len)| {
                let name = wasm
                    .get(body + len_len..body + len_len + len)
                    .unwrap_or_default();
                name == b"linking" || name.starts_with(b"reloc.")
            });
        if !linker_only {
            out.extend_from_slice(&wasm[at..end]);
        }
        at = end;
    }
    Ok(out)
}

/// An unsigned LEB128 number at the start of `bytes`, and its length.
fn leb128(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut value = 0usize;
    for (i, byte) in bytes.iter().take(5).enumerate() {
        value |= usize::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// The split app's files as `index.html` names them.
pub struct SplitApp {
    pub js: String,
    pub js_integrity: String,
    pub wasm: String,
    pub wasm_integrity: String,
    /// The module that fetches the parts (imported by `js`).
    pub loader: String,
}

/// `index` (Trunk's, minified) booting `app` instead of Trunk's module: the
/// boot `<meta>` names it and keeps Trunk's as the export's, and the preload
/// links fetch its files (with their integrity) and its loader.
pub fn boot_split(index: &str, app: &SplitApp) -> Result<String, String> {
    let named = |attr: &str| {
        crate::commands::export::attribute(index, attr).ok_or(format!("index.html has no {attr}"))
    };
    if index.contains("data-export-js=") {
        return Err("index.html boots a split app already: build it with Trunk again".into());
    }
    let (js, wasm) = (named("data-js")?, named("data-wasm")?);
    let mut page = String::with_capacity(index.len() + 512);
    for (i, part) in index.split('<').enumerate() {
        if i > 0 {
            page.push('<');
        }
        if part.starts_with("meta ") && part.contains("name=taskview-boot") {
            page.push_str(
                &part
                    .replacen(
                        &format!("data-js={js}"),
                        &format!("data-export-js={js} data-js={}", app.js),
                        1,
                    )
                    .replacen(
                        &format!("data-wasm={wasm}"),
                        &format!("data-export-wasm={wasm} data-wasm={}", app.wasm),
                        1,
                    ),
            );
        } else if part.starts_with("link ") && part.contains(&format!("href={js} ")) {
            page.push_str(&format!(
                "link crossorigin href={} integrity={} rel=modulepreload>\
                 <link crossorigin href={} rel=modulepreload>",
                app.js, app.js_integrity, app.loader
            ));
        } else if part.starts_with("link ") && part.contains(&format!("href={wasm} ")) {
            page.push_str(&format!(
                "link as=fetch crossorigin href={} integrity={} rel=preload type=application/wasm>",
                app.wasm, app.wasm_integrity
            ));
        } else {
            page.push_str(part);
        }
    }
    if !page.contains(&format!("data-js={}", app.js)) {
        return Err("index.html's boot <meta> is not Trunk's minified one".into());
    }
    Ok(page)
}

fn run(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{:?} failed ({status})", command.get_program()))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUNK_INDEX: &str = "<!doctype html><html lang=en><meta charset=utf-8>\
        <meta data-js=/taskview-app-e525767a5836c6f8.js data-wasm=/taskview-app-ad204cd1715257ca_bg.wasm name=taskview-boot>\
        <script integrity=sha384-IM6 src=/boot-d6e7dd969ce4e570.js type=module></script>\
        <link href=/base-986bf908db2605d7.css integrity=sha384-PqF rel=stylesheet>\
        <link crossorigin href=/taskview-app-e525767a5836c6f8.js integrity=sha384-Ee7 rel=modulepreload>\
        <link as=fetch crossorigin href=/taskview-app-ad204cd1715257ca_bg.wasm integrity=sha384-hFv rel=preload type=application/wasm>\
        </head><body></body></html>";

    fn app() -> SplitApp {
        SplitApp {
            js: "/app-0123456789abcdef/taskview-app.js".into(),
            js_integrity: "sha384-NEWJS".into(),
            wasm: "/app-0123456789abcdef/taskview-app_bg.wasm".into(),
            wasm_integrity: "sha384-NEWWASM".into(),
            loader: "/app-0123456789abcdef/__wasm_split.js".into(),
        }
    }

    #[test]
    fn the_page_boots_and_preloads_the_split_app_and_keeps_trunks_for_the_export() {
        let page = boot_split(TRUNK_INDEX, &app()).unwrap();
        let attr = |name: &str| crate::commands::export::attribute(&page, name);
        assert_eq!(
            attr("data-js").as_deref(),
            Some("/app-0123456789abcdef/taskview-app.js")
        );
        assert_eq!(
            attr("data-wasm").as_deref(),
            Some("/app-0123456789abcdef/taskview-app_bg.wasm")
        );
        assert_eq!(
            attr("data-export-js").as_deref(),
            Some("/taskview-app-e525767a5836c6f8.js")
        );
        assert_eq!(
            attr("data-export-wasm").as_deref(),
            Some("/taskview-app-ad204cd1715257ca_bg.wasm")
        );
        assert!(page.contains(
            "<link crossorigin href=/app-0123456789abcdef/taskview-app.js integrity=sha384-NEWJS rel=modulepreload>"
        ));
        assert!(page.contains(
            "<link crossorigin href=/app-0123456789abcdef/__wasm_split.js rel=modulepreload>"
        ));
        assert!(page.contains(
            "href=/app-0123456789abcdef/taskview-app_bg.wasm integrity=sha384-NEWWASM rel=preload"
        ));
        // Trunk's module is named only for the export, never preloaded.
        assert_eq!(page.matches("taskview-app-e525767a5836c6f8.js").count(), 1);
        assert_eq!(
            page.matches("taskview-app-ad204cd1715257ca_bg.wasm")
                .count(),
            1
        );
        // The rest of the page is Trunk's.
        assert!(page.contains(
            "<link href=/base-986bf908db2605d7.css integrity=sha384-PqF rel=stylesheet>"
        ));
        assert!(page.ends_with("</head><body></body></html>"));
    }

    /// A section: its id, its size and `body`.
    fn section(id: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![id, body.len() as u8];
        out.extend_from_slice(body);
        out
    }

    fn custom(name: &str, payload: &[u8]) -> Vec<u8> {
        let mut body = vec![name.len() as u8];
        body.extend_from_slice(name.as_bytes());
        body.extend_from_slice(payload);
        section(0, &body)
    }

    #[test]
    fn the_linkers_sections_go_and_every_other_section_stays_as_it_was() {
        let header = b"\0asm\x01\0\0\0".to_vec();
        let types = section(1, &[1, 0x60, 0, 0]);
        let code = section(10, &[1, 2, 0, 0x0b]);
        let names = custom("name", b"\x01\x02");
        let module = [
            header.clone(),
            types.clone(),
            custom("linking", &[2, 8, 0]),
            code.clone(),
            custom("reloc.CODE", &[3, 0]),
            custom("reloc.DATA", &[4]),
            names.clone(),
        ]
        .concat();
        assert_eq!(
            without_link_sections(&module).unwrap(),
            [header, types, code, names].concat()
        );
        assert!(without_link_sections(b"<html>").is_err());
        assert!(
            without_link_sections(&module[..module.len() - 1]).is_err(),
            "a cut section"
        );
    }

    #[test]
    fn a_page_split_already_is_refused_so_the_export_keeps_the_one_module_build() {
        let once = boot_split(TRUNK_INDEX, &app()).unwrap();
        assert!(boot_split(&once, &app()).is_err());
    }

    #[test]
    fn a_page_without_trunks_boot_meta_is_refused() {
        let page = TRUNK_INDEX.replace(" name=taskview-boot", "");
        assert!(boot_split(&page, &app()).is_err());
        assert!(boot_split("<html></html>", &app()).is_err());
    }
}
