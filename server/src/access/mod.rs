//! Who may read (docs/behaviour.md §7 "Who may read", docs/security.md): one
//! layer in front of every route the server has — the app's files, `/api`,
//! `/ws`, the OTLP receiver, and any added later.
//!
//! - `Host` must be a loopback name, the address the request came in on, or
//!   a name given with `--allow-host`; anything else is refused (DNS
//!   rebinding: a hostile name resolved to this machine), and two `Host`
//!   headers are a bad request. A request without `Host` (HTTP/1.0) passes
//!   this rule: no browser sends one.
//! - A request that carries `Origin` must come from the app's own origin
//!   (the host and port of its `Host`, or another name of this server on
//!   its port) or an origin given with `--allow-origin`: those get a CORS
//!   grant for exactly their origin (with credentials: kandev's client sends
//!   its cookies); any other — other loopback ports and `*.localhost`
//!   included, and `null` — gets a 403, WebSocket upgrades and preflights
//!   included, and the log says which flag would allow it.
//! - Bound beyond loopback, or given `--token`, nothing is served without
//!   the server's token: once in the URL (`?token=`, exchanged for a cookie
//!   and a redirect that drops it from the address bar), then the cookie, or
//!   `Authorization: Bearer` (`token`). Wrong tokens are answered slowly
//!   (`throttle`). `--no-auth` turns this off.
//! - Behind a proxy named with `--trusted-proxy`, its `X-Forwarded-Proto:
//!   https` makes the cookie `Secure` and its `X-Forwarded-For` names the
//!   client.

mod guard;
mod names;
mod throttle;
mod token;

pub(crate) use guard::Guard;
pub use names::{HostName, PageOrigin};
pub use token::Token;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use guard::{Admission, Refusal};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use throttle::Penalty;

/// The operator's choices: who may read besides loopback.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Names served besides loopback and the bound address (`--allow-host`).
    pub allow_hosts: Vec<HostName>,
    /// Pages that may read the API and open `/ws` besides the app's own
    /// (`--allow-origin`).
    pub allow_origins: Vec<PageOrigin>,
    /// When a token is asked for.
    pub token: TokenRule,
    /// Proxies whose `X-Forwarded-Proto` and `X-Forwarded-For` are believed
    /// (`--trusted-proxy`).
    pub trusted_proxies: Vec<IpAddr>,
}

/// When a reader needs the server's token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TokenRule {
    /// Bound beyond loopback: a token made at start. On loopback: none.
    #[default]
    Auto,
    /// This token, wherever the server is bound (`--token`, `TASKVIEW_TOKEN`).
    Given(Token),
    /// None, even beyond loopback (`--no-auth`).
    Off,
}

/// The URL a reader opens: the bound address (loopback when bound to every
/// interface) with the token, when one is needed.
pub fn url(bound: SocketAddr, token: Option<&Token>) -> String {
    let ip = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    let base = format!("http://{}/", SocketAddr::new(ip, bound.port()));
    match token {
        Some(token) => format!("{base}?token={}", token.as_str()),
        None => base,
    }
}

/// The token rule for a server with a second listener (`--otlp`): with
/// [`TokenRule::Auto`], one token made now when either address is beyond
/// loopback, asked for on both.
pub(crate) fn shared_token(
    rule: &TokenRule,
    main: SocketAddr,
    other: Option<SocketAddr>,
) -> TokenRule {
    let beyond = |addr: SocketAddr| !addr.ip().to_canonical().is_loopback();
    match (rule, other) {
        (TokenRule::Auto, Some(other)) if beyond(main) || beyond(other) => {
            TokenRule::Given(Token::generate())
        }
        _ => rule.clone(),
    }
}

/// Where a connection came from and in on: the local address (the bound
/// one, or with 0.0.0.0 whichever of the machine's addresses the client
/// reached) and the peer's.
#[derive(Clone, Copy, Debug, Default)]
pub struct Arrival {
    local: Option<SocketAddr>,
    peer: Option<SocketAddr>,
}

impl Arrival {
    /// A connection in on `local` from `peer`.
    pub fn of(local: Option<SocketAddr>, peer: Option<SocketAddr>) -> Arrival {
        Arrival { local, peer }
    }
}

