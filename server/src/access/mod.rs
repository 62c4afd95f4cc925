//! Who may read (docs/behaviour.md §7): one layer in front of every route the server
//! has — the app's files, `/api`, `/ws`, and any added later.
//!
//! - `Host` must be a loopback name, the address the request came in on, or
//!   a name given with `--allow-host`; anything else is refused (DNS
//!   rebinding: a hostile name resolved to this machine). A request without
//!   `Host` (HTTP/1.0) passes this rule: no browser sends one.
//! - A request that carries `Origin` must come from the app's own origin
//!   (the same host and port as its `Host`), a loopback page or an origin
//!   given with `--allow-origin`: those get a CORS grant for exactly their
//!   origin (with credentials: kandev's client sends its cookies); any other,
//!   and `null`, get a 403 — WebSocket upgrades and preflights included.
//! - Bound beyond loopback, or given `--token`, nothing is served without
//!   the server's token: once in the URL (`?token=`, exchanged for an
//!   HttpOnly, SameSite=Strict cookie and a redirect that drops it from the
//!   address bar), then the cookie, or `Authorization: Bearer`. `--no-auth`
//!   turns this off.

use axum::extract::connect_info::Connected;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::serve::IncomingStream;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;
use subtle::ConstantTimeEq;
use tokio::net::TcpListener;

/// The operator's choices: who may read besides loopback.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Names served besides loopback and the bound address (`--allow-host`).
    pub allow_hosts: Vec<HostName>,
    /// Pages that may read the API and open `/ws` besides the app's own and
    /// loopback ones (`--allow-origin`).
    pub allow_origins: Vec<PageOrigin>,
    /// When a token is asked for.
    pub token: TokenRule,
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

/// A server's secret: URL- and cookie-safe characters only, so it travels
/// in `?token=` and a cookie as it is.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// 192 random bits from the operating system, as hex.
    fn generate() -> Token {
        let mut bytes = [0u8; 24];
        getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
        Token(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The token as text (for the URL the server prints).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is this token, compared in constant time.
    fn matches(&self, candidate: &[u8]) -> bool {
        self.0.as_bytes().ct_eq(candidate).into()
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(…)")
    }
}

impl FromStr for Token {
    type Err = String;

    fn from_str(text: &str) -> Result<Token, String> {
        let safe = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
        if text.is_empty() || text.len() > 256 || !text.chars().all(safe) {
            return Err("a token is 1 to 256 letters, digits, '-', '.', '_' or '~'".into());
        }
        Ok(Token(text.to_string()))
    }
}

/// A host: an IP address or a lower-case DNS name (without a trailing dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostName {
    Ip(IpAddr),
    Name(String),
}

impl HostName {
    /// The host and port of a `Host` header or an origin's authority
    /// (`name`, `name:port`, `1.2.3.4:port`, `[::1]:port`).
    fn of_authority(text: &str) -> Option<(HostName, Option<u16>)> {
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (inside, after) = rest.split_once(']')?;
            let ip: Ipv6Addr = inside.parse().ok()?;
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':')?),
            };
            (HostName::Ip(IpAddr::V6(ip)), port)
        } else {
            let (host, port) = match text.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            };
            (HostName::of_name(host)?, port)
        };
        let port = match port {
            None | Some("") => None,
            Some(p) if p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
                Some(p.parse().ok()?)
            }
            Some(_) => return None,
        };
        Some((host, port))
    }

    fn of_name(host: &str) -> Option<HostName> {
        if let Ok(ip) = host.parse::<Ipv4Addr>() {
            return Some(HostName::Ip(IpAddr::V4(ip)));
        }
        let name = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
        let label_ok = |label: &str| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        };
        name.split('.')
            .all(label_ok)
            .then_some(HostName::Name(name))
    }

    /// `localhost`, `*.localhost`, 127.0.0.0/8 or `::1`.
    fn is_loopback(&self) -> bool {
        match self {
            HostName::Ip(ip) => ip.to_canonical().is_loopback(),
            HostName::Name(name) => name == "localhost" || name.ends_with(".localhost"),
        }
    }
}

impl FromStr for HostName {
    type Err = String;

    fn from_str(text: &str) -> Result<HostName, String> {
        let hint = "expected a host name or address without a port, e.g. tv.example.com";
        match HostName::of_authority(text) {
            Some((host, None)) if !text.ends_with(':') => Ok(host),
            _ => Err(format!("{text:?} is not a host; {hint}")),
        }
    }
}

