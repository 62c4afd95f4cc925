//! How long code may be (docs/ARCHITECTURE.md, "How the shape is checked"): no source file of
//! the workspace (Rust or JavaScript, tests and benches included) is over 700 lines, and no
//! Rust function of a crate's own code (tests left out) is over 80 lines, from its `fn` to its
//! closing brace: a longer one is split by what each part does.

use super::layers::{read_tree, Tree, TREES};
use super::walk::{self, workspace};
use std::collections::BTreeSet;
use std::fs;
use syn::visit::Visit;

/// The longest a source file may be.
const MAX_FILE_LINES: usize = 700;

/// The longest a function may be.
const MAX_FN_LINES: usize = 80;

/// Folders of the workspace that hold no source of ours: builds, installed
/// packages, recorded inputs and vendored files.
const NOT_SOURCE: [&str; 7] = [
    "target",
    "node_modules",
    "dist",
    "fixtures",
    "vendor",
    "workspace",
    "test-results",
];

/// Every Rust and JavaScript file of the workspace (crates, tests, benches,
/// e2e, captures, scripts), as shown relative to it.
fn source_files() -> Vec<(String, std::path::PathBuf)> {
    let folder = |name: &str| !name.starts_with('.') && !NOT_SOURCE.contains(&name);
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
            || (a.path().is_ident("cfg")
                && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
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

#[test]
fn no_function_of_the_crates_is_over_80_lines() {
    let found: Vec<String> = TREES.iter().flat_map(|root| long_functions(&read_tree(root))).collect();
    assert!(found.is_empty(), "functions over {MAX_FN_LINES} lines: {found:#?}");
}

/// The checker itself, on made-up files: it finds what it looks for.
mod checker {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> Tree {
        files
            .iter()
            .map(|(module, text)| {
                let module: Vec<String> = module
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                (module.clone(), (module.join("/"), text.to_string()))
            })
            .collect()
    }

    /// A function of `body_lines` lines of statements: its `fn` line, the body, the brace.
    fn function(name: &str, body_lines: usize) -> String {
        format!("fn {name}() {{\n{}}}\n", "    let _ = 1;\n".repeat(body_lines))
    }

    #[test]
    fn finds_a_function_over_the_limit_but_not_one_at_it() {
        let text = format!("{}{}", function("at_limit", 78), function("over", 79));
        let tree = tree(&[("", &text)]);
        assert_eq!(long_functions(&tree), vec![": over (81 lines)".to_string()]);
    }

    #[test]
    fn methods_and_trait_defaults_count_and_tests_do_not() {
        let long = function("m", 90);
        let files = [
            ("", "#[cfg(test)] mod tests; mod a;".to_string()),
            ("a", format!("struct S; impl S {{ {long} }} trait T {{ {long} }}")),
            ("tests", long.clone()),
            ("a::more", format!("#[cfg(test)] mod inline {{ {long} }} #[test] {long}")),
        ];
        let files: Vec<(&str, &str)> = files.iter().map(|(m, t)| (*m, t.as_str())).collect();
        let found = long_functions(&tree(&files));
        assert_eq!(found, vec!["a: m (92 lines)".to_string(), "a: m (92 lines)".to_string()]);
    }
}
