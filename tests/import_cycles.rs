//! No two source files of the workspace import each other, directly or through others: for
//! every crate (`src/` here and each member's), the files' `use` of their siblings and
//! cousins (`crate::a::b`, `super::x`, `self::y`, bare `child::item` in a parent) form no
//! cycle. A module's use of its own ancestors (`use super::Item` for an item of the parent
//! file) and re-exports (`pub use`) are its interface, not an edge. Tests (`#[cfg(test)] mod`)
//! and comments are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate (`["adapt", "forest"]`; empty for the crate root).
type ModPath = Vec<String>;

#[test]
fn no_source_file_imports_itself_through_others() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crates = vec![root.join("src")];
    for entry in std::fs::read_dir(root).expect("the workspace folder") {
        let src = entry.expect("a folder entry").path().join("src");
        if src.join("lib.rs").is_file() || src.join("main.rs").is_file() {
            crates.push(src);
        }
    }
    let mut cycles = Vec::new();
    for src in &crates {
        let graph = import_graph(src);
        assert!(graph.len() > 1, "{}: no modules found", src.display());
        for cycle in strongly_connected(&graph) {
            let names: Vec<String> = cycle.iter().map(display).collect();
            cycles.push(format!("{}: {}", src.display(), names.join(" <-> ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_checker_sees_a_cycle_through_a_grouped_import() {
    let dir = std::env::temp_dir().join(format!("import_cycles_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod c;\nuse crate::{b::B};\n").unwrap();
    std::fs::write(dir.join("a/c.rs"), "// crate::b::X in a comment\n").unwrap();
    std::fs::write(dir.join("b.rs"), "fn f() { super::a::A::new(); }\n").unwrap();
    let graph = import_graph(&dir);
    assert_eq!(
        strongly_connected(&graph),
        vec![vec![vec!["a".to_string()], vec!["b".to_string()]]]
    );
    std::fs::write(dir.join("b.rs"), "pub use crate::a::A;\n").unwrap();
    assert!(strongly_connected(&import_graph(&dir)).is_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

fn display(m: &ModPath) -> String {
    if m.is_empty() {
        "crate root".into()
    } else {
        m.join("::")
    }
}

/// Every module file under `src` and the modules it imports.
fn import_graph(src: &Path) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    let modules: BTreeMap<ModPath, PathBuf> =
        files.into_iter().map(|f| (module_of(src, &f), f)).collect();
    modules
        .iter()
        .map(|(m, file)| {
            let text = code_of(&std::fs::read_to_string(file).expect("a source file"));
            let mut uses = BTreeSet::new();
            for path in paths_in(&text) {
                if let Some(target) = resolve(&modules, m, &path) {
                    // A module's ancestors (itself included) are its interface.
                    if !m.starts_with(&target) {
                        uses.insert(target);
                    }
                }
            }
            (m.clone(), uses)
        })
        .collect()
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs` the crate root (a
/// `bin/` file is a crate of its own: its own root).
fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: ModPath = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] || parts == ["main"] {
        parts.pop();
    }
    parts
}

/// The code of a file without its comments, its `#[cfg(test)]` module and its re-exports.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        code.push_str(line);
        code.push('\n');
    }
    if let Some(i) = code.find("#[cfg(test)]\nmod ") {
        code.truncate(i);
    }
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("pub") {
        let after = &rest[i + 3..];
        let after = match after.strip_prefix('(') {
            Some(vis) => vis.split_once(')').map_or(after, |(_, a)| a),
            None => after,
        };
        let boundary = i == 0 || !is_ident(rest[..i].chars().next_back().unwrap_or(' '));
        if boundary && after.trim_start().starts_with("use ") {
            out.push_str(&rest[..i]);
            rest = after.split_once(';').map_or("", |(_, r)| r);
        } else {
            out.push_str(&rest[..i + 3]);
            rest = &rest[i + 3..];
        }
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path of `code` that starts at a module, expanded through `{…}` groups: the paths
/// `crate::a::b`, `super::x`, `self::y` and bare `name::item` (a child module, when a child
/// of that name exists).
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts =
            is_ident(chars[i]) && (i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':');
        if starts {
            let (paths, end) = path_at(&chars, i);
            out.extend(paths.into_iter().filter(|p| p.len() > 1));
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The path(s) starting at `chars[i]`: `a::b::{c::d, e}` gives `a::b::c::d` and `a::b::e`.
fn path_at(chars: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        prefix.push(chars[start..i].iter().collect::<String>());
        let sep = chars.get(i..i + 2).is_some_and(|s| s == [':', ':']);
        if !sep {
            return (vec![prefix], i);
        }
        i += 2;
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        match chars.get(i) {
            Some('{') => {
                let mut paths = Vec::new();
                i += 1;
                loop {
                    while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                        i += 1;
                    }
                    match chars.get(i) {
                        Some('}') | None => return (paths, i + 1),
                        Some(c) if is_ident(*c) => {
                            let (inner, end) = path_at(chars, i);
                            for p in inner {
                                paths.push(prefix.iter().cloned().chain(p).collect());
                            }
                            i = end;
                        }
                        // `*`, `as` renames and the like: skip a character.
                        Some(_) => i += 1,
                    }
                }
            }
            Some(c) if is_ident(*c) => {}
            _ => return (vec![prefix], i),
        }
    }
}

/// The module `path` (seen in module `here`) names: the longest module prefix of where it
/// leads, or `None` for a path into another crate.
fn resolve(
    modules: &BTreeMap<ModPath, PathBuf>,
    here: &ModPath,
    path: &[String],
) -> Option<ModPath> {
    let (mut base, rest): (ModPath, &[String]) = match path[0].as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (here.clone(), &path[1..]),
        "super" => (here[..here.len().saturating_sub(1)].to_vec(), &path[1..]),
        _ => (here.clone(), path),
    };
    let mut rest = rest;
    while rest.first().is_some_and(|p| p == "super") {
        base.pop();
        rest = &rest[1..];
    }
    let bare = !matches!(path[0].as_str(), "crate" | "self" | "super");
    let full: ModPath = base.iter().cloned().chain(rest.iter().cloned()).collect();
    let min = if bare { here.len() + 1 } else { 0 };
    (min..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| modules.contains_key(m))
}

/// The strongly connected components of more than one module (Tarjan), each sorted.
fn strongly_connected(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'g> {
        graph: &'g BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'g ModPath, usize>,
        low: BTreeMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        on_stack: BTreeSet<&'g ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in &s.graph[v] {
            let w = s.graph.get_key_value(w).expect("a module").0;
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}
