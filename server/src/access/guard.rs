//! The rules of one running server applied to a request: its `Host`, its
//! `Origin`, its token, and what a trusted proxy says of it.

use super::names::{HostName, PageOrigin};
use super::throttle::Throttle;
use super::token::{bearer, take_token, Cookie, Token};
use super::{Access, TokenRule};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A refused origin is logged at most this often.
const LOG_AGAIN: Duration = Duration::from_secs(60);

/// The rules in force for one running server.
pub(crate) struct Guard {
    access: Access,
    bound: SocketAddr,
    token: Option<Token>,
    cookie: Option<Cookie>,
    pub(super) throttle: Throttle,
    /// When each refused origin was last logged.
    logged: Mutex<HashMap<String, Instant>>,
}

/// Why a request is refused: the answer's text, and the log line's.
pub(super) struct Refusal {
    pub(super) reason: String,
    pub(super) log: Option<String>,
}

/// What the token rule says of a request.
pub(super) enum Admission {
    In,
    /// A valid `?token=` on a page: set the cookie and go to the location.
    Exchange {
        location: String,
        cookie: String,
    },
    /// No token where one is needed.
    Missing(&'static str),
    /// A token that is not this server's (its answer is slowed).
    Wrong(&'static str),
}

impl Guard {
    /// The rules of a server bound to `bound` (its real port).
    pub(crate) fn new(access: &Access, bound: SocketAddr) -> Guard {
        let token = match &access.token {
            TokenRule::Given(token) => Some(token.clone()),
            TokenRule::Off => None,
            TokenRule::Auto if bound.ip().to_canonical().is_loopback() => None,
            TokenRule::Auto => Some(Token::generate()),
        };
        Guard {
            access: access.clone(),
            bound,
            cookie: token.as_ref().map(|t| Cookie::new(t, bound.port())),
            token,
            throttle: Throttle::default(),
            logged: Mutex::new(HashMap::new()),
        }
    }

    /// The token readers need, if any.
    pub(crate) fn token(&self) -> Option<&Token> {
        self.token.as_ref()
    }

    /// The `Host` (and an absolute request-target's authority, or HTTP/2's
    /// `:authority`), each of which must name this server; more than one
    /// `Host` header is a bad request (`Err(None)`).
    pub(super) fn host(
        &self,
        request: &Request,
        arrival: Option<SocketAddr>,
    ) -> Result<Option<(HostName, Option<u16>)>, Option<Refusal>> {
        let mut hosts = request.headers().get_all(header::HOST).iter();
        let header = hosts.next().map(|h| h.to_str().unwrap_or("\u{fffd}"));
        if hosts.next().is_some() {
            return Err(None);
        }
        let target = request.uri().authority().map(|a| a.as_str());
        let mut named = None;
        for text in [header, target].into_iter().flatten() {
            match HostName::of_authority(text) {
                Some(host) if self.serves(&host.0, arrival) => named = Some(host),
                Some((host, _)) => return Err(Some(self.unknown_host(text, Some(&host)))),
                None => return Err(Some(self.unknown_host(text, None))),
            }
        }
        Ok(named)
    }

    fn unknown_host(&self, text: &str, host: Option<&HostName>) -> Refusal {
        let flag = host.map_or_else(String::new, |h| format!(" (to serve it: --allow-host {h})"));
        Refusal {
            reason: format!(
                "Host {:?} is not a name of this server; it answers to loopback names, the \
                 address it listens on, and names given with --allow-host",
                clip(text)
            ),
            log: self
                .first_in_a_while(&format!("host {text}"))
                .then(|| format!("refused a request for Host {:?}{flag}", clip(text))),
        }
    }

    pub(super) fn serves(&self, host: &HostName, arrival: Option<SocketAddr>) -> bool {
        let is_local_address = |ip: &IpAddr| {
            [Some(self.bound), arrival]
                .into_iter()
                .flatten()
                .any(|a| !a.ip().is_unspecified() && a.ip().to_canonical() == ip.to_canonical())
        };
        host.is_loopback()
            || self.access.allow_hosts.contains(host)
            || matches!(host, HostName::Ip(ip) if is_local_address(ip))
    }

    /// The origin to grant, when `Origin` names one that may read: the
    /// app's own (the host and port of `Host`, or another name of this
    /// server on its port) or one named with `--allow-origin`. Other
    /// loopback ports and `*.localhost` are other sites.
    pub(super) fn origin(
        &self,
        value: &HeaderValue,
        host: Option<&(HostName, Option<u16>)>,
        arrival: Option<SocketAddr>,
    ) -> Result<HeaderValue, Refusal> {
        let text = value.to_str().unwrap_or("\u{fffd}");
        let origin = PageOrigin::of_header(text);
        let own_port = arrival.map_or(self.bound.port(), |a| a.port());
        let allowed = origin.as_ref().is_some_and(|origin| {
            host.is_some_and(|host| origin.is_served_at(host))
                || (origin.port == own_port && self.serves(&origin.host, arrival))
                || self.access.allow_origins.contains(origin)
        });
        if allowed {
            return Ok(value.clone());
        }
        let flag = match &origin {
            Some(origin) => format!("start taskview with --allow-origin {origin}"),
            None => "a null or opaque origin cannot be allowed with --allow-origin".to_string(),
        };
        Err(Refusal {
            reason: format!(
                "pages of origin {:?} may not read this server ({flag})",
                clip(text)
            ),
            log: self.first_in_a_while(&format!("origin {text}")).then(|| {
                format!(
                    "refused a page of origin {:?}: to let it read, {flag}",
                    clip(text)
                )
            }),
        })
    }

    /// Whether `what` was not logged in the last minute (and is now).
    fn first_in_a_while(&self, what: &str) -> bool {
        let mut logged = self.logged.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if logged.len() > 256 {
            logged.retain(|_, at| now.duration_since(*at) < LOG_AGAIN);
        }
        match logged.get(what) {
            Some(at) if now.duration_since(*at) < LOG_AGAIN => false,
            _ => {
                logged.insert(clip(what), now);
                true
            }
        }
    }

    /// Whether the request reached a trusted proxy over HTTPS (`--trusted-proxy`
    /// and its `X-Forwarded-Proto: https`).
    pub(super) fn over_https(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> bool {
        self.proxied(peer)
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split(',').next())
                .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
    }

    fn proxied(&self, peer: Option<SocketAddr>) -> bool {
        peer.is_some_and(|p| {
            let ip = p.ip().to_canonical();
            self.access
                .trusted_proxies
                .iter()
                .any(|t| t.to_canonical() == ip)
        })
    }

    /// Who sent the request: the peer, or behind a trusted proxy the last
    /// address its `X-Forwarded-For` names.
    pub(super) fn client(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<IpAddr> {
        let forwarded = || {
            let list = headers.get("x-forwarded-for")?.to_str().ok()?;
            list.rsplit(',').next()?.trim().parse::<IpAddr>().ok()
        };
        match self.proxied(peer) {
            true => forwarded().or(peer.map(|p| p.ip())),
            false => peer.map(|p| p.ip()),
        }
    }

    /// Whether the request carries the token, when one is needed; a
    /// `?token=` on a page (over HTTPS, `secure`) is exchanged for the cookie.
    pub(super) fn admit(&self, request: &Request, secure: bool) -> Admission {
        let (Some(token), Some(cookie)) = (&self.token, &self.cookie) else {
            return Admission::In;
        };
        let (in_query, rest) = take_token(request.uri().query());
        if let Some(given) = in_query {
            if !token.matches(given.as_bytes()) {
                return Admission::Wrong("the token in the URL is not this server's");
            }
            let navigable = matches!(*request.method(), Method::GET | Method::HEAD)
                && !request.headers().contains_key(header::UPGRADE);
            if !navigable {
                return Admission::In;
            }
            // One leading slash: `//other.example` would leave this server.
            let path = format!("/{}", request.uri().path().trim_start_matches(['/', '\\']));
            let location = match rest {
                Some(rest) => format!("{path}?{rest}"),
                None => path,
            };
            let cookie = cookie.set(secure);
            return Admission::Exchange { location, cookie };
        }
        if let Some(bearer) = bearer(request.headers()) {
            if token.matches(bearer) {
                return Admission::In;
            }
            return Admission::Wrong("the Bearer token is not this server's");
        }
        match cookie.carried(request.headers()) {
            None => Admission::Missing("this server needs its token"),
            Some(true) => Admission::In,
            Some(false) => {
                Admission::Wrong("the token cookie is not this server's (was it restarted?)")
            }
        }
    }
}

/// At most 100 characters of a header echoed in a refusal.
pub(super) fn clip(text: &str) -> String {
    text.chars().take(100).collect()
}
