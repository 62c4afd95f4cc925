//! How long code may be (docs/ARCHITECTURE.md, "How the shape is checked"): no source file of
//! the workspace (Rust or JavaScript, tests and benches included) is over 700 lines, and no
//! Rust function of a crate's own code (tests left out) is over 80 lines, from its `fn` to its
//! closing brace: a longer one is split by what each part does. The functions that were
//! longer when the rule came are listed at their length (`NOT_YET_SPLIT`) until split.

use super::layers::{read_tree, Tree, TREES};
use super::walk::{self, workspace};
use std::collections::BTreeSet;
use std::fs;
use syn::visit::Visit;

/// The longest a source file may be.
const MAX_FILE_LINES: usize = 700;

/// The longest a function may be.
const MAX_FN_LINES: usize = 80;

/// Every Rust and JavaScript file of the workspace (crates, tests, benches,
/// e2e, captures, scripts), as shown relative to it.
fn source_files() -> Vec<(String, std::path::PathBuf)> {
    let folder = |name: &str| !name.starts_with('.') && !walk::NOT_OURS.contains(&name);
    let file = |name: &str| [".rs", ".mjs", ".js"].iter().any(|ext| name.ends_with(ext));
    walk::files(&workspace(), &folder, &file)
}

#[test]
fn no_source_file_is_over_700_lines() {
    let files = source_files();
    assert!(
        files.iter().any(|(shown, _)| shown == "e2e/bench.mjs"),
        "the walk reaches e2e"
    );
    let long: Vec<&String> = files
        .iter()
        .filter(|(_, path)| {
            fs::read_to_string(path).is_ok_and(|text| text.lines().count() > MAX_FILE_LINES)
        })
        .map(|(shown, _)| shown)
        .collect();
    assert!(long.is_empty(), "over {MAX_FILE_LINES} lines: {long:#?}");
}

/// The modules of `tree` that are tests: declared `#[cfg(test)] mod name;` by their parent,
/// and every module inside one.
fn test_modules(tree: &Tree) -> BTreeSet<Vec<String>> {
    let mut tests = BTreeSet::new();
    for (module, (shown, text)) in tree {
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{shown}: {e}"));
        for item in &file.items {
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() && is_test(&m.attrs) {
                    let mut child = module.clone();
                    child.push(m.ident.to_string());
                    tests.insert(child);
                }
            }
        }
    }
    let declared = tests.clone();
    tree.keys()
        .filter(|m| declared.iter().any(|t| m.starts_with(t)))
        .cloned()
        .collect()
}

/// `#[cfg(test)]` or `#[test]` among `attrs`.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

/// The functions of a file over the limit: "name (N lines)", tests left out.
#[derive(Default)]
struct LongFunctions {
    found: Vec<String>,
}

impl LongFunctions {
    /// Measures a function from its `fn` to its body's closing brace.
    fn measure(&mut self, sig: &syn::Signature, body: &syn::Block) {
        let (from, to) = (sig.fn_token.span, body.brace_token.span.close());
        let (name, lines) = (&sig.ident, to.end().line + 1 - from.start().line);
        if lines > MAX_FN_LINES {
            self.found.push(format!("{name} ({lines} lines)"));
        }
    }
}

