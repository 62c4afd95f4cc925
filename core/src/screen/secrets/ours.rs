//! taskview's own rules, beside gitleaks' (docs/behaviour.md §9 "Export": a
//! shared page favours recall over precision). gitleaks' rules are tuned not
//! to flag code; an export is read by people, so these mask what a person
//! pastes whatever its entropy: a URL's password, an authorization header
//! and any secret-named header (a curl command's second `-H` too), an
//! `.env` assignment of a secret-named key, a password on a command line
//! (`mysql -p…`, `--password=…`). Each is a named rule in the count.

use regex::bytes::{Regex, RegexBuilder};
use std::sync::OnceLock;

/// One of our rules: its id, its regex and the capture group that is the secret.
pub(super) struct Ours {
    pub id: &'static str,
    pattern: &'static str,
    group: usize,
    /// ASCII words, one of which a text holds for the rule to run (lower case).
    keywords: &'static [&'static str],
}

/// Our rules.
pub(super) static OURS: [Ours; 6] = [
    Ours {
        id: "url-credentials",
        pattern: r##"(?i)\b[a-z][a-z0-9+.\-]{1,30}://[^\s/?#@:'"<>\[\]]{1,256}:([^\s/?#@'"<>]{1,256})@"##,
        group: 1,
        keywords: &["://"],
    },
    Ours {
        id: "authorization-header",
        pattern: r#"(?i)\b(?:proxy-)?authorization['"]?\s*[:=]\s*['"]?(?:(?:bearer|basic|token|digest|negotiate|bot|apikey)\s+)?([^\s'",;\\]{6,})"#,
        group: 1,
        keywords: &["authorization"],
    },
    Ours {
        id: "secret-header",
        pattern: r#"(?i)(?:-H|--header)[\s=]*['"]?[\w-]*(?:api[-_]?key|token|secret|session|cookie|password|auth)[\w-]*\s*:\s*(?:(?:bearer|basic|token|digest)\s+)?([^\s'"\\]{6,})"#,
        group: 1,
        keywords: &["-h", "--header"],
    },
    Ours {
        id: "dotenv-secret",
        pattern: r##"(?im)^[ \t]*(?:export[ \t]+)?[A-Z0-9_.\-]*(?:PASSWORD|PASSWD|PASSPHRASE|PASS|SECRET|TOKEN|KEY|CREDENTIALS?|AUTH)[A-Z0-9_]*[ \t]*=[ \t]*['"]?([^\s'"#]+)"##,
        group: 1,
        keywords: &["="],
    },
    Ours {
        id: "command-line-password",
        pattern: r#"(?:^|\s)--password[= ]['"]?([^\s'"]+)"#,
        group: 1,
        keywords: &["--password"],
    },
    Ours {
        id: "mysql-password",
        pattern: r#"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?\s-p['"]?([^\s'"\-][^\s'"]*)"#,
        group: 1,
        keywords: &["mysql", "mariadb"],
    },
];

/// Our rules' regexes, compiled on first need (one that does not compile
/// is a bug its test shows).
fn compiled() -> &'static Vec<Option<Regex>> {
    static COMPILED: OnceLock<Vec<Option<Regex>>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        OURS.iter()
            .map(|rule| {
                // ASCII classes, on bytes, as gitleaks' rules are read.
                let built = RegexBuilder::new(rule.pattern)
                    .unicode(false)
                    .size_limit(1 << 24)
                    .build();
                built.ok()
            })
            .collect()
    })
}

/// A value that is already a mask, names another value instead of holding
/// one (`$VAR`, `${VAR}`, `<password>`), or is the word `value` itself (a
/// usage line's `key=value`): not a secret.
fn is_no_secret(value: &[u8]) -> bool {
    value.starts_with(b"[masked")
        || value.starts_with(b"$")
        || value.starts_with(b"<")
        || value.eq_ignore_ascii_case(b"value")
}

/// Where rule `index` finds secrets in `text`: `(start, end)` of each.
pub(super) fn find(index: usize, text: &str, lower: &str) -> Vec<(usize, usize)> {
    let rule = &OURS[index];
    if !rule.keywords.iter().any(|k| lower.contains(k)) {
        return Vec::new();
    }
    let Some(Some(regex)) = compiled().get(index) else {
        return Vec::new();
    };
    regex
        .captures_iter(text.as_bytes())
        .filter_map(|caps| caps.get(rule.group))
        .filter(|secret| !is_no_secret(secret.as_bytes()))
        .map(|secret| (secret.start(), secret.end()))
        .collect()
}

/// Whether every rule compiles (its test).
#[cfg(test)]
pub(super) fn all_compile() -> bool {
    compiled().iter().all(Option::is_some)
}