/// Where `request` arrived, when its connection said.
fn arrival(request: &Request) -> Arrival {
    request
        .extensions()
        .get::<ConnectInfo<Arrival>>()
        .map_or_else(Arrival::default, |info| info.0)
}

/// The response to a valid `?token=`: the cookie, and the same URL without
/// the token.
fn exchange(location: &str, cookie: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::LOCATION, location),
        (header::SET_COOKIE, cookie),
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    response
}

/// The layer itself: `Host`, then `Origin` (answering preflights), then the
/// token, then the route; granted origins get their CORS headers.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let arrival = arrival(&request);
    let host = match guard.host(&request, arrival.local) {
        Ok(host) => host,
        Err(None) => return refuse(StatusCode::BAD_REQUEST, "a request has one Host header"),
        Err(Some(refusal)) => return forbidden(refusal),
    };
    let grant = match request.headers().get(header::ORIGIN) {
        None => None,
        Some(value) => match guard.origin(value, host.as_ref(), arrival.local) {
            Ok(origin) => Some(origin),
            Err(refusal) => return forbidden(refusal),
        },
    };
    let preflight = request.method() == Method::OPTIONS
        && request
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let secure = guard.over_https(request.headers(), arrival.peer);
    let client = guard.client(request.headers(), arrival.peer);
    let mut response = match (&grant, guard.admit(&request, secure)) {
        (Some(_), _) if preflight => preflight_answer(request.headers()),
        (_, Admission::In) => {
            if let Some(client) = client.filter(|_| guard.token().is_some()) {
                guard.throttle.right(client);
            }
            next.run(request).await
        }
        (_, Admission::Exchange { location, cookie }) => exchange(&location, &cookie),
        (_, Admission::Missing(reason)) => unauthorized(reason),
        (_, Admission::Wrong(reason)) => slowly_refused(&guard, client, reason).await,
    };
    if let Some(origin) = grant {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
        headers.append(header::VARY, HeaderValue::from_static("origin"));
    }
    response
}

/// A wrong token's 401, after the client's delay (`throttle`); a 429 at
/// once when too many answers wait already.
async fn slowly_refused(guard: &Guard, client: Option<IpAddr>, reason: &str) -> Response {
    let client = client.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    match guard.throttle.wrong(client) {
        Penalty::Wait(delay, _place) => {
            tokio::time::sleep(delay).await;
            unauthorized(reason)
        }
        Penalty::Busy => refuse(
            StatusCode::TOO_MANY_REQUESTS,
            "too many wrong tokens are being answered; try again later",
        ),
    }
}

/// A 403, logged (at most once a minute for the same name) with the flag
/// that would allow it.
fn forbidden(refusal: Refusal) -> Response {
    if let Some(line) = refusal.log {
        tracing::warn!("{line}");
    }
    refuse(StatusCode::FORBIDDEN, &refusal.reason)
}

/// A granted origin's preflight: reads only, with the headers it asks for.
fn preflight_answer(request: &HeaderMap) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, HEAD, OPTIONS"),
    );
    if let Some(asked) = request.get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, asked.clone());
    }
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    headers.append(
        header::VARY,
        HeaderValue::from_static("access-control-request-method, access-control-request-headers"),
    );
    response
}

/// A refusal: the status and one line of text that says why.
fn refuse(status: StatusCode, reason: &str) -> Response {
    let mut response = (status, format!("taskview: {reason}\n")).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// 401: what is missing and where to get it.
fn unauthorized(reason: &str) -> Response {
    let mut response = refuse(
        StatusCode::UNAUTHORIZED,
        &format!(
            "{reason}: open the URL taskview printed when it started (it ends in ?token=…), \
             or send Authorization: Bearer <token>"
        ),
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"taskview\""),
    );
    response
}

/// `uri` with the value of its `token` parameters hidden, for the log.
pub fn redacted(uri: &axum::http::Uri) -> String {
    let Some(query) = uri.query() else {
        return uri.to_string();
    };
    let hidden: Vec<&str> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if name.eq_ignore_ascii_case("token") => "token=…",
            _ => pair,
        })
        .collect();
    let scheme_host = uri
        .authority()
        .map(|a| format!("{}://{a}", uri.scheme_str().unwrap_or("http")))
        .unwrap_or_default();
    format!("{scheme_host}{}?{}", uri.path(), hidden.join("&"))
}

#[cfg(test)]
mod tests;
