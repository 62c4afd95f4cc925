//! The app's Content-Security-Policy: only what the built app needs, plus the
//! origins the operator allows with `--connect-origin` and `--embed-origin`.

use axum::http::HeaderValue;
use std::fmt;
use std::str::FromStr;

pub use taskview_core::screen::export::csp_hash;
pub use taskview_core::screen::markdown::TABLE_ALIGNMENT_STYLES;

/// Loopback backends the app may always reach with `?api=` or `/view?src=`:
/// kandev and `taskview serve` run on the reader's machine by default.
const LOOPBACK: &str = "http://127.0.0.1:* ws://127.0.0.1:* http://localhost:* ws://localhost:*";

/// An origin from the command line: `http(s)://host[:port]`, where the host
/// may start with `*.` and the port may be `*`. Nothing else can reach the
/// header, so a value can never add a directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    secure: bool,
    authority: String,
}

impl FromStr for Origin {
    type Err = String;

    fn from_str(text: &str) -> Result<Origin, String> {
        let hint = "expected an origin such as https://example.com or http://127.0.0.1:8080";
        let (secure, authority) = if let Some(rest) = text.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = text.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(format!("{text:?} is not http:// or https://; {hint}"));
        };
        let authority = authority.strip_suffix('/').unwrap_or(authority);
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        let name = host.strip_prefix("*.").unwrap_or(host);
        let host_ok = !name.is_empty()
            && name.split('.').all(|label| {
                !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            });
        let port_ok = port.is_none_or(|p| {
            p == "*" || (!p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()))
        });
        if !host_ok || !port_ok {
            return Err(format!(
                "{text:?} is not a plain origin (no path, query or user); {hint}"
            ));
        }
        Ok(Origin {
            secure,
            authority: authority.to_ascii_lowercase(),
        })
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.secure { "https" } else { "http" };
        write!(f, "{scheme}://{}", self.authority)
    }
}

impl Origin {
    /// The WebSocket twin of this origin (`ws://` or `wss://`), for `/ws`.
    fn socket(&self) -> String {
        let scheme = if self.secure { "wss" } else { "ws" };
        format!("{scheme}://{}", self.authority)
    }
}

/// Where the app may fetch from beyond its own origin and loopback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectOrigin {
    /// Any http(s) and ws(s) URL (`--connect-origin '*'`).
    Any,
    /// One origin and its WebSocket twin.
    Origin(Origin),
}

impl FromStr for ConnectOrigin {
    type Err = String;

    fn from_str(text: &str) -> Result<ConnectOrigin, String> {
        match text {
            "*" => Ok(ConnectOrigin::Any),
            _ => text.parse().map(ConnectOrigin::Origin),
        }
    }
}

/// The policy's inputs: the operator's allow-lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Extra `connect-src` origins: other backends (`?api=`) and file hosts
    /// (`/view?src=`).
    pub connect: Vec<ConnectOrigin>,
    /// Pages that may embed the app in a frame, besides its own origin.
    pub embed: Vec<Origin>,
}

impl Policy {
    /// The `Content-Security-Policy` header of the app's pages.
    pub fn header(&self) -> HeaderValue {
        let styles: String = TABLE_ALIGNMENT_STYLES
            .iter()
            .map(|style| format!(" '{}'", csp_hash(style)))
            .collect();
        let mut connect = format!("'self' {LOOPBACK}");
        for origin in &self.connect {
            match origin {
                ConnectOrigin::Any => connect.push_str(" *"),
                ConnectOrigin::Origin(o) => connect.push_str(&format!(" {o} {}", o.socket())),
            }
        }
        let mut ancestors = String::from("'self'");
        for origin in &self.embed {
            ancestors.push_str(&format!(" {origin}"));
        }
        let policy = format!(
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
             style-src 'self' 'unsafe-hashes'{styles}; img-src 'self' http: https:; \
             connect-src {connect}; frame-ancestors {ancestors}; \
             base-uri 'none'; form-action 'none'"
        );
        HeaderValue::from_str(&policy).expect("origins are validated, so the policy is ASCII")
    }

