//! docs/behaviour.md §9 "Export": exports mask secrets by gitleaks' rules. The secrets
//! here are fake, shaped like the real ones.

use super::*;
use taskview_testkit::fixtures::fixtures_under;

const AWS_KEY_ID: &str = "AKIAZ3MBQX7T4PLW2NRE";
const GITHUB_PAT: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
const SLACK_BOT: &str = "xoxb-2837461920-3948572610-Qw8ErT5yUi2OpAs9DfGh3JkL";
const OPENAI_KEY: &str = "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";
const ANTHROPIC_KEY: &str = "sk-ant-api03-YgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-hBKqFYY-kv5ZJr3J1TWDtkwtDDbAA";
const PRIVATE_KEY: &str = "-----BEGIN PRIVATE KEY-----\n\
    zR9hImrhUziuGjQATTO6DSRqwEyBsbryPjv57vX3nytJNK+H9VILablLDZguhbtV\n\
    tnKocmN6zXRm/LYODo/xhGOw5LK6KXA0dPBkrGj3APWwKz3GZvRb3qosyu3NK1FX\n\
    -----END PRIVATE KEY-----";
const DB_PASSWORD: &str = "x8Kq2LmZ9vR4tW7p";

fn mask(text: &str) -> (String, Masked) {
    let mut masked = Masked::default();
    let out = Masker::new().mask_plain(text, &mut masked);
    (out, masked)
}

fn mask_json(text: &str) -> (String, Masked) {
    let mut masked = Masked::default();
    let out = Masker::new().mask_json(text, &mut masked);
    (out, masked)
}

/// Masks `secret` in a line and checks the rule that named it.
fn assert_masked_by(line: &str, secret: &str, rule: &str) {
    let (out, masked) = mask(line);
    assert!(!out.contains(secret), "{rule}: {out}");
    assert!(out.contains(&replacement(rule)), "{rule}: {out}");
    assert_eq!(masked.total, 1, "{rule}: {masked:?}");
    assert_eq!(masked.by_rule.get(rule), Some(&1), "{masked:?}");
}

#[test]
fn export_masks_key_and_token_shapes_by_rule() {
    assert_masked_by(
        &format!("export AWS_ACCESS_KEY_ID={AWS_KEY_ID}\n"),
        AWS_KEY_ID,
        "aws-access-token",
    );
    assert_masked_by(
        &format!("git remote set-url origin https://{GITHUB_PAT}@github.com/a/b"),
        GITHUB_PAT,
        "github-pat",
    );
    assert_masked_by(
        &format!("client = WebClient(token=\"{SLACK_BOT}\")"),
        SLACK_BOT,
        "slack-bot-token",
    );
    assert_masked_by(
        &format!("client = OpenAI(api_key=\"{OPENAI_KEY}\")"),
        OPENAI_KEY,
        "openai-api-key",
    );
    assert_masked_by(
        &format!("ANTHROPIC_API_KEY={ANTHROPIC_KEY}\n"),
        ANTHROPIC_KEY,
        "anthropic-api-key",
    );
}

#[test]
fn export_masks_private_key_blocks() {
    let text = format!("Here is the key:\n{PRIVATE_KEY}\nkeep it safe");
    let (out, masked) = mask(&text);
    assert_eq!(
        out, "Here is the key:\n[masked: private-key]\nkeep it safe",
        "{masked:?}"
    );
    assert_eq!(masked.by_rule.get("private-key"), Some(&1));
}

#[test]
fn export_masks_credentials_in_env_lines() {
    let env = format!("DATABASE_HOST=db.internal\nDATABASE_PASSWORD={DB_PASSWORD}\nDEBUG=true\n");
    let (out, masked) = mask(&env);
    assert_eq!(
        out,
        "DATABASE_HOST=db.internal\nDATABASE_PASSWORD=[masked: generic-api-key]\nDEBUG=true\n"
    );
    assert_eq!(masked.total, 1);
    // gitleaks' generic rule keeps values too plain to be secrets (entropy of
    // at most 3.5 bits, or no digit): a weak password stays, as in gitleaks.
    for plain in [
        "DATABASE_PASSWORD=hunter2hunter2",
        "API_KEY=your-api-key-here",
        "let token = get_token(config.auth_url);",
    ] {
        assert_eq!(
            mask(plain),
            (plain.to_string(), Masked::default()),
            "{plain}"
        );
    }
}

