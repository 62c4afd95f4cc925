//! Where the kandev-compatible backend lives, and plain HTTP reads from it.

use serde_json::Value;

/// The API base: the page's origin, unless `?api=<base>` says otherwise (SPEC.md §7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiBase {
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:8080`.
    pub base: String,
    /// Whether the base came from `?api=` (links then carry it along).
    pub explicit: bool,
}

impl ApiBase {
    /// Reads `?api=` from the current page URL, else uses the page origin.
    pub fn from_location() -> Self {
        let location = web_sys::window().map(|w| w.location());
        let origin = location
            .as_ref()
            .and_then(|l| l.origin().ok())
            .unwrap_or_default();
        let search = location
            .as_ref()
            .and_then(|l| l.search().ok())
            .unwrap_or_default();
        Self::resolve(&origin, &search)
    }

    /// The base for a page at `origin` whose query string is `search`.
    pub fn resolve(origin: &str, search: &str) -> Self {
        let explicit = web_sys::UrlSearchParams::new_with_str(search)
            .ok()
            .and_then(|p| p.get("api"))
            .filter(|a| !a.trim().is_empty());
        match explicit {
            Some(api) => ApiBase {
                base: api.trim().trim_end_matches('/').to_string(),
                explicit: true,
            },
            None => ApiBase {
                base: origin.trim_end_matches('/').to_string(),
                explicit: false,
            },
        }
    }

    /// An absolute URL for an API path such as `/api/v1/workflows`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// An in-app link that keeps `?api=` when it was given.
    pub fn link(&self, route: &str) -> String {
        if self.explicit {
            let sep = if route.contains('?') { '&' } else { '?' };
            let encoded: String = js_sys::encode_uri_component(&self.base).into();
            format!("{route}{sep}api={encoded}")
        } else {
            route.to_string()
        }
    }
}

/// GETs a URL and reads it as JSON; the error says what went wrong, for display.
pub async fn get_json(url: &str) -> Result<Value, String> {
    let response = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| format!("could not reach {url}: {e}"))?;
    if !response.ok() {
        return Err(format!(
            "{url} answered {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let text = response
        .text()
        .await
        .map_err(|e| format!("could not read {url}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{url} did not return JSON: {e}"))
}