impl<'ast> Visit<'ast> for LongFunctions {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !is_test(&item.attrs) {
            self.measure(&item.sig, &item.block);
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.measure(&item.sig, &item.block);
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.measure(&item.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}

/// "file: name (N lines)" for every function over the limit in `tree`, tests left out.
fn long_functions(tree: &Tree) -> Vec<String> {
    let tests = test_modules(tree);
    let mut found = Vec::new();
    for (module, (shown, text)) in tree {
        if tests.contains(module) {
            continue;
        }
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{shown}: {e}"));
        let mut long = LongFunctions::default();
        long.visit_file(&file);
        found.extend(long.found.into_iter().map(|f| format!("{shown}: {f}")));
    }
    found
}

/// The functions over the limit when the rule came (2026-12-08), at the length each had:
/// none may grow, one that is split leaves the list, and no other may pass the limit.
const NOT_YET_SPLIT: [(&str, usize); 19] = [
    ("core/src/read/import/acp/tool.rs: apply", 124),
    ("core/src/read/import/agent_log/link.rs: drain", 82),
    ("core/src/read/import/agent_log/link.rs: relink", 82),
    ("core/src/read/import/gadget.rs: tool_call", 119),
    ("core/src/screen/view/message.rs: of", 94),
    ("core/src/screen/view/timeline.rs: timeline_view", 269),
    ("core/src/state/layout/build.rs: from_store", 87),
    ("core/src/state/store/mod.rs: apply", 135),
    ("core/src/state/timeline/mod.rs: refresh", 120),
    ("src/components/message.rs: MessageBody", 100),
    ("src/components/roster.rs: Roster", 165),
    ("src/components/timeline.rs: Chart", 188),
    ("src/live/timeline.rs: LiveTimeline", 87),
    ("src/live/transcript.rs: LiveTranscript", 163),
    ("src/pages/view.rs: FileViewPage", 347),
    ("server/src/lib.rs: serve", 102),
    ("server/src/cli/mod.rs: into_config", 103),
    ("server/src/sources/scenarios/demo/cycle.rs: subagent", 97),
    ("server/src/sources/scenarios/demo/cycle.rs: cycle", 88),
];

/// What `found` ("file: name (N lines)") breaks of the limit given `listed`: functions over
/// it that are not listed or grew past their listed length, and listed ones now within it.
fn broken(found: &[String], listed: &[(&str, usize)]) -> Vec<String> {
    let mut broken = Vec::new();
    let mut seen = BTreeSet::new();
    for f in found {
        let (name, lines) = f.rsplit_once(" (").expect("name (N lines)");
        let lines: usize = lines.trim_end_matches(" lines)").parse().expect("a count");
        seen.insert(name);
        match listed.iter().find(|(n, _)| *n == name) {
            Some((_, allowed)) if lines <= *allowed => {}
            Some((_, allowed)) => broken.push(format!("{f}: grew past {allowed}")),
            None => broken.push(format!("{f}: over {MAX_FN_LINES}")),
        }
    }
    for (name, _) in listed.iter().filter(|(n, _)| !seen.contains(n)) {
        broken.push(format!(
            "{name}: within the limit now, so out of NOT_YET_SPLIT"
        ));
    }
    broken
}

#[test]
fn no_function_of_the_crates_is_over_80_lines() {
    let found: Vec<String> = TREES
        .iter()
        .flat_map(|root| long_functions(&read_tree(root)))
        .collect();
    let broken = broken(&found, &NOT_YET_SPLIT);
    assert!(
        broken.is_empty(),
        "functions over {MAX_FN_LINES} lines: {broken:#?}"
    );
}

/// The checker itself, on made-up files: it finds what it looks for.
mod checker {
    use super::super::layers::made_up_tree as tree;
    use super::*;

    /// A function of `body_lines` lines of statements: its `fn` line, the body, the brace.
    fn function(name: &str, body_lines: usize) -> String {
        format!(
            "fn {name}() {{\n{}}}\n",
            "    let _ = 1;\n".repeat(body_lines)
        )
    }

    #[test]
    fn finds_a_function_over_the_limit_but_not_one_at_it() {
        let text = format!("{}{}", function("at_limit", 78), function("over", 79));
        let tree = tree(&[("", &text)]);
        assert_eq!(long_functions(&tree), vec![": over (81 lines)".to_string()]);
    }

    #[test]
    fn a_listed_function_may_not_grow_and_leaves_the_list_once_split() {
        let found = ["a: f (90 lines)".to_string(), "a: g (85 lines)".to_string()];
        assert!(broken(&found, &[("a: f", 90), ("a: g", 85)]).is_empty());
        assert_eq!(
            broken(&found, &[("a: f", 89), ("a: g", 85)]),
            ["a: f (90 lines): grew past 89"]
        );
        assert_eq!(
            broken(&found, &[("a: f", 90)]),
            ["a: g (85 lines): over 80"]
        );
        assert_eq!(
            broken(&found[..1], &[("a: f", 90), ("a: g", 85)]),
            ["a: g: within the limit now, so out of NOT_YET_SPLIT"]
        );
    }

    #[test]
    fn methods_and_trait_defaults_count_and_tests_do_not() {
        let long = function("m", 90);
        let files = [
            ("", "#[cfg(test)] mod tests; mod a;".to_string()),
            (
                "a",
                format!("struct S; impl S {{ {long} }} trait T {{ {long} }}"),
            ),
            ("tests", long.clone()),
            (
                "a::more",
                format!("#[cfg(test)] mod inline {{ {long} }} #[test] {long}"),
            ),
        ];
        let files: Vec<(&str, &str)> = files.iter().map(|(m, t)| (*m, t.as_str())).collect();
        let found = long_functions(&tree(&files));
        assert_eq!(
            found,
            vec!["a: m (92 lines)".to_string(), "a: m (92 lines)".to_string()]
        );
    }
}
