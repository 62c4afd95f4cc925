//! The store's address: a PostgreSQL connection string (a URL,
//! `postgres://user:password@host:port/database?…`, or `key=value` pairs)
//! whose password never reaches a log, an error or a page: this type
//! shows itself, in `Display` and `Debug` alike, with the password masked.

use super::tls::{Tls, TlsError};
use percent_encoding::percent_decode_str;
use std::fmt;
use std::str::FromStr;

/// A connection string, its password kept out of sight.
#[derive(Clone, PartialEq, Eq)]
pub struct StoreUrl {
    secret: String,
}

/// What stands for a password where the address is shown.
const HIDDEN: &str = "***";

impl FromStr for StoreUrl {
    type Err = std::convert::Infallible;

    /// Takes any text: it is checked at start ([`StoreUrl::check`]), so
    /// that no refusal of the command line repeats it with its password.
    fn from_str(text: &str) -> Result<StoreUrl, Self::Err> {
        Ok(StoreUrl {
            secret: text.to_string(),
        })
    }
}

impl StoreUrl {
    /// Whether the PostgreSQL client reads it; the refusal names the
    /// address with its password masked.
    pub fn check(&self) -> Result<(), String> {
        match self.parts() {
            Ok(_) => Ok(()),
            Err(UrlError::Tls(e)) => Err(format!("{self}: {e}")),
            Err(UrlError::NotPostgres) => Err(format!(
                "{self} is not a PostgreSQL address; expected \
                 postgres://USER:PASSWORD@HOST:PORT/DATABASE"
            )),
        }
    }

    /// The client's configuration and the TLS settings taken out of it
    /// (the client reads neither `verify-*` nor `sslrootcert`).
    pub(super) fn parts(&self) -> Result<(tokio_postgres::Config, Tls), UrlError> {
        let (rest, tls) = if self.secret.contains("://") {
            without_tls_query(&self.secret)?
        } else {
            without_tls_pairs(&self.secret)?
        };
        let mut config =
            tokio_postgres::Config::from_str(&rest).map_err(|_| UrlError::NotPostgres)?;
        config.ssl_mode(tls.client_mode());
        Ok((config, tls))
    }
}

/// Why an address cannot be used (said without the address: the caller
/// shows it masked).
#[derive(Debug, thiserror::Error)]
pub(super) enum UrlError {
    #[error("not a PostgreSQL address")]
    NotPostgres,
    #[error(transparent)]
    Tls(#[from] TlsError),
}

/// A URL's query without its TLS settings, and those settings.
fn without_tls_query(text: &str) -> Result<(String, Tls), TlsError> {
    let mut tls = Tls::default();
    let Some((base, query)) = text.split_once('?') else {
        return Ok((text.to_string(), tls));
    };
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode_str(value).decode_utf8_lossy();
        if !tls.take(&percent_decode_str(key).decode_utf8_lossy(), &value)? {
            kept.push(pair);
        }
    }
    let rest = match kept.is_empty() {
        true => base.to_string(),
        false => format!("{base}?{}", kept.join("&")),
    };
    Ok((rest, tls))
}

/// `key=value` pairs without the TLS ones, and those settings.
fn without_tls_pairs(text: &str) -> Result<(String, Tls), TlsError> {
    let mut tls = Tls::default();
    let mut rest = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(pair) = next_pair(text, at) {
        if !tls.take(pair.key, &pair.value)? {
            rest.push_str(&text[pair.start..pair.end]);
            rest.push(' ');
        }
        at = pair.end;
    }
    // Whatever is not a pair goes to the client, which refuses it.
    rest.push_str(text[at..].trim());
    Ok((rest.trim_end().to_string(), tls))
}

/// One `key = value` of the key-value form, where it sits.
struct Pair<'a> {
    key: &'a str,
    value: String,
    start: usize,
    end: usize,
}

/// The pair starting at or after `at` (the value unquoted and unescaped).
fn next_pair(text: &str, at: usize) -> Option<Pair<'_>> {
    let start = at + text[at..].find(|c: char| !c.is_whitespace())?;
    let equals = start + text[start..].find('=')?;
    let key = text[start..equals].trim();
    let mut chars = text[equals + 1..].char_indices().peekable();
    while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
    let quoted = chars.next_if(|(_, c)| *c == '\'').is_some();
    let mut value = String::new();
    let mut end = text.len();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => value.extend(chars.next().map(|(_, c)| c)),
            '\'' if quoted => {
                end = equals + 1 + i + 1;
                break;
            }
            c if c.is_whitespace() && !quoted => {
                end = equals + 1 + i;
                break;
            }
            c => value.push(c),
        }
    }
    Some(Pair {
        key,
        value,
        start,
        end,
    })
}

