//! `/remote-image?src=<url>`: the one image from another host a reader
//! clicked (docs/behaviour.md §6, core `markdown::images`), alone in a page
//! whose policy lets it load images and nothing else, framed by the app's
//! pages only. The app's own policy never allows another host's images, so
//! nothing is fetched from one until a click puts this page in a frame.

use axum::extract::Query;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use taskview_core::screen::export::csp_hash;
use taskview_core::screen::markdown::images::{frame_page, FRAME_STYLE};

/// The page's query.
#[derive(Deserialize)]
pub(crate) struct Wanted {
    src: String,
}

/// The page of the image `src`, framed only by `ancestors` (the app's
/// `frame-ancestors`); 400 when `src` is no remote http(s) URL.
pub(crate) fn page(Query(wanted): Query<Wanted>, ancestors: &str) -> Response {
    let Some(html) = frame_page(&wanted.src) else {
        return (
            StatusCode::BAD_REQUEST,
            "src is not an image of another host\n",
        )
            .into_response();
    };
    let policy = format!(
        "default-src 'none'; img-src http: https:; style-src '{}'; frame-ancestors {ancestors}; \
         base-uri 'none'; form-action 'none'",
        csp_hash(FRAME_STYLE)
    );
    let mut response = html.into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if let Ok(policy) = HeaderValue::from_str(&policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    response
}