impl fmt::Display for HostName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostName::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
            HostName::Ip(ip) => write!(f, "{ip}"),
            HostName::Name(name) => f.write_str(name),
        }
    }
}

/// A web page's origin: `http(s)://host[:port]`, its port made explicit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageOrigin {
    secure: bool,
    host: HostName,
    port: u16,
}

impl PageOrigin {
    /// The origin an `Origin` header names; `None` for `null` or anything
    /// that is not a plain http(s) origin.
    fn of_header(text: &str) -> Option<PageOrigin> {
        let (secure, authority) = if let Some(rest) = text.strip_prefix("https://") {
            (true, rest)
        } else {
            (false, text.strip_prefix("http://")?)
        };
        let (host, port) = HostName::of_authority(authority)?;
        let default = if secure { 443 } else { 80 };
        Some(PageOrigin {
            secure,
            host,
            port: port.unwrap_or(default),
        })
    }

    /// Whether a page of this origin is the app itself, served at `host`.
    fn is_served_at(&self, (host, port): &(HostName, Option<u16>)) -> bool {
        let default = if self.secure { 443 } else { 80 };
        self.host == *host && self.port == port.unwrap_or(default)
    }
}

impl FromStr for PageOrigin {
    type Err = String;

    fn from_str(text: &str) -> Result<PageOrigin, String> {
        let plain = text.strip_suffix('/').unwrap_or(text);
        PageOrigin::of_header(plain).ok_or_else(|| {
            format!(
                "{text:?} is not an origin; expected http(s)://host[:port] with no path \
                 or wildcard, e.g. https://kandev.example.com"
            )
        })
    }
}

impl fmt::Display for PageOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (scheme, default) = if self.secure {
            ("https", 443)
        } else {
            ("http", 80)
        };
        write!(f, "{scheme}://{}", self.host)?;
        if self.port != default {
            write!(f, ":{}", self.port)?;
        }
        Ok(())
    }
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

/// The local address a connection came in on (the bound one, or with
/// 0.0.0.0 whichever of the machine's addresses the client reached).
#[derive(Clone, Copy, Debug)]
pub struct Arrival(Option<SocketAddr>);

impl Connected<IncomingStream<'_, TcpListener>> for Arrival {
    fn connect_info(stream: IncomingStream<'_, TcpListener>) -> Arrival {
        Arrival(stream.io().local_addr().ok())
    }
}