impl fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shown(&self.secret))
    }
}

impl fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreUrl({})", shown(&self.secret))
    }
}

/// `text` with every password in it masked: the URL's user information
/// and any `password=` pair (a URL's query or the key-value form).
fn shown(text: &str) -> String {
    let masked = match text.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{}", without_user_password(rest)),
        None => text.to_string(),
    };
    without_password_pairs(&masked)
}

/// A URL's part after `scheme://` with the password of its user information masked.
fn without_user_password(rest: &str) -> String {
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some(at) = authority.rfind('@') else {
        return rest.to_string();
    };
    let (user_info, host) = authority.split_at(at);
    match user_info.split_once(':') {
        Some((user, _)) => format!("{user}:{HIDDEN}{host}{tail}"),
        None => rest.to_string(),
    }
}

/// Every `password=value` (up to the next `&` or blank) masked.
fn without_password_pairs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.to_ascii_lowercase().find("password=") {
        let value_start = found + "password=".len();
        out.push_str(&rest[..value_start]);
        out.push_str(HIDDEN);
        let value = &rest[value_start..];
        let value_end = if let Some(quoted) = value.strip_prefix('\'') {
            quoted.find('\'').map_or(value.len(), |end| end + 2)
        } else {
            value
                .find(|c: char| c == '&' || c.is_whitespace())
                .unwrap_or(value.len())
        };
        rest = &value[value_end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> StoreUrl {
        let url: StoreUrl = text.parse().unwrap();
        url.check().expect("a PostgreSQL address");
        url
    }

    #[test]
    fn the_password_is_masked_wherever_the_address_is_shown() {
        let given = url("postgres://ana:s3cret-pw@db.example:5432/team?sslmode=disable");
        for shown in [given.to_string(), format!("{given:?}")] {
            assert!(!shown.contains("s3cret-pw"), "{shown}");
            assert!(
                shown.contains("postgres://ana:***@db.example:5432/team"),
                "{shown}"
            );
        }
        let (config, _) = given.parts().unwrap();
        assert_eq!(config.get_password(), Some(&b"s3cret-pw"[..]));
        let pairs = url("host=/tmp/pg user=ana password='two words' dbname=team");
        assert_eq!(
            pairs.to_string(),
            "host=/tmp/pg user=ana password=*** dbname=team"
        );
        let query = url("postgresql:///team?host=/tmp/pg&password=hunter22&user=ana");
        assert_eq!(
            query.to_string(),
            "postgresql:///team?host=/tmp/pg&password=***&user=ana"
        );
        let none = url("postgres://ana@localhost/team");
        assert_eq!(none.to_string(), "postgres://ana@localhost/team");
    }

    #[test]
    fn tls_settings_are_taken_out_of_either_form() {
        let given = url("postgres://ana:pw@db:5432/team?sslmode=verify-full&application_name=x&sslrootcert=%2Fetc%2Fca.pem");
        let (config, tls) = given.parts().unwrap();
        assert_eq!(tls.mode, super::super::tls::Mode::VerifyFull);
        assert_eq!(
            tls.roots,
            Some(super::super::tls::Roots::File("/etc/ca.pem".into()))
        );
        assert_eq!(config.get_application_name(), Some("x"));
        assert_eq!(
            config.get_ssl_mode(),
            tokio_postgres::config::SslMode::Require
        );
        let pairs = url("host=db sslmode = 'verify-ca' sslrootcert=/etc/ca\\ x.pem dbname=team");
        let (config, tls) = pairs.parts().unwrap();
        assert_eq!(tls.mode, super::super::tls::Mode::VerifyCa);
        assert_eq!(
            tls.roots,
            Some(super::super::tls::Roots::File("/etc/ca x.pem".into()))
        );
        assert_eq!(config.get_dbname(), Some("team"));
        let (config, tls) = url("postgres://db/team").parts().unwrap();
        assert_eq!(tls.mode, super::super::tls::Mode::Prefer, "libpq's default");
        assert_eq!(
            config.get_ssl_mode(),
            tokio_postgres::config::SslMode::Prefer
        );
        let refused = "postgres://ana:hunter22@db/t?sslmode=sometimes"
            .parse::<StoreUrl>()
            .unwrap()
            .check()
            .unwrap_err();
        assert!(refused.contains("sslmode=sometimes"), "{refused}");
        assert!(!refused.contains("hunter22"), "{refused}");
    }

    #[test]
    fn an_address_that_is_not_postgres_is_refused_without_its_password() {
        let given: StoreUrl = "postgres://ana:hunter22@host:notaport/db".parse().unwrap();
        let refused = given.check().unwrap_err();
        assert!(!refused.contains("hunter22"), "{refused}");
        assert!(refused.contains("ana:***@host"), "{refused}");
    }
}
