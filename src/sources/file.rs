//! Reading a transcript file's text, from a URL or from disk.

use wasm_bindgen_futures::JsFuture;

/// GETs `url` as text; the error says what went wrong, for display.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    let response = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| format!("could not fetch {url}: {e}"))?;
    if !response.ok() {
        return Err(format!(
            "fetching {url} failed: HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    response
        .text()
        .await
        .map_err(|e| format!("could not read {url}: {e}"))
}

/// Reads a local file (picker or drop) as text.
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    let text = JsFuture::from(file.text())
        .await
        .map_err(|e| format!("could not read {}: {e:?}", file.name()))?;
    text.as_string()
        .ok_or_else(|| format!("{} is not a text file", file.name()))
}
