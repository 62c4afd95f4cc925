//! The self-contained page of a transcript (docs/behaviour.md §9), written by
//! `taskview export` and by the file view's "Download HTML": the built app's
//! wasm (base64), wasm-bindgen module and styles inline with the transcript,
//! under a `<meta>` Content-Security-Policy that allows exactly those inline
//! pieces (by hash) and no network. The page carries `data-export="1"`; the
//! app then opens the inline transcript in its file view. Secrets are masked
//! unless the caller asks to keep them (`Secrets`, `crate::screen::secrets`).

use crate::screen::markdown::TABLE_ALIGNMENT_STYLES;
use crate::screen::secrets::{self, Masked, Masker};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The id of the inline transcript (`<script type="application/json">`).
pub const DATA_ID: &str = "taskview-export";
/// The id of the inline wasm (base64).
const WASM_ID: &str = "taskview-wasm";
/// The inline transcript's attribute that says how many secrets were masked
/// (a number), or `kept` when they were not.
pub const MASKED_ATTR: &str = "data-secrets-masked";

/// Whether an export masks secrets (docs/behaviour.md §9: it does unless asked not to).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Secrets {
    #[default]
    Mask,
    Keep,
}

/// An exported page and what masking it did (`None`: secrets kept).
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub html: String,
    pub masked: Option<Masked>,
}

/// A transcript: its text, name and the files read with it (`(path relative
/// to its folder, text)`, e.g. a Claude Code session's subagent files).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transcript {
    pub name: String,
    pub text: String,
    pub files: Vec<(String, String)>,
}

impl Transcript {
    /// The inline form, `{name, text, files: [[path, text]…]}`.
    fn to_json(&self) -> Value {
        json!({"name": self.name, "text": self.text, "files": self.files})
    }

    /// This transcript with the secrets in its name, text and files masked.
    pub fn masked(&self) -> (Transcript, Masked) {
        let masker = Masker::new();
        let mut masked = Masked::default();
        let transcript = Transcript {
            name: masker.mask_plain(&self.name, &mut masked),
            text: masker.mask_json(&self.text, &mut masked),
            files: self
                .files
                .iter()
                .map(|(path, text)| (path.clone(), masker.mask_json(text, &mut masked)))
                .collect(),
        };
        (transcript, masked)
    }

    /// Reads the inline form back; `None` when it is damaged.
    pub fn from_json(text: &str) -> Option<Transcript> {
        let data: Value = serde_json::from_str(text).ok()?;
        let field = |name: &str| data.get(name)?.as_str().map(str::to_string);
        let files = data
            .get("files")?
            .as_array()?
            .iter()
            .map(|pair| Some((pair.get(0)?.as_str()?.into(), pair.get(1)?.as_str()?.into())))
            .collect::<Option<Vec<_>>>()?;
        Some(Transcript {
            name: field("name")?,
            text: field("text")?,
            files,
        })
    }
}

/// The built app's pieces: its wasm-bindgen module, its styles (in order) and its wasm.
pub struct App<'a> {
    pub module: &'a str,
    pub styles: &'a str,
    pub wasm: &'a [u8],
}

