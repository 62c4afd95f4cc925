//! Turns the vendored gitleaks rule set (`vendor/gitleaks/gitleaks.toml`)
//! into static Rust data (`$OUT_DIR/gitleaks_rules.rs`, read by
//! `src/screen/secrets/rules.rs`): no TOML parser in the app.

use serde::Deserialize;
use std::fmt::Write;

const RULES: &str = "vendor/gitleaks/gitleaks.toml";

#[derive(Deserialize)]
struct Config {
    allowlist: Allowlist,
    rules: Vec<Rule>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    regex: Option<String>,
    path: Option<String>,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allowlists: Vec<Allowlist>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Allowlist {
    condition: Option<String>,
    regex_target: Option<String>,
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
}

fn allowlist(out: &mut String, list: &Allowlist) {
    let target = match list.regex_target.as_deref() {
        None | Some("secret") => "Secret",
        Some("match") => "Match",
        Some("line") => "Line",
        Some(other) => panic!("{RULES}: unknown regexTarget {other}"),
    };
    let all = match list.condition.as_deref() {
        None | Some("OR") => false,
        Some("AND") => true,
        Some(other) => panic!("{RULES}: unknown condition {other}"),
    };
    writeln!(
        out,
        "Allowlist {{ target: Target::{target}, all: {all}, regexes: &{:?}, stopwords: &{:?}, \
         by_place: {} }},",
        list.regexes,
        list.stopwords,
        !list.paths.is_empty() || !list.commits.is_empty(),
    )
    .unwrap();
}

fn main() {
    println!("cargo::rerun-if-changed={RULES}");
    let text = std::fs::read_to_string(RULES).expect("the vendored gitleaks rules");
    let config: Config = toml::from_str(&text).expect("gitleaks.toml parses");
    let mut out = String::from("/// The global allowlist.\npub(super) static GLOBAL: Allowlist = ");
    allowlist(&mut out, &config.allowlist);
    out.pop();
    out.pop();
    out.push_str(";\n/// Every rule that looks at text (not at file paths).\npub(super) static RULES: &[Rule] = &[\n");
    for rule in &config.rules {
        let Some(regex) = &rule.regex else { continue };
        if rule.path.is_some() {
            continue;
        }
        writeln!(
            out,
            "Rule {{ id: {:?}, regex: {:?}, secret_group: {}, entropy: {:?}, keywords: &{:?}, allowlists: &[",
            rule.id,
            regex,
            rule.secret_group.unwrap_or(0),
            rule.entropy.unwrap_or(0.0),
            rule.keywords,
        )
        .unwrap();
        for list in &rule.allowlists {
            allowlist(&mut out, list);
        }
        out.push_str("] },\n");
    }
    out.push_str("];\n");
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("gitleaks_rules.rs");
    std::fs::write(path, out).unwrap();
}