/// The rules in force for one running server.
pub(crate) struct Guard {
    access: Access,
    bound: SocketAddr,
    token: Option<Token>,
    /// Named after the bound port: cookies ignore ports, so two servers on
    /// one host keep a cookie each.
    cookie: String,
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
            token,
            cookie: format!("taskview-token-{}", bound.port()),
        }
    }

    /// The token readers need, if any.
    pub(crate) fn token(&self) -> Option<&Token> {
        self.token.as_ref()
    }

    /// The `Host` (and an absolute request-target's authority, or HTTP/2's
    /// `:authority`), each of which must name this server.
    fn host(
        &self,
        request: &Request,
        arrival: Option<SocketAddr>,
    ) -> Result<Option<(HostName, Option<u16>)>, String> {
        let header = request
            .headers()
            .get(header::HOST)
            .map(|h| h.to_str().unwrap_or("\u{fffd}"));
        let target = request.uri().authority().map(|a| a.as_str());
        let mut named = None;
        for text in [header, target].into_iter().flatten() {
            match HostName::of_authority(text) {
                Some(host) if self.serves(&host.0, arrival) => named = Some(host),
                _ => {
                    return Err(format!(
                        "Host {:?} is not a name of this server; it answers to loopback \
                         names, the address it listens on, and names given with --allow-host",
                        clip(text)
                    ))
                }
            }
        }
        Ok(named)
    }

    fn serves(&self, host: &HostName, arrival: Option<SocketAddr>) -> bool {
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

    /// The origin to grant, when `Origin` names one that may read.
    fn origin(
        &self,
        value: &HeaderValue,
        host: Option<&(HostName, Option<u16>)>,
    ) -> Result<HeaderValue, String> {
        let text = value.to_str().unwrap_or("\u{fffd}");
        let allowed = PageOrigin::of_header(text).is_some_and(|origin| {
            origin.host.is_loopback()
                || host.is_some_and(|host| origin.is_served_at(host))
                || self.access.allow_origins.contains(&origin)
        });
        if allowed {
            Ok(value.clone())
        } else {
            Err(format!(
                "pages of origin {:?} may not read this server (start it with \
                 --allow-origin to allow an origin)",
                clip(text)
            ))
        }
    }

    /// Whether the request carries the token, when one is needed.
    fn admit(&self, request: &Request) -> Admission {
        let Some(token) = &self.token else {
            return Admission::In;
        };
        let (in_query, rest) = take_token(request.uri().query());
        if let Some(given) = in_query {
            if !token.matches(given.as_bytes()) {
                return Admission::Out("the token in the URL is not this server's");
            }
            let navigable = matches!(*request.method(), Method::GET | Method::HEAD)
                && !request.headers().contains_key(header::UPGRADE);
            if !navigable {
                return Admission::In;
            }
            // One leading slash: `//other.example` would leave this server.
            let path = format!("/{}", request.uri().path().trim_start_matches(['/', '\\']));
            let cookie = format!(
                "{}={}; Path=/; HttpOnly; SameSite=Strict",
                self.cookie,
                token.as_str()
            );
            let location = match rest {
                Some(rest) => format!("{path}?{rest}"),
                None => path,
            };
            return Admission::Exchange { location, cookie };
        }
        if let Some(bearer) = bearer(request.headers()) {
            if token.matches(bearer) {
                return Admission::In;
            }
            return Admission::Out("the Bearer token is not this server's");
        }
        let mut cookies = cookies(request.headers(), &self.cookie).peekable();
        if cookies.peek().is_none() {
            return Admission::Out("this server needs its token");
        }
        if cookies.any(|value| token.matches(value)) {
            Admission::In
        } else {
            Admission::Out("the token cookie is not this server's (was it restarted?)")
        }
    }
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

/// What the token rule says of a request.
enum Admission {
    In,
    /// A valid `?token=` on a page: set the cookie and go to the location.
    Exchange {
        location: String,
        cookie: String,
    },
    /// Refused, for this reason.
    Out(&'static str),
}

/// The layer itself: `Host`, then `Origin` (answering preflights), then the
/// token, then the route; granted origins get their CORS headers.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let arrival = request
        .extensions()
        .get::<ConnectInfo<Arrival>>()
        .and_then(|info| info.0 .0);
    let host = match guard.host(&request, arrival) {
        Ok(host) => host,
        Err(reason) => return refuse(StatusCode::FORBIDDEN, &reason),
    };
    let grant = match request.headers().get(header::ORIGIN) {
        None => None,
        Some(value) => match guard.origin(value, host.as_ref()) {
            Ok(origin) => Some(origin),
            Err(reason) => return refuse(StatusCode::FORBIDDEN, &reason),
        },
    };
    let preflight = request.method() == Method::OPTIONS
        && request
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut response = match (&grant, guard.admit(&request)) {
        (Some(_), _) if preflight => preflight_answer(request.headers()),
        (_, Admission::In) => next.run(request).await,
        (_, Admission::Exchange { location, cookie }) => exchange(&location, &cookie),
        (_, Admission::Out(reason)) => unauthorized(reason),
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

/// At most 100 characters of a header echoed in a refusal.
fn clip(text: &str) -> String {
    text.chars().take(100).collect()
}

/// The `token` parameter of a query (percent-decoded) and the rest of the
/// query as sent (`None` when nothing is left).
fn take_token(query: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(query) = query else {
        return (None, None);
    };
    let mut token = None;
    let mut rest = Vec::new();
    for pair in query.split('&') {
        match pair.strip_prefix("token=") {
            Some(value) if token.is_none() => {
                token = Some(
                    percent_encoding::percent_decode_str(value)
                        .decode_utf8_lossy()
                        .into_owned(),
                );
            }
            _ if pair.is_empty() => {}
            _ => rest.push(pair),
        }
    }
    let rest = (!rest.is_empty()).then(|| rest.join("&"));
    (token, rest)
}

/// The token of `Authorization: Bearer <token>`.
fn bearer(headers: &HeaderMap) -> Option<&[u8]> {
    let value = headers.get(header::AUTHORIZATION)?.as_bytes();
    let (scheme, rest) = value.split_at(value.iter().position(|&b| b == b' ')?);
    scheme
        .eq_ignore_ascii_case(b"bearer")
        .then(|| rest.trim_ascii())
}

/// The values of every cookie called `name`.
fn cookies<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
    headers
        .get_all(header::COOKIE)
        .iter()
        .flat_map(|value| value.as_bytes().split(|&b| b == b';'))
        .filter_map(move |pair| {
            let pair = pair.trim_ascii();
            let at = pair.iter().position(|&b| b == b'=')?;
            (&pair[..at] == name.as_bytes()).then(|| &pair[at + 1..])
        })
}

#[cfg(test)]
mod tests;
