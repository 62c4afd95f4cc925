//! Where the kandev-compatible backend lives (docs/behaviour.md §7).

/// The API base: the page's origin, unless `?api=<base>` says otherwise (docs/behaviour.md §7).
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

    /// The WebSocket URL: the base with `http→ws` / `https→wss`, plus `/ws`
    /// (docs/protocol.md §5.2).
    pub fn ws_url(&self) -> String {
        let base = if let Some(rest) = self.base.strip_prefix("https://") {
            format!("wss://{rest}")
        } else if let Some(rest) = self.base.strip_prefix("http://") {
            format!("ws://{rest}")
        } else {
            self.base.clone()
        };
        format!("{base}/ws")
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

#[cfg(test)]
mod tests {
    use super::ApiBase;

    fn base(base: &str) -> ApiBase {
        ApiBase {
            base: base.into(),
            explicit: true,
        }
    }

    #[test]
    fn the_socket_url_swaps_the_scheme_and_appends_ws() {
        assert_eq!(
            base("http://127.0.0.1:8080").ws_url(),
            "ws://127.0.0.1:8080/ws"
        );
        assert_eq!(
            base("https://kandev.example/api").ws_url(),
            "wss://kandev.example/api/ws"
        );
        assert_eq!(base("").ws_url(), "/ws");
    }
}
