//! The store's address: a PostgreSQL connection string (a URL,
//! `postgres://user:password@host:port/database?…`, or `key=value` pairs)
//! whose password never reaches a log, an error or a page: this type
//! shows itself, in `Display` and `Debug` alike, with the password masked.

use std::fmt;
use std::str::FromStr;

/// A connection string, its password kept out of sight.
#[derive(Clone, PartialEq, Eq)]
pub struct StoreUrl {
    secret: String,
}

/// What stands for a password where the address is shown.
const HIDDEN: &str = "***";

impl StoreUrl {
    /// The connection string as given, for the database client only.
    pub(super) fn secret(&self) -> &str {
        &self.secret
    }
}

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
        match tokio_postgres::Config::from_str(&self.secret) {
            Ok(_) => Ok(()),
            Err(_) => Err(format!(
                "{self} is not a PostgreSQL address; expected \
                 postgres://USER:PASSWORD@HOST:PORT/DATABASE"
            )),
        }
    }
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
        assert_eq!(
            given.secret(),
            "postgres://ana:s3cret-pw@db.example:5432/team?sslmode=disable"
        );
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
    fn an_address_that_is_not_postgres_is_refused_without_its_password() {
        let given: StoreUrl = "postgres://ana:hunter22@host:notaport/db".parse().unwrap();
        let refused = given.check().unwrap_err();
        assert!(!refused.contains("hunter22"), "{refused}");
        assert!(refused.contains("ana:***@host"), "{refused}");
    }
}
