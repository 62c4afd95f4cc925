//! Reading a local transcript file's text (picker or drop); files by URL
//! come through `sources::http::get_text`.

use wasm_bindgen_futures::JsFuture;

/// Reads a local file (picker or drop) as text.
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    let text = JsFuture::from(file.text())
        .await
        .map_err(|e| format!("could not read {}: {e:?}", file.name()))?;
    text.as_string()
        .ok_or_else(|| format!("{} is not a text file", file.name()))
}
