//! Tidy checks on the source tree itself (rust-analyzer's `tidy.rs` is the model): files that
//! fit in a head, no import cycle through the daemon's top-level modules, no static mutable
//! state, no untracked `tokio::spawn`. Each check prints its figure; what the tree already
//! breaks is listed below with its size today, and may only shrink: a listed file that grows
//! fails, one that got under the limit must leave the list.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines of non-test code a source file may hold.
const MAX_LINES: usize = 800;

/// Files over [`MAX_LINES`] today, with their size: they may shrink, not grow.
const OVERSIZE: &[(&str, usize)] = &[];

/// The most lines a function of product code may span, from its `fn` to its closing brace.
const MAX_FN_LINES: usize = 100;

/// Functions allowed past [`MAX_FN_LINES`] because they are tables, one short arm per case, as
/// `file: name`: splitting them would only scatter the table.
const TABLES: &[&str] = &[
    // One arm per request type, each a call.
    "paddockd/src/connection/requests.rs: dispatch",
];

/// The largest import cycle among paddockd's top-level modules may have this many members:
/// 1, no cycle at all.
const MAX_CYCLE: usize = 1;

/// Statics that hold mutable state shared by every daemon in one process (tests run several),
/// as `file: name`; none may be added.
const MUTABLE_STATICS: &[&str] = &[
    // The one thread claude is forked from: a parent-death signal follows the forking
    // thread, so it is one per process by design (runner/forker.rs).
    "paddockd/src/runner/forker.rs: FORKER",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Every `.rs` file under `dir`, relative to the workspace, sorted.
fn rust_files(dir: &str) -> Vec<(String, String)> {
    let root = workspace();
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(&root)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .into_owned();
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                out.push((rel, text));
            }
        }
    }
    out.sort();
    out
}

/// A file compiled only for tests (`tests.rs`, a `tests/` folder, a test-only helper).
fn test_only(path: &str) -> bool {
    path.ends_with("/tests.rs") || path.contains("/tests/") || path.ends_with("/testutil.rs")
}

/// The file's lines before its `#[cfg(test)]` module.
fn code_part(text: &str) -> Vec<&str> {
    text.lines()
        .take_while(|l| !l.starts_with("#[cfg(test)]"))
        .collect()
}

fn product_files() -> Vec<(String, String)> {
    ["paddockd/src", "paddock-tui/src", "paddock-proto/src"]
        .iter()
        .flat_map(|d| rust_files(d))
        .filter(|(p, _)| !test_only(p))
        .collect()
}

