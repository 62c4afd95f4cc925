//! The layers of the code (docs/ARCHITECTURE.md, "How the shape is checked"),
//! read from the source trees of core, the app and the server: no files import
//! each other in a cycle, and no layer of core or
//! of the server imports a later one (core: model ← read ← state ← screen;
//! the server: clock, shutdown ← backend ← access, app files, sources ← http,
//! commands ← the command line).
//!
//! Imports are read with `syn`: `use` trees, paths in code and `crate::`,
//! `super::` and `self::` paths inside macro calls, resolved to the file that
//! holds the module they name. A module and its own submodules are one room
//! (a child uses its parent's items, the parent declares the child), so the
//! edges between them are not counted as cycles.

use super::walk::workspace;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syn::visit::Visit;

/// A crate's layers, in order: each a set of top-level modules that import
/// only their own layer and the ones before it.
type Layers = &'static [&'static [&'static str]];

/// core's layers.
const CORE_LAYERS: Layers = &[&["model"], &["read"], &["state"], &["screen"]];

/// The server's layers: the clock and the shutdown signal; the backend
/// state; who may read, the app's files and the sources that feed the
/// backend; the routes and the one-shot commands; the command line.
const SERVER_LAYERS: Layers = &[
    &["clock", "shutdown"],
    &["backend"],
    &["access", "app_files", "sources"],
    &["http", "commands"],
    &["cli"],
];

/// The crates whose layers are checked: source tree and layers.
const LAYERED: [(&str, Layers); 2] = [("core/src", CORE_LAYERS), ("server/src", SERVER_LAYERS)];

/// The source trees checked, relative to the workspace, each a crate's `src/`.
pub const TREES: [&str; 4] = ["core/src", "src", "server/src", "testkit/src"];

/// One crate's source: module path → (file as shown, its text). `main.rs`
/// (a binary's root, declaring no modules) is left out.
pub type Tree = BTreeMap<Vec<String>, (String, String)>;

pub fn read_tree(root: &str) -> Tree {
    fn walk(dir: &Path, module: &[String], shown: &str, tree: &mut Tree) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let shown = format!("{shown}/{name}");
            if path.is_dir() {
                let mut child = module.to_vec();
                child.push(name);
                walk(&path, &child, &shown, tree);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let mut module = module.to_vec();
                match stem {
                    "main" if module.is_empty() => continue,
                    "lib" if module.is_empty() => {}
                    "mod" => {}
                    _ => module.push(stem.to_string()),
                }
                let text = std::fs::read_to_string(&path).unwrap();
                tree.insert(module, (shown, text));
            }
        }
    }
    let mut tree = Tree::new();
    walk(&workspace().join(root), &[], root, &mut tree);
    assert!(!tree.is_empty(), "{root} holds no Rust files");
    tree
}

/// Every file's imports of other files of its crate: file → files it names.
fn imports(tree: &Tree) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges = BTreeMap::new();
    for (module, (shown, text)) in tree {
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{shown}: {e}"));
        let mut reader = Paths {
            module: module.clone(),
            paths: Vec::new(),
        };
        reader.visit_file(&file);
        let named: BTreeSet<String> = reader
            .paths
            .iter()
            .filter_map(|path| resolve(tree, path))
            .filter(|target| !is_within(module, target) && !is_within(target, module))
            .map(|target| tree[&target].0.clone())
            .collect();
        edges.insert(shown.clone(), named);
    }
    edges
}

/// Whether `inner` is `outer` or one of its submodules.
fn is_within(outer: &[String], inner: &[String]) -> bool {
    inner.starts_with(outer)
}

/// Every path a file names, made absolute within its crate where it starts
/// with `crate`, `super` or `self` or names a child module of where it
/// stands; other paths (std, other crates, local items) are left out.
struct Paths {
    /// The module the reader stands in (a file's, then its inline modules').
    module: Vec<String>,
    paths: Vec<Vec<String>>,
}

impl Paths {
    fn add(&mut self, segments: Vec<String>) {
        let Some(first) = segments.first() else {
            return;
        };
        let mut absolute = match first.as_str() {
            "crate" => Vec::new(),
            "self" | "super" => self.module.clone(),
            _ => {
                let mut relative = self.module.clone();
                relative.extend(segments);
                self.paths.push(relative);
                return;
            }
        };
        let mut rest = segments.into_iter().peekable();
        if rest.peek().is_some_and(|s| s == "crate" || s == "self") {
            rest.next();
        }
        while rest.peek().is_some_and(|s| s == "super") {
            rest.next();
            absolute.pop();
        }
        absolute.extend(rest);
        self.paths.push(absolute);
    }

