//! The server's token and where a request carries it: `?token=`, the
//! cookie it is exchanged for, or `Authorization: Bearer`.
//!
//! The cookie does not hold the token: it holds a value derived from it and
//! the server's port (SHA-256), so a cookie sent to another port of the host
//! (browsers send a host's cookies to all its ports: cookies have no port)
//! gives away neither the token (which also opens `Authorization: Bearer`,
//! `?token=` and the `--otlp` listener) nor the cookie of any other server
//! with the same token. Behind an HTTPS proxy it is `__Host-` prefixed and
//! `Secure`, so browsers send it only over HTTPS, to this host, with
//! `Path=/` (docs/security.md "Token and cookie").

use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;
use subtle::ConstantTimeEq;

/// The fewest characters a given token has.
pub const SHORTEST: usize = 16;
/// The fewest different characters a given token has.
pub const DIFFERENT: usize = 8;

/// A server's secret: URL- and cookie-safe characters only, so it travels
/// in `?token=` as it is.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// 192 random bits from the operating system, as hex.
    pub(super) fn generate() -> Token {
        let mut bytes = [0u8; 24];
        getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
        Token(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The token as text (for the URL the server prints).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is this token, compared in constant time.
    pub(super) fn matches(&self, candidate: &[u8]) -> bool {
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

    /// A token given by the operator: at least [`SHORTEST`] characters of
    /// which at least [`DIFFERENT`] differ (`--token a` is refused: a short
    /// or repetitive token is guessed), at most 256, URL-safe.
    fn from_str(text: &str) -> Result<Token, String> {
        let safe = |c: char| c.is_ascii_alphanumeric() || "-._~".contains(c);
        if text.len() > 256 || !text.chars().all(safe) {
            return Err("a token is at most 256 letters, digits, '-', '.', '_' or '~'".into());
        }
        let mut different: Vec<char> = text.chars().collect();
        different.sort_unstable();
        different.dedup();
        if text.len() < SHORTEST || different.len() < DIFFERENT {
            return Err(format!(
                "a token is at least {SHORTEST} characters with at least {DIFFERENT} different \
                 ones, so it cannot be guessed (e.g. openssl rand -hex 24); without --token \
                 taskview makes one"
            ));
        }
        Ok(Token(text.to_string()))
    }
}

/// The cookie a server on one port sets and reads.
pub(super) struct Cookie {
    port: u16,
    value: String,
}

impl Cookie {
    /// The cookie of the server with `token` on `port`.
    pub(super) fn new(token: &Token, port: u16) -> Cookie {
        let digest = Sha256::new()
            .chain_update(b"taskview cookie\0")
            .chain_update(port.to_be_bytes())
            .chain_update(token.as_str().as_bytes())
            .finalize();
        Cookie {
            port,
            value: digest.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// Its name: `__Host-` prefixed over HTTPS.
    fn name(&self, secure: bool) -> String {
        let prefix = if secure { "__Host-" } else { "" };
        format!("{prefix}taskview-{}", self.port)
    }

    /// The `Set-Cookie` value: HttpOnly, SameSite=Strict, `Path=/`, and over
    /// HTTPS `Secure` with the `__Host-` prefix.
    pub(super) fn set(&self, secure: bool) -> String {
        let secure_flag = if secure { "; Secure" } else { "" };
        format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict{secure_flag}",
            self.name(secure),
            self.value
        )
    }

    /// Whether `headers` carry this cookie (either name); `None` when they
    /// carry neither.
    pub(super) fn carried(&self, headers: &HeaderMap) -> Option<bool> {
        let mut seen = false;
        for secure in [false, true] {
            for value in cookies(headers, &self.name(secure)) {
                seen = true;
                if self.value.as_bytes().ct_eq(value).into() {
                    return Some(true);
                }
            }
        }
        seen.then_some(false)
    }
}

/// The `token` parameter of a query (percent-decoded) and the rest of the
/// query as sent (`None` when nothing is left).
pub(super) fn take_token(query: Option<&str>) -> (Option<String>, Option<String>) {
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
pub(super) fn bearer(headers: &HeaderMap) -> Option<&[u8]> {
    let value = headers.get(header::AUTHORIZATION)?.as_bytes();
    let (scheme, rest) = value.split_at(value.iter().position(|&b| b == b' ')?);
    scheme
        .eq_ignore_ascii_case(b"bearer")
        .then(|| rest.trim_ascii())
}

/// The values of every cookie called `name`.
pub(super) fn cookies<'a>(
    headers: &'a HeaderMap,
    name: &'a str,
) -> impl Iterator<Item = &'a [u8]> + 'a {
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