#[test]
fn export_masks_secrets_inside_json_strings_and_keeps_the_json_valid() {
    let record = serde_json::json!({
        "type": "tool_result",
        "content": format!("$ cat .env\nOPENAI_API_KEY={OPENAI_KEY}\n{PRIVATE_KEY}\n"),
        "input": {"command": format!("gh auth login --with-token <<< {GITHUB_PAT}")},
        "meta": ["ok", AWS_KEY_ID],
    });
    let line = record.to_string();
    let text = format!("{line}\n{line}\n");
    let (out, masked) = mask_json(&text);
    for secret in [OPENAI_KEY, GITHUB_PAT, AWS_KEY_ID, "zR9hImrh"] {
        assert!(!out.contains(secret), "{secret} in {out}");
    }
    assert_eq!(masked.total, 8, "{masked:?}");
    for line in out.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(value["meta"][1], "[masked: aws-access-token]");
        assert_eq!(value["type"], "tool_result");
        assert!(value["content"]
            .as_str()
            .unwrap()
            .ends_with("[masked: private-key]\n"));
    }
}

#[test]
fn export_masking_is_idempotent_and_counts_each_secret_once() {
    let text = serde_json::json!({
        "a": format!("{GITHUB_PAT} {GITHUB_PAT}"),
        "b": format!("AWS_SECRET_ACCESS_KEY={AWS_KEY_ID}"),
    })
    .to_string();
    let (once, first) = mask_json(&text);
    // Two rules find the AWS key (its own and the generic one): one secret.
    assert_eq!(first.total, 3, "{first:?}");
    assert_eq!(first.by_rule.get("github-pat"), Some(&2));
    assert_eq!(first.by_rule.get("aws-access-token"), Some(&1));
    let (twice, second) = mask_json(&once);
    assert_eq!(twice, once);
    assert_eq!(second, Masked::default());
}

#[test]
fn export_masking_leaves_ordinary_text_and_broken_json_alone() {
    for text in [
        "",
        "\"unterminated \\",
        "{\"a\": \"\\ud800\"}",
        "plain prose about keys, tokens and passwords, with no secret in it",
        "fn key(&self) -> &str { &self.secret_name }",
        "ghp_short",
    ] {
        let (out, masked) = mask_json(text);
        assert_eq!((out.as_str(), masked.total), (text, 0), "{text}");
    }
}

#[test]
fn export_masking_finds_next_to_nothing_in_the_real_captures() {
    // The captures of real CLI sessions (code, prose, tool output) hold no
    // secret; what the rules still take for one is listed here, checked.
    let masker = Masker::new();
    let mut masked = Masked::default();
    let mut files = 0;
    for (path, text) in fixtures_under("captures/") {
        let before = masked.total;
        let out = masker.mask_json(text, &mut masked);
        if masked.total > before {
            let found: Vec<&str> = out
                .match_indices("[masked: ")
                .map(|(at, _)| &out[at..at + 40.min(out.len() - at)])
                .collect();
            eprintln!("{path}: {found:?}");
        }
        files += 1;
    }
    assert!(files > 100, "{files} capture files");
    assert_eq!(masked.total, 0, "{masked:?}");
}

#[test]
fn export_summary_names_the_count_and_the_rules() {
    let mut masked = Masked::default();
    assert_eq!(masked.summary(), "masked no secrets (none found)");
    masked.add("private-key");
    assert_eq!(masked.summary(), "masked 1 secret (1 private-key)");
    masked.add("generic-api-key");
    masked.add("generic-api-key");
    assert_eq!(
        masked.summary(),
        "masked 3 secrets (2 generic-api-key, 1 private-key)"
    );
    let mut sum = Masked::default();
    sum.merge(&masked);
    sum.merge(&masked);
    assert_eq!(sum.total, 6);
    assert_eq!(sum.by_rule.get("generic-api-key"), Some(&4));
}

#[test]
fn the_gitleaks_rules_compile_except_those_counted_here() {
    let failed = not_compiled();
    // RE2 syntax Rust's regex lacks would show here; such rules are skipped.
    assert_eq!(failed, Vec::<(&str, String)>::new());
    assert!(rules::count() > 200, "{} rules", rules::count());
}

#[test]
fn re2_braces_that_repeat_nothing_are_literal() {
    assert_eq!(rules::rust_syntax(r"a{2}b{1,}c{1,3}"), r"a{2}b{1,}c{1,3}");
    assert_eq!(
        rules::rust_syntax(r"^\$(?:\d+|{\d+})$"),
        r"^\$(?:\d+|\{\d+})$"
    );
    assert_eq!(
        rules::rust_syntax(r"import[ {]+{x}\{"),
        r"import[ {]+\{x}\{"
    );
    assert_eq!(rules::rust_syntax(r"[[:alnum:]{]{3}"), r"[[:alnum:]{]{3}");
}

#[test]
fn entropy_is_shannons_in_bits_per_byte() {
    assert_eq!(rules::entropy(b""), 0.0);
    assert_eq!(rules::entropy(b"aaaa"), 0.0);
    assert_eq!(rules::entropy(b"abab"), 1.0);
    assert_eq!(rules::entropy(b"abcd"), 2.0);
}
