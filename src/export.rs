//! The file view's "Download HTML" (docs/behaviour.md §9): the same self-contained page
//! as `taskview export` (`taskview_core::screen::export::page`), made in the browser
//! from the app's own files (named by the page: the boot `<meta>` and its
//! stylesheets) and the transcript shown, and handed to the reader as a file,
//! its secrets masked unless the reader chose to keep them.

use crate::sources::http::{get_bytes, get_text};
use leptos::prelude::*;
use taskview_core::screen::export::{file_name, page, App, Secrets, Transcript};
use taskview_core::screen::secrets::Masked;
use wasm_bindgen::JsCast;

/// Builds the page of `transcript` and starts its download; returns what
/// masking did (`None`: secrets kept).
pub async fn download(transcript: &Transcript, secrets: Secrets) -> Result<Option<Masked>, String> {
    let doc = document();
    let boot = doc
        .query_selector("meta[name=\"taskview-boot\"]")
        .ok()
        .flatten()
        .ok_or("this page does not name its app files")?;
    // A split build (`taskview split`) names its one-module twin for this.
    let named = |attr: &str| {
        boot.get_attribute(&format!("data-export-{attr}"))
            .or_else(|| boot.get_attribute(&format!("data-{attr}")))
            .ok_or("this page does not name its app files")
    };
    let module = get_text(&named("js")?).await.map_err(|e| e.to_string())?;
    let wasm = get_bytes(&named("wasm")?)
        .await
        .map_err(|e| e.to_string())?;
    let mut styles = String::new();
    let links = doc
        .query_selector_all("link[rel=\"stylesheet\"]")
        .map_err(|_| "cannot list the styles")?;
    for i in 0..links.length() {
        let href = links
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            .and_then(|l| l.get_attribute("href"));
        if let Some(href) = href {
            styles.push_str(&get_text(&href).await.map_err(|e| e.to_string())?);
            styles.push('\n');
        }
    }
    let app = App {
        module: &module,
        styles: &styles,
        wasm: &wasm,
    };
    let page = page(&app, transcript, secrets)?;
    save(&page.html, &file_name(&transcript.name))?;
    Ok(page.masked)
}

/// Offers `html` as a download named `name`.
fn save(html: &str, name: &str) -> Result<(), String> {
    let failed = |_| "the browser refused the download".to_string();
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/html");
    let parts = js_sys::Array::of1(&html.into());
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(failed)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(failed)?;
    let link = document()
        .create_element("a")
        .map_err(failed)?
        .dyn_into::<web_sys::HtmlElement>()
        .map_err(|_| "the browser refused the download".to_string())?;
    link.set_attribute("href", &url).map_err(failed)?;
    link.set_attribute("download", name).map_err(failed)?;
    link.click();
    // The download has started from the URL; it may go.
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}