    /// The `<meta>` that tells an embed page which origins' messages to obey
    /// and post to (taskview_core::read::embed::ORIGINS_META); `None` without
    /// `--embed-origin`, when only the page's own origin is obeyed.
    pub fn embed_meta(&self) -> Option<String> {
        if self.embed.is_empty() {
            return None;
        }
        let origins: Vec<String> = self.embed.iter().map(Origin::to_string).collect();
        // Origins are validated: no quote or angle bracket can reach the markup.
        Some(format!(
            "<meta name=\"taskview-embed-origins\" content=\"{}\">",
            origins.join(" ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(policy: &Policy) -> String {
        policy.header().to_str().unwrap().to_string()
    }

    fn directive(header: &str, name: &str) -> String {
        header
            .split("; ")
            .find_map(|d| d.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in {header}"))
            .to_string()
    }

    #[test]
    fn the_default_policy_allows_only_the_app_itself_and_loopback_backends() {
        let h = header(&Policy::default());
        assert_eq!(directive(&h, "default-src"), "'none'");
        assert_eq!(directive(&h, "script-src"), "'self' 'wasm-unsafe-eval'");
        assert_eq!(directive(&h, "frame-ancestors"), "'self'");
        assert_eq!(directive(&h, "connect-src"), format!("'self' {LOOPBACK}"));
        assert!(
            !h.contains("unsafe-inline") && !h.contains("'unsafe-eval'"),
            "{h}"
        );
    }

    #[test]
    fn origins_from_flags_reach_connect_src_and_frame_ancestors() {
        let policy = Policy {
            connect: vec!["https://kandev.example:8443".parse().unwrap()],
            embed: vec![
                "https://docs.example".parse().unwrap(),
                "http://*.intra.example:*".parse().unwrap(),
            ],
        };
        let h = header(&policy);
        assert!(directive(&h, "connect-src")
            .ends_with(" https://kandev.example:8443 wss://kandev.example:8443"));
        assert_eq!(
            directive(&h, "frame-ancestors"),
            "'self' https://docs.example http://*.intra.example:*"
        );
        let any = Policy {
            connect: vec!["*".parse().unwrap()],
            ..Policy::default()
        };
        assert!(directive(&header(&any), "connect-src").ends_with(" *"));
    }

    #[test]
    fn embed_origins_reach_the_page_as_a_meta_only_when_given() {
        assert_eq!(Policy::default().embed_meta(), None);
        let policy = Policy {
            embed: vec![
                "https://Docs.example/".parse().unwrap(),
                "http://*.intra.example:*".parse().unwrap(),
            ],
            ..Policy::default()
        };
        assert_eq!(
            policy.embed_meta().unwrap(),
            "<meta name=\"taskview-embed-origins\" content=\"https://docs.example http://*.intra.example:*\">"
        );
    }

    #[test]
    fn style_hashes_are_the_sha256_of_each_alignment_style() {
        // The CSP3 example: sha256 of the empty string.
        assert_eq!(
            csp_hash(""),
            "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
        );
        let styles = directive(&header(&Policy::default()), "style-src");
        for style in TABLE_ALIGNMENT_STYLES {
            assert!(
                styles.contains(&format!("'{}'", csp_hash(style))),
                "{style}"
            );
        }
    }

    #[test]
    fn anything_but_a_plain_origin_is_refused() {
        for bad in [
            "example.com",
            "ftp://example.com",
            "https://",
            "https://example.com/path",
            "https://example.com; script-src *",
            "https://user@example.com",
            "https://example.com:99999x",
            "https://exa mple.com",
            "https://example..com",
            "'self'",
            "*",
        ] {
            assert!(bad.parse::<Origin>().is_err(), "{bad}");
        }
        let o: Origin = "https://Example.COM:8443/".parse().unwrap();
        assert_eq!(o.to_string(), "https://example.com:8443");
    }
}
