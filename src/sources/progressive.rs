//! Reading a file into the store progressively (docs/behaviour.md §10): the first
//! chunk at once, then chunks sized by `core::import::progressive` with the
//! browser getting the thread back between them (it paints and handles input).

use crate::live::Live;
use taskview_core::model::event::Event;
use taskview_core::read::import::progressive::{next_chunk_size, Progressive, FIRST_CHUNK};
use taskview_core::screen::view::progress::{reading_progress, ProgressView};

/// Replaces the transcript with `file`'s events, chunk by chunk, calling
/// `on_progress` after each chunk; stops early when it returns false
/// (another file was opened). Returns whether the file was read to the end.
pub async fn read_into(
    live: &Live,
    mut file: Progressive,
    mut on_progress: impl FnMut(ProgressView) -> bool,
) -> bool {
    live.apply([Event::TranscriptOpened { session_id: None }]);
    let mut size = FIRST_CHUNK;
    loop {
        let started = js_sys::Date::now();
        let Some(chunk) = file.next_chunk(size) else {
            return true;
        };
        live.apply(chunk);
        size = next_chunk_size(size, js_sys::Date::now() - started);
        if !on_progress(reading_progress(file.progress())) {
            return false;
        }
        next_task().await;
    }
}

/// Resolves in a later task, so the page paints and handles input meanwhile.
async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            // Scheduling a timer cannot fail in a page.
            let _ = window.set_timeout_with_callback(&resolve);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