#[test]
fn source_files_fit_in_a_head() {
    let sizes: BTreeMap<String, usize> = product_files()
        .into_iter()
        .map(|(p, t)| {
            let n = code_part(&t).len();
            (p, n)
        })
        .collect();
    let longest = sizes.iter().max_by_key(|(_, n)| **n);
    if let Some((p, n)) = longest {
        println!("longest file: {p}, {n} lines of non-test code (limit {MAX_LINES})");
    }
    let over = sizes.values().filter(|n| **n > MAX_LINES).count();
    println!("files over {MAX_LINES} lines: {over}");
    let listed: BTreeMap<&str, usize> = OVERSIZE.iter().copied().collect();
    let mut problems = Vec::new();
    for (path, n) in &sizes {
        match listed.get(path.as_str()) {
            Some(max) if n > max => problems.push(format!(
                "{path} grew to {n} lines (listed at {max}; the limit is {MAX_LINES}): split it rather than grow it"
            )),
            Some(_) if *n <= MAX_LINES => problems.push(format!(
                "{path} is down to {n} lines: take it off OVERSIZE in tests/tests/tidy.rs"
            )),
            None if *n > MAX_LINES => problems.push(format!(
                "{path} has {n} lines of non-test code, over {MAX_LINES}: split it by concern"
            )),
            _ => {}
        }
    }
    for path in listed.keys() {
        if !sizes.contains_key(*path) {
            problems.push(format!(
                "{path} is listed in OVERSIZE but does not exist: take it off"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The functions of a file's non-test code as `(name, lines)`: from a line starting an `fn` to
/// the first closing brace at the same indentation.
fn functions(text: &str) -> Vec<(String, usize)> {
    let lines = code_part(text);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let after_vis = body
            .strip_prefix("pub(crate) ")
            .or_else(|| body.strip_prefix("pub(super) "))
            .or_else(|| body.strip_prefix("pub "))
            .unwrap_or(body);
        let after_kw = after_vis
            .strip_prefix("async ")
            .or_else(|| after_vis.strip_prefix("const "))
            .unwrap_or(after_vis);
        let Some(rest) = after_kw.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
            out.push((name, end + 2));
        }
    }
    out
}

/// No function is longer than [`MAX_FN_LINES`] but the listed tables: a long function is
/// named steps.
#[test]
fn functions_are_named_steps() {
    let mut all = Vec::new();
    for (path, text) in product_files() {
        for (name, n) in functions(&text) {
            all.push((n, format!("{path}: {name}")));
        }
    }
    all.sort();
    if let Some((n, f)) = all.last() {
        println!("longest function: {f}, {n} lines (limit {MAX_FN_LINES})");
    }
    let problems: Vec<String> = all
        .iter()
        .filter(|(n, f)| *n > MAX_FN_LINES && !TABLES.contains(&f.as_str()))
        .map(|(n, f)| format!("{f} is {n} lines (limit {MAX_FN_LINES}): make it named steps"))
        .collect();
    for table in TABLES {
        assert!(
            all.iter().any(|(_, f)| f == table),
            "{table} is listed in TABLES but not found: take it off"
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_function_finder_measures_from_fn_to_its_brace() {
    let text = "fn a() {\n    x;\n}\n\nimpl T {\n    pub async fn b(&self) {\n        y;\n        z;\n    }\n}\n";
    assert_eq!(functions(text), [("a".to_owned(), 3), ("b".to_owned(), 4)]);
}

/// The top-level modules of paddockd and which others each one names (`crate::x`, or
/// `super::x` from a file at the top level).
fn daemon_module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let files = rust_files("paddockd/src");
    let lib = files
        .iter()
        .find(|(p, _)| p == "paddockd/src/lib.rs")
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    let modules: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l
                .strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("mod "))?;
            Some(rest.trim_end_matches(';').to_owned())
        })
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for (path, text) in &files {
        let rel = path.trim_start_matches("paddockd/src/");
        let (owner, top_level) = match rel.split_once('/') {
            Some((dir, _)) => (dir.to_owned(), false),
            None => (rel.trim_end_matches(".rs").to_owned(), true),
        };
        if !modules.contains(&owner) || test_only(path) {
            continue;
        }
        let code = code_part(text).join("\n");
        let mut named = BTreeSet::new();
        for prefix in ["crate::", if top_level { "super::" } else { "crate::" }] {
            for (i, _) in code.match_indices(prefix) {
                let after = &code[i + prefix.len()..];
                if let Some(group) = after.strip_prefix('{') {
                    // `use crate::{a, b::c}`: the first segment of each item.
                    let inner = group.split('}').next().unwrap_or_default();
                    for item in inner.split(',') {
                        named.insert(first_segment(item.trim()));
                    }
                } else {
                    named.insert(first_segment(after));
                }
            }
        }
        for m in named {
            if m != owner && modules.contains(&m) {
                graph.entry(owner.clone()).or_default().insert(m);
            }
        }
    }
    graph
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The strongly connected components of `graph` (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<BTreeSet<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on_stack.insert(v);
            let graph = self.graph;
            for w in graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).map_or(0, |l| {
                        *l = (*l).min(lw);
                        *l
                    });
                    let _ = lv;
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    if let Some(l) = self.low.get_mut(v) {
                        *l = (*l).min(iw);
                    }
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.insert(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                self.out.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

#[test]
fn the_daemons_modules_form_no_large_import_cycle() {
    let graph = daemon_module_graph();
    assert!(
        graph.len() > 10,
        "paddockd's modules were not found: {graph:?}"
    );
    let largest = cycles(&graph)
        .into_iter()
        .max_by_key(BTreeSet::len)
        .unwrap_or_default();
    let mut two_way = Vec::new();
    for (a, to) in &graph {
        for b in to {
            if a < b && graph.get(b).is_some_and(|back| back.contains(a)) {
                two_way.push(format!("{a}<->{b}"));
            }
        }
    }
    println!(
        "largest module cycle in paddockd: {} of {} top-level modules ({}); two-way pairs: {}",
        largest.len(),
        graph.len(),
        largest.iter().cloned().collect::<Vec<_>>().join(", "),
        two_way.len()
    );
    assert!(
        largest.len() <= MAX_CYCLE,
        "the largest import cycle among paddockd's modules grew to {} (at most {MAX_CYCLE}): {:?}; depend downward, through a handle, instead",
        largest.len(),
        largest
    );
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let edges = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry((*a).into()).or_default().insert((*b).into());
            g.entry((*b).into()).or_default();
        }
        g
    };
    let g = edges(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")]);
    let largest = cycles(&g).into_iter().max_by_key(BTreeSet::len).unwrap();
    assert_eq!(
        largest,
        ["a", "b", "c"].iter().map(|s| (*s).to_owned()).collect()
    );
    assert_eq!(first_segment("runner::process::X"), "runner");
}

/// `static` items holding locks or cells: state every in-process daemon would share.
#[test]
fn no_static_mutable_state() {
    let mut found = Vec::new();
    for (path, text) in product_files() {
        for line in code_part(&text) {
            let l = line.trim_start();
            let is_static = l.starts_with("static ") || l.starts_with("pub static ");
            let mutable = l.contains("static mut ")
                || [
                    "Mutex",
                    "RwLock",
                    "RefCell",
                    "Cell<",
                    "OnceLock<",
                    "LazyLock<",
                ]
                .iter()
                .any(|t| l.contains(t));
            if is_static && mutable {
                let name = l
                    .split_whitespace()
                    .skip_while(|w| *w != "static")
                    .nth(1)
                    .unwrap_or_default()
                    .trim_end_matches(':');
                found.push(format!("{path}: {name}"));
            }
        }
    }
    println!("static mutable state: {} ({found:?})", found.len());
    let new: Vec<&String> = found
        .iter()
        .filter(|f| !MUTABLE_STATICS.contains(&f.as_str()))
        .collect();
    assert!(
        new.is_empty(),
        "static mutable state (shared by every daemon in a process): {new:?}; keep it in a service the wiring builds"
    );
}

/// `tokio::spawn` outside a `TaskTracker` in the daemon: a task its shutdown does not wait for.
#[test]
fn every_spawn_is_tracked() {
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    for (path, text) in rust_files("paddockd/src")
        .into_iter()
        .filter(|(p, _)| !test_only(p))
    {
        let n = code_part(&text)
            .iter()
            .filter(|l| l.contains("tokio::spawn(") && !l.trim_start().starts_with("//"))
            .count();
        if n > 0 {
            found.insert(path, n);
        }
    }
    println!(
        "untracked tokio::spawn: {} in {} files",
        found.values().sum::<usize>(),
        found.len()
    );
    let problems: Vec<String> = found
        .iter()
        .map(|(p, n)| format!("{p}: {n} tokio::spawn; spawn on the shutdown TaskTracker instead"))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A task that outlives a request holds only the handles it uses: the wiring (`daemon.rs`)
/// and the transports, which serve every request, are the only holders of the whole
/// `Daemon` (an `Arc<Daemon>`); a service gets its own narrow context.
#[test]
fn only_the_wiring_and_the_transports_hold_the_whole_daemon() {
    const HOLDERS: [&str; 4] = [
        "paddockd/src/daemon.rs",
        "paddockd/src/connection.rs",
        "paddockd/src/websocket.rs",
        "paddockd/src/management/mod.rs",
    ];
    let mut found = Vec::new();
    for (path, text) in rust_files("paddockd/src") {
        let holds = code_part(&text)
            .iter()
            .any(|l| l.contains("Arc<Daemon>") && !l.trim_start().starts_with("//"));
        if holds && !HOLDERS.contains(&path.as_str()) {
            found.push(path);
        }
    }
    assert!(
        found.is_empty(),
        "these hold the whole Daemon: {found:?}; give the task a context of the handles it uses (as triggers::Ctx, sweeper's Ctx, autocommit::Committer)"
    );
}

/// The runner drives claude and says what happens in a turn (its `ChatEvent`s, the chat and
/// approvals that changed, who asked); the hub alone makes wire messages of that. So no
/// file under `runner/` builds a frame, a control message, a reply or a wire error.
#[test]
fn the_runner_builds_no_wire_messages() {
    const WIRE: [&str; 6] = [
        "ServerMessage",
        "ControlMessage",
        "Reply::",
        "Response {",
        "ErrorBody",
        "paddock_proto::encode",
    ];
    let mut found = Vec::new();
    for (path, text) in rust_files("paddockd/src/runner") {
        for line in code_part(&text) {
            let l = line.trim_start();
            if l.starts_with("//") {
                continue;
            }
            for w in WIRE.iter().filter(|w| l.contains(**w)) {
                found.push(format!("{path}: {w}"));
            }
        }
    }
    println!("wire messages built in runner/: {}", found.len());
    assert!(
        found.is_empty(),
        "the runner builds wire messages: {found:?}; tell the hub what happened (hub.chats_changed, hub.start_turn, …) and let it frame it"
    );
}

/// ARCHITECTURE.md's map of paddockd names every top-level module, and names none that does
/// not exist: a newcomer finds each concern's file from it. It lists them from the bottom up.
#[test]
fn the_architecture_map_names_every_daemon_module() {
    let root = workspace();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_default();
    let map: Vec<&str> = doc
        .lines()
        .skip_while(|l| !l.starts_with("## Bird's-eye view"))
        .take_while(|l| !l.starts_with("## Architecture invariants"))
        .skip_while(|l| l.trim() != "paddockd/src")
        .take_while(|l| !l.starts_with("```"))
        .collect();
    // A map entry: `├─ name.rs` or `└─ name/` (a daemon module at the top of the tree).
    let mut named = BTreeSet::new();
    let mut in_order: Vec<String> = Vec::new();
    for line in &map {
        let Some(at) = line.find("─ ") else {
            continue;
        };
        let indent = line[..at].matches('│').count();
        if indent != 0 {
            continue;
        }
        let word = line[at + "─ ".len()..]
            .split_whitespace()
            .next()
            .unwrap_or_default();
        let name = word.trim_end_matches(".rs").trim_end_matches('/');
        if word.ends_with(".rs") || word.ends_with('/') {
            named.insert(name.to_owned());
            in_order.push(name.to_owned());
        }
    }
    let graph = daemon_module_graph();
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    let src = root.join("paddockd/src");
    let unmapped: Vec<&String> = modules.iter().filter(|m| !named.contains(*m)).collect();
    let missing: Vec<&String> = named
        .iter()
        .filter(|n| !src.join(format!("{n}.rs")).is_file() && !src.join(n).is_dir())
        .collect();
    println!(
        "ARCHITECTURE.md maps {} of paddockd's {} top-level modules",
        named.len(),
        modules.len()
    );
    assert!(
        unmapped.is_empty(),
        "paddockd modules missing from ARCHITECTURE.md's map: {unmapped:?}"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's map names modules that do not exist: {missing:?}"
    );
    // From the bottom up: each module uses only those listed above it (the members of one
    // cycle excepted, which the cycle check bounds).
    let place: BTreeMap<&str, usize> = in_order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let cycle_of = cycles(&graph);
    let same_cycle = |a: &str, b: &str| {
        cycle_of
            .iter()
            .any(|c| c.len() > 1 && c.contains(a) && c.contains(b))
    };
    let upward: Vec<String> = graph
        .iter()
        .flat_map(|(m, uses)| uses.iter().map(move |u| (m, u)))
        .filter(|(m, u)| {
            place.get(m.as_str()) < place.get(u.as_str()) && !same_cycle(m.as_str(), u.as_str())
        })
        .map(|(m, u)| format!("{m} uses {u}, listed below it"))
        .collect();
    assert!(
        upward.is_empty(),
        "ARCHITECTURE.md's map is ordered from the bottom up; move the entry or the dependency: {}",
        upward.join("; ")
    );
}