    fn use_tree(&mut self, prefix: &[String], tree: &syn::UseTree) {
        let joined = |name: &syn::Ident| {
            let mut path = prefix.to_vec();
            if name != "self" {
                path.push(name.to_string());
            }
            path
        };
        match tree {
            syn::UseTree::Path(path) => self.use_tree(&joined(&path.ident), &path.tree),
            syn::UseTree::Name(name) => self.add(joined(&name.ident)),
            syn::UseTree::Rename(rename) => self.add(joined(&rename.ident)),
            syn::UseTree::Glob(_) => self.add(prefix.to_vec()),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// `crate::a::b`, `super::a` and `self::a` inside a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Ident(ident)
                    if ["crate", "super", "self"].contains(&&*ident.to_string()) =>
                {
                    let mut segments = vec![ident.to_string()];
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segments.push(next.to_string());
                        i += 3;
                    }
                    if segments.len() > 1 {
                        self.add(segments);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&[], &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            self.add(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// The module of `tree` whose file holds what `path` names: its longest
/// prefix that is a module with a file.
fn resolve(tree: &Tree, path: &[String]) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|len| path[..len].to_vec())
        .find(|prefix| tree.contains_key(prefix))
}

/// Files that import each other, directly or around a longer loop: each
/// strongly connected set of more than one file, its files sorted.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reaches = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut next = vec![from.clone()];
        while let Some(file) = next.pop() {
            for target in edges.get(&file).into_iter().flatten() {
                if seen.insert(target.clone()) {
                    next.push(target.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|file| (file, reaches(file))).collect();
    let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
    for (file, reached) in &reach {
        let loop_: Vec<String> = reached
            .iter()
            .filter(|other| reach.get(other).is_some_and(|back| back.contains(*file)))
            .cloned()
            .collect();
        if loop_.len() > 1 {
            found.insert(loop_);
        }
    }
    found.into_iter().collect()
}

/// The layer a top-level module belongs to.
fn layer_of(layers: Layers, top: &str) -> Option<usize> {
    layers.iter().position(|layer| layer.contains(&top))
}

/// Imports from a layer to a later one: "file → file".
fn upward_imports(
    tree: &Tree,
    edges: &BTreeMap<String, BTreeSet<String>>,
    layers: Layers,
) -> Vec<String> {
    let layer_of = |shown: &String| {
        let module = tree.iter().find(|(_, (s, _))| s == shown).unwrap().0;
        module.first().and_then(|top| layer_of(layers, top))
    };
    let mut found = Vec::new();
    for (file, targets) in edges {
        for target in targets {
            if let (Some(from), Some(to)) = (layer_of(file), layer_of(target)) {
                if to > from {
                    found.push(format!("{file} → {target}"));
                }
            }
        }
    }
    found
}

#[test]
fn no_files_import_each_other() {
    let mut found = Vec::new();
    for root in TREES {
        found.extend(
            cycles(&imports(&read_tree(root)))
                .into_iter()
                .map(|c| c.join(" ↔ ")),
        );
    }
    assert!(found.is_empty(), "import cycles: {found:#?}");
}

#[test]
fn no_layer_of_core_or_the_server_imports_a_later_one() {
    for (root, layers) in LAYERED {
        let tree = read_tree(root);
        let upward = upward_imports(&tree, &imports(&tree), layers);
        assert!(
            upward.is_empty(),
            "{root}: imports from a layer to a later one: {upward:#?}"
        );
    }
}

#[test]
fn every_file_of_core_and_the_server_is_in_a_layer() {
    for (root, layers) in LAYERED {
        let stray: Vec<String> = read_tree(root)
            .iter()
            .filter(|(module, _)| !module.is_empty() && layer_of(layers, &module[0]).is_none())
            .map(|(_, (shown, _))| shown.clone())
            .collect();
        assert!(
            stray.is_empty(),
            "{root}: outside the layers {layers:?}: {stray:#?}"
        );
    }
}

/// A made-up tree for the checkers' own tests: each file's module path
/// (`a::b`) and its text.
pub fn made_up_tree(files: &[(&str, &str)]) -> Tree {
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

/// The checker itself, on a made-up crate: it finds what it looks for.
mod checker {
    use super::made_up_tree as tree;
    use super::*;

    #[test]
    fn finds_two_files_that_import_each_other_in_every_form_of_path() {
        let forms = [
            (
                "use crate::screen::b::B;",
                "fn f() { crate::screen::a::f() }",
            ),
            ("use super::b::{self, B};", "type T = super::a::A;"),
            (
                "use super::b::*;",
                "fn f() { assert!(crate::screen::a::yes()); }",
            ),
        ];
        for (a, b) in forms {
            let tree = tree(&[
                ("", ""),
                ("screen", "mod a; mod b;"),
                ("screen::a", a),
                ("screen::b", b),
            ]);
            assert_eq!(
                cycles(&imports(&tree)),
                vec![vec!["screen/a".to_string(), "screen/b".to_string()]],
                "{a} / {b}"
            );
        }
    }

    #[test]
    fn a_module_and_its_own_submodules_are_no_cycle_nor_an_inline_test_module() {
        let tree = tree(&[
            ("", ""),
            ("read", "mod a; pub use a::A; fn f() {}"),
            (
                "read::a",
                "use super::f; pub struct A; #[cfg(test)] mod tests { use super::A; }",
            ),
        ]);
        assert!(cycles(&imports(&tree)).is_empty());
    }

    #[test]
    fn finds_an_import_from_an_earlier_layer_to_a_later_one() {
        let tree = tree(&[
            ("", ""),
            ("model", ""),
            ("model::a", "use crate::screen::b::B;"),
            ("screen", ""),
            ("screen::b", "use crate::model::a::A;"),
        ]);
        assert_eq!(
            upward_imports(&tree, &imports(&tree), CORE_LAYERS),
            vec!["model/a → screen/b".to_string()]
        );
    }

    #[test]
    fn modules_of_one_layer_may_import_each_other_but_not_a_later_layer() {
        let tree = tree(&[
            ("", ""),
            ("sources", "use crate::access::Guard;"),
            ("access", ""),
            ("backend", "use crate::sources::Source;"),
        ]);
        assert_eq!(
            upward_imports(&tree, &imports(&tree), SERVER_LAYERS),
            vec!["backend → sources".to_string()]
        );
    }
}