/// A CSP hash source (`sha256-<base64>`) of an inline script or style.
pub fn csp_hash(text: &str) -> String {
    format!("sha256-{}", base64(&Sha256::digest(text.as_bytes())))
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The file name of the page of `name` (a transcript's file name or path).
pub fn file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.rsplit_once('.').map_or(base, |(stem, _)| stem);
    let stem = if stem.is_empty() { "transcript" } else { stem };
    format!("{stem}.html")
}

/// What an export did with secrets, e.g. `masked 3 secrets (2
/// generic-api-key, 1 private-key)` or `secrets not masked`.
pub fn secrets_status(masked: Option<&Masked>) -> String {
    masked.map_or_else(|| "secrets not masked".into(), Masked::summary)
}

/// The exported page's note of its masking, from `MASKED_ATTR`'s value:
/// `3 secrets masked`, `secrets not masked`; `None` without one.
pub fn masked_note(attr: Option<&str>) -> Option<String> {
    match attr? {
        "kept" => Some("secrets not masked".into()),
        n => n
            .parse()
            .ok()
            .map(|n| format!("{} masked", secrets::secrets(n))),
    }
}

/// The whole page of `transcript` with `app` inline, its secrets masked
/// unless `secrets` is `Keep`.
pub fn page(app: &App, transcript: &Transcript, secrets: Secrets) -> Result<Page, String> {
    if !app.module.contains("__wbg_init as default") {
        return Err("the app module is not a wasm-bindgen module this export knows".into());
    }
    if app.module.contains("</script") || app.styles.contains("</style") {
        return Err("the built app contains a closing tag; it cannot be inlined".into());
    }
    let boot = format!(
        "{}\nconst b=atob(document.getElementById(\"{WASM_ID}\").textContent.trim());\
         const u=new Uint8Array(b.length);for(let i=0;i<b.length;i++)u[i]=b.charCodeAt(i);\
         await __wbg_init({{module_or_path:u}});",
        app.module
    );
    let (masked_transcript, masked) = match secrets {
        Secrets::Mask => {
            let (t, masked) = transcript.masked();
            (Some(t), Some(masked))
        }
        Secrets::Keep => (None, None),
    };
    let transcript = masked_transcript.as_ref().unwrap_or(transcript);
    let masked_attr = masked
        .as_ref()
        .map_or_else(|| "kept".into(), |m| m.total.to_string());
    // JSON with every `<` escaped: the transcript cannot close its element.
    let data = transcript.to_json().to_string().replace('<', "\\u003c");
    let table_styles: String = TABLE_ALIGNMENT_STYLES
        .iter()
        .map(|s| format!(" '{}'", csp_hash(s)))
        .collect();
    let policy = format!(
        "default-src 'none'; script-src '{}' 'wasm-unsafe-eval'; \
         style-src '{}' 'unsafe-hashes'{table_styles}; img-src data:; connect-src 'none'; \
         base-uri 'none'; form-action 'none'",
        csp_hash(&boot),
        csp_hash(app.styles)
    );
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\" data-export=\"1\">\n<head>\n\
         <meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>{} · taskview</title>\n<link rel=\"icon\" href=\"data:,\">\n\
         <style>{}</style>\n\
         <script type=\"application/json\" id=\"{DATA_ID}\" {MASKED_ATTR}=\"{masked_attr}\">{data}</script>\n\
         <script type=\"application/octet-stream\" id=\"{WASM_ID}\">{}</script>\n\
         <script type=\"module\">{boot}</script>\n\
         </head>\n<body></body>\n</html>\n",
        escape_html(&transcript.name),
        app.styles,
        base64(app.wasm),
    );
    Ok(Page { html, masked })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (&[0xfb, 0xff, 0xfe][..], "+//+"),
        ] {
            assert_eq!(base64(bytes), text);
        }
        // The CSP3 example: sha256 of the empty string.
        assert_eq!(
            csp_hash(""),
            "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        );
    }

    #[test]
    fn the_inline_transcript_reads_back_and_damage_is_refused() {
        let t = Transcript {
            name: "a.jsonl".into(),
            text: "</script>".into(),
            files: vec![("subagents/x.jsonl".into(), "{}".into())],
        };
        assert_eq!(Transcript::from_json(&t.to_json().to_string()), Some(t));
        for bad in [
            "",
            "[]",
            r#"{"name":"a","text":"b","files":[[1,2]]}"#,
            r#"{"name":"a"}"#,
        ] {
            assert_eq!(Transcript::from_json(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_page_is_named_after_its_transcript() {
        assert_eq!(file_name("dir/abc.jsonl"), "abc.html");
        assert_eq!(
            file_name("pushed by the host page"),
            "pushed by the host page.html"
        );
        assert_eq!(file_name(".json"), "transcript.html");
    }

    #[test]
    fn titles_are_escaped_and_apps_it_cannot_inline_are_refused() {
        assert_eq!(
            escape_html("<b a=\"1\">&"),
            "&lt;b a=&quot;1&quot;&gt;&amp;"
        );
        let t = Transcript::default();
        let app = |module| App {
            module,
            styles: "",
            wasm: &[],
        };
        assert!(page(&app("export default x;"), &t, Secrets::Mask).is_err());
        assert!(page(
            &app("'</script>';export{__wbg_init as default};"),
            &t,
            Secrets::Mask
        )
        .is_err());
        assert!(page(&app("export{__wbg_init as default};"), &t, Secrets::Mask).is_ok());
    }

    const GITHUB_PAT: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";

    #[test]
    fn export_masks_secrets_by_default_and_keeps_them_when_asked() {
        let t = Transcript {
            name: "a.jsonl".into(),
            text: format!("{{\"content\":\"token {GITHUB_PAT}\"}}\n"),
            files: vec![("subagents/x.jsonl".into(), format!("[\"{GITHUB_PAT}\"]"))],
        };
        let app = App {
            module: "export{__wbg_init as default};",
            styles: "",
            wasm: &[],
        };
        let masked = page(&app, &t, Secrets::default()).unwrap();
        assert!(!masked.html.contains(GITHUB_PAT));
        assert!(masked.html.contains("data-secrets-masked=\"2\""));
        assert!(masked.html.contains("token [masked: github-pat]"));
        let counts = masked.masked.unwrap();
        assert_eq!(counts.summary(), "masked 2 secrets (2 github-pat)");
        assert_eq!(
            secrets_status(Some(&counts)),
            "masked 2 secrets (2 github-pat)"
        );
        let kept = page(&app, &t, Secrets::Keep).unwrap();
        assert_eq!(kept.html.matches(GITHUB_PAT).count(), 2);
        assert!(kept.html.contains("data-secrets-masked=\"kept\""));
        assert_eq!(kept.masked, None);
        assert_eq!(secrets_status(None), "secrets not masked");
    }

    #[test]
    fn an_exported_page_notes_its_masking() {
        assert_eq!(masked_note(Some("3")).as_deref(), Some("3 secrets masked"));
        assert_eq!(masked_note(Some("1")).as_deref(), Some("1 secret masked"));
        assert_eq!(masked_note(Some("0")).as_deref(), Some("0 secrets masked"));
        assert_eq!(
            masked_note(Some("kept")).as_deref(),
            Some("secrets not masked")
        );
        assert_eq!(masked_note(Some("x")), None);
        assert_eq!(masked_note(None), None);
    }
}
