//! docs/behaviour.md §9 "Export": a shared page favours recall. One test per
//! case people paste and gitleaks' precise rules leave: keys before
//! punctuation, URL credentials, authorization headers (a curl command's
//! second `-H` too), `.env` values of secret-named keys whatever their
//! entropy, command-line passwords, and base64 of any of these; each rule is
//! named in the count. The secrets are fake.

use super::*;

const OPENAI_KEY: &str = "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";
const ANTHROPIC_KEY: &str = "sk-ant-api03-YgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J1TWDtkwtDDbAA";
const STRIPE_KEY: &str = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

fn mask(text: &str) -> (String, Masked) {
    let mut masked = Masked::default();
    let out = Masker::new().mask_plain(text, &mut masked);
    (out, masked)
}

/// `text` masked: none of `secrets` left, each found by `rules` (in order of
/// appearance), and nothing else masked.
fn assert_masks(text: &str, secrets: &[&str], rules: &[&str]) {
    let (out, masked) = mask(text);
    for secret in secrets {
        assert!(!out.contains(secret), "{secret:?} left in {out:?}");
    }
    let found: Vec<&str> = out
        .match_indices("[masked: ")
        .map(|(at, _)| {
            let rest = &out[at + 9..];
            &rest[..rest.find(']').unwrap()]
        })
        .collect();
    assert_eq!(found, rules, "{out:?}");
    assert_eq!(masked.total, rules.len(), "{masked:?}");
    for rule in rules {
        assert!(masked.summary().contains(rule), "{}", masked.summary());
    }
}

#[test]
fn keys_followed_by_a_comma_or_a_full_stop_in_prose_are_masked() {
    let prose = format!("found these: {OPENAI_KEY}, {ANTHROPIC_KEY}. And {STRIPE_KEY}.");
    assert_masks(
        &prose,
        &[OPENAI_KEY, ANTHROPIC_KEY, STRIPE_KEY],
        &["openai-api-key", "anthropic-api-key", "stripe-access-token"],
    );
    let (out, _) = mask(&prose);
    assert!(
        out.starts_with("found these: [masked: openai-api-key], [masked: anthropic"),
        "{out}"
    );
    assert!(out.ends_with("[masked: stripe-access-token]."), "{out}");
}

#[test]
fn passwords_in_urls_are_masked() {
    assert_masks(
        "DATABASE_URL is postgres://app:pl41n-pass@db.internal:5432/app, the mirror https://deploy:hunter2@git.example/repo.git",
        &["pl41n-pass", "hunter2"],
        &["url-credentials", "url-credentials"],
    );
    let (out, _) = mask("postgres://app:pl41n-pass@db.internal:5432/app");
    assert_eq!(
        out,
        "postgres://app:[masked: url-credentials]@db.internal:5432/app"
    );
    assert_masks(
        "see https://github.com/a/b and https://user@host.example/x",
        &[],
        &[],
    );
}

#[test]
fn authorization_headers_are_masked_in_commands_and_json() {
    assert_masks(
        "http GET api.example/v1 \"Authorization: Bearer tok.plain-123\"",
        &["tok.plain-123"],
        &["authorization-header"],
    );
    assert_masks(
        r#"{"headers": {"Authorization": "Basic dXNlcjpwYXNz"}}"#,
        &["dXNlcjpwYXNz"],
        &["authorization-header"],
    );
}

#[test]
fn a_curl_commands_second_header_is_masked_too() {
    let curl = "curl -H 'Content-Type: application/json' -H 'X-Api-Key: plainkey123' \
                -H 'Authorization: Token abcdef99' https://api.example";
    // gitleaks' curl rule finds the first secret header of a curl command;
    // the one after it is ours.
    assert_masks(
        curl,
        &["plainkey123", "abcdef99"],
        &["curl-auth-header", "authorization-header"],
    );
    assert_masks(
        "curl --header \"Cookie: session=s3ss10n-value\" https://x.example",
        &["s3ss10n-value"],
        &["secret-header"],
    );
}

#[test]
fn env_values_of_secret_named_keys_are_masked_whatever_their_entropy() {
    let env = "DEBUG=true\nDATABASE_PASSWORD=hunter2hunter2\nSTRIPE_SECRET=password\n\
               export GITHUB_TOKEN=aaaaaaaa\nSERVICE_KEY='your-api-key-here'\nPATH=/usr/bin\n\
               db.password=letmein\n";
    assert_masks(
        env,
        &[
            "hunter2hunter2",
            "=password",
            "aaaaaaaa",
            "your-api-key-here",
            "letmein",
        ],
        &["dotenv-secret"; 5],
    );
    let (out, _) = mask(env);
    assert!(
        out.starts_with("DEBUG=true\nDATABASE_PASSWORD=[masked: dotenv-secret]\n"),
        "{out}"
    );
    assert!(out.contains("PATH=/usr/bin\n"), "{out}");
}

#[test]
fn passwords_on_a_command_line_are_masked() {
    assert_masks(
        "mysql -h db -u root -pSummer2024 app < dump.sql",
        &["Summer2024"],
        &["mysql-password"],
    );
    assert_masks(
        "mysqldump --user=root --password=plainpass app",
        &["plainpass"],
        &["command-line-password"],
    );
    assert_masks("mysql -u root -p app", &[], &[]);
}

#[test]
fn base64_of_a_secret_is_masked_a_wrapped_env_too() {
    let env = "DATABASE_PASSWORD=hunter2hunter2\nGITHUB_TOKEN=aaaaaaaa\nDEBUG=true\n";
    let encoded = crate::screen::export::base64(env.as_bytes());
    let wrapped: Vec<&str> = encoded
        .as_bytes()
        .chunks(24)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let text = format!("$ base64 .env\n{}\n$ ls", wrapped.join("\n"));
    let (out, masked) = mask(&text);
    assert_eq!(
        out, "$ base64 .env\n[masked: base64-encoded]\n$ ls",
        "{masked:?}"
    );
    assert_eq!(masked.by_rule.get("base64-encoded"), Some(&1));
    let basic = crate::screen::export::base64(b"https://deploy:hunter2@git.example");
    assert_masks(
        &format!("the remote is {basic} (base64)"),
        &[&basic],
        &["base64-encoded"],
    );
    let harmless = crate::screen::export::base64(b"just a sentence with nothing in it");
    assert_masks(&format!("echo {harmless}"), &[], &[]);
}

#[test]
fn what_is_masked_stays_masked_once() {
    let text = "DB_PASSWORD=hunter2 and Authorization: Bearer abcdef123 postgres://u:pw123456@h/db";
    let (once, first) = mask(text);
    assert_eq!(first.total, 3, "{once}");
    let (twice, second) = mask(&once);
    assert_eq!(twice, once);
    assert_eq!(second.total, 0, "{twice}");
}
