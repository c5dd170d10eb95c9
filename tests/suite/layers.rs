//! The module layers: the top-level modules of `src/` are stacked in layers,
//! and a module may name (`crate::m::..`) only modules in its own layer or
//! below, so the module graph runs one way.
//!
//! The layers are the table in `ARCHITECTURE.md` between the lines
//! `<!-- layers:begin -->` and `<!-- layers:end -->`: a header row, then a
//! row per layer, layer 0 at the bottom:
//!
//! ```text
//! | Layer | Name    | Modules                       | What it holds |
//! |-------|---------|-------------------------------|---------------|
//! | 0     | base    | `error`, `vocab`              | ...           |
//! | 1     | storage | `paths`, `secrets`, `store`   | ...           |
//! ```
//!
//! Three checks, each naming everything it finds, not only the first:
//! - every top-level module (`src/X.rs` but `lib.rs` and `main.rs`, and every
//!   directory `src/X/`) is in exactly one layer, and every module the table
//!   lists is in `src/`;
//! - no reference goes to a module in a higher layer (file, line and path of
//!   each);
//! - the modules have no cycles (strongly connected components), also among
//!   the modules of one layer: each cycle with the references that make it.
//!
//! A reference is a path `crate::m` (also `crate::{m::x, n::{y, z}}`) in code
//! that is not test code: files named `tests.rs` or `*_tests.rs`, files under
//! a directory named `tests`, and `#[cfg(test)] mod m { .. }` blocks are left
//! out, as are comments and string and character literals. It is the graph
//! that the workplace's `modgraph.py` reads, so the two agree; this one
//! also names lines and paths. Paths through the re-exports of `lib.rs`
//! (`crate::DataDir`) and through `super::` are not seen.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- layers:begin -->";
const END: &str = "<!-- layers:end -->";
/// Paths in the reports are cut to about this many characters.
const PATH_CHARS: usize = 80;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn layer_table_lists_every_module_once() {
    let layers = read_layers(root());
    let modules = top_level_modules(&root().join("src"));
    let problems = table_problems(&layers, &modules);
    assert!(
        problems.is_empty(),
        "the layer table of ARCHITECTURE.md (between {BEGIN} and {END}) does not match src/:\n{}",
        problems.join("\n")
    );
}

#[test]
fn no_module_imports_from_a_higher_layer() {
    let layers = read_layers(root());
    let graph = Graph::read(&root().join("src"));
    let upward = upward_references(&layers, &graph);
    assert!(
        upward.is_empty(),
        "{} references go up the layer table of ARCHITECTURE.md (between {BEGIN} and {END}); \
         a module may use only modules in its own layer or below:\n{}",
        upward.len(),
        upward.join("\n")
    );
}

#[test]
fn module_graph_has_no_cycles() {
    let graph = Graph::read(&root().join("src"));
    let report = cycle_report(&graph);
    assert!(report.is_empty(), "the top-level modules of src/ have cycles:\n{report}");
}

// ---------------------------------------------------------------------------
// The layer table.

#[derive(Debug, PartialEq, Eq)]
struct Layer {
    number: u32,
    name: String,
    modules: Vec<String>,
}

fn read_layers(root: &Path) -> Vec<Layer> {
    let path = root.join("ARCHITECTURE.md");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    parse_layers(&text).unwrap_or_else(|e| panic!("the layer table of {}: {e}", path.display()))
}

/// The layers of the table between [`BEGIN`] and [`END`] in `markdown`.
fn parse_layers(markdown: &str) -> Result<Vec<Layer>, String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let begin = lines.iter().position(|l| l.trim() == BEGIN).ok_or_else(|| format!("no line `{BEGIN}`"))?;
    let end = begin
        + lines[begin..]
            .iter()
            .position(|l| l.trim() == END)
            .ok_or_else(|| format!("no line `{END}` after `{BEGIN}`"))?;
    let mut layers: Vec<Layer> = Vec::new();
    let mut header_seen = false;
    for (i, line) in lines.iter().enumerate().take(end).skip(begin + 1) {
        let line = line.trim();
        let Some(row) = line.strip_prefix('|') else {
            if line.is_empty() {
                continue;
            }
            return Err(format!("line {}: not a table row: {line}", i + 1));
        };
        if row.chars().all(|c| matches!(c, '-' | ':' | '|' | ' ')) {
            continue; // the separator row
        }
        let row = row.strip_suffix('|').unwrap_or(row);
        let cells: Vec<&str> = row.splitn(4, '|').map(str::trim).collect();
        let Ok(number) = cells[0].parse::<u32>() else {
            if !header_seen && layers.is_empty() {
                header_seen = true;
                continue;
            }
            return Err(format!("line {}: the first cell is not a layer number: {line}", i + 1));
        };
        if cells.len() < 3 {
            return Err(format!("line {}: fewer than three cells: {line}", i + 1));
        }
        if layers.iter().any(|l| l.number == number) {
            return Err(format!("line {}: layer {number} is in the table twice", i + 1));
        }
        let modules: Vec<String> =
            cells[2].split('`').skip(1).step_by(2).map(str::trim).filter(|m| !m.is_empty()).map(String::from).collect();
        if let Some(bad) = modules.iter().find(|m| !m.chars().all(is_ident_char)) {
            return Err(format!("line {}: `{bad}` is not a module name", i + 1));
        }
        layers.push(Layer { number, name: cells[1].to_string(), modules });
    }
    if layers.is_empty() {
        return Err("the table has no layers".to_string());
    }
    Ok(layers)
}

/// The layer of each module the table lists (the first, if listed twice).
fn layer_of(layers: &[Layer]) -> BTreeMap<&str, u32> {
    let mut of = BTreeMap::new();
    for layer in layers {
        for module in &layer.modules {
            of.entry(module.as_str()).or_insert(layer.number);
        }
    }
    of
}

/// Modules of `src/` in no layer or in more than one, and listed modules
/// that `src/` does not have.
fn table_problems(layers: &[Layer], modules: &BTreeSet<String>) -> Vec<String> {
    let mut listed: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for layer in layers {
        for module in &layer.modules {
            listed.entry(module.as_str()).or_default().push(layer.number);
        }
    }
    let mut problems = Vec::new();
    for module in modules {
        match listed.get(module.as_str()).map(Vec::as_slice) {
            None | Some([]) => problems.push(format!("module `{module}` of src/ is in no layer")),
            Some([_]) => {}
            Some(numbers) => problems.push(format!("module `{module}` is listed more than once: layers {numbers:?}")),
        }
    }
    for (module, numbers) in &listed {
        if !modules.contains(*module) {
            problems.push(format!(
                "`{module}` (layer {numbers:?}) is not a module of src/ (no src/{module}.rs, no src/{module}/)"
            ));
        }
    }
    problems
}

// ---------------------------------------------------------------------------
// The module graph.

/// The top-level modules of `src`: `X.rs` but `lib.rs` and `main.rs`, and
/// every directory `X/`.
fn top_level_modules(src: &Path) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for entry in fs::read_dir(src).unwrap_or_else(|e| panic!("reading {}: {e}", src.display())) {
        let entry = entry.unwrap_or_else(|e| panic!("reading {}: {e}", src.display()));
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            modules.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs")
            && stem != "lib"
            && stem != "main"
        {
            modules.insert(stem.to_string());
        }
    }
    modules
}

/// The `.rs` files under `dir` that are not test code by their names:
/// neither `tests.rs` nor `*_tests.rs`, nor under a directory `tests`.
fn source_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())).path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if path.is_dir() {
            if name != "tests" {
                source_files(&path, files);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            files.push(path);
        }
    }
}

/// One `crate::m..` in the code of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
    /// The file, from the crate's root: `src/gate/check.rs`.
    file: String,
    line: usize,
    /// The top-level module of `file`.
    from: String,
    /// The top-level module named.
    to: String,
    /// The path as written: `crate::gate::check::Gate`.
    path: String,
}

struct Graph {
    modules: BTreeSet<String>,
    /// The references from one module to another, by module and module.
    edges: BTreeMap<String, BTreeMap<String, Vec<Reference>>>,
}

impl Graph {
    fn read(src: &Path) -> Graph {
        let modules = top_level_modules(src);
        let reexports = fs::read_to_string(src.join("lib.rs")).map(|lib| lib_reexports(&lib)).unwrap_or_default();
        let mut files = Vec::new();
        source_files(src, &mut files);
        let mut edges: BTreeMap<String, BTreeMap<String, Vec<Reference>>> = BTreeMap::new();
        for path in files {
            let Ok(rel) = path.strip_prefix(src) else { continue };
            let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let from = match parts.as_slice() {
                [file] => file.trim_end_matches(".rs").to_string(),
                [dir, ..] => dir.clone(),
                [] => continue,
            };
            if !modules.contains(&from) {
                continue; // lib.rs, main.rs
            }
            let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let file = format!("src/{}", parts.join("/"));
            for mut found in references_in(&text) {
                // `crate::Core` is `crate::core::Core` (lib.rs re-exports it).
                if let Some(module) = reexports.get(&found.name) {
                    found.name.clone_from(module);
                }
                if found.name != from && modules.contains(&found.name) {
                    let reference = Reference {
                        file: file.clone(),
                        line: found.line,
                        from: from.clone(),
                        to: found.name,
                        path: found.path,
                    };
                    edges.entry(from.clone()).or_default().entry(reference.to.clone()).or_default().push(reference);
                }
            }
        }
        Graph { modules, edges }
    }

    fn targets(&self, module: &str) -> impl Iterator<Item = &str> {
        self.edges.get(module).into_iter().flat_map(|to| to.keys().map(String::as_str))
    }
}

/// Inside `browser`, the interception stands between the CDP leaf and the
/// launch: `cdp` <- `intercept` <- `launch` <- `session` (ARCHITECTURE.md,
/// "The interception"). A file of one of them may name (`::m` in code) only
/// those before it, so the hub, the tab's watch and the relay never reach
/// for a tab handle or the session.
#[test]
fn the_browsers_interception_runs_one_way() {
    const ORDER: [&str; 4] = ["cdp", "intercept", "launch", "session"];
    let browser = root().join("src/browser");
    let mut problems = Vec::new();
    for (rank, module) in ORDER.iter().enumerate() {
        let mut files = Vec::new();
        let dir = browser.join(module);
        if dir.is_dir() {
            source_files(&dir, &mut files);
        }
        let file = browser.join(format!("{module}.rs"));
        if file.is_file() {
            files.push(file);
        }
        assert!(!files.is_empty(), "src/browser/{module} is missing");
        for path in files {
            let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let code: String = code_of(&text).into_iter().collect();
            for (n, line) in code.lines().enumerate() {
                for later in &ORDER[rank + 1..] {
                    let named = line
                        .match_indices(&format!("::{later}"))
                        .any(|(at, m)| !line[at + m.len()..].chars().next().is_some_and(is_ident_char));
                    if named {
                        let rel = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
                        problems.push(format!("{rel}:{}: `{module}` names `{later}`: {}", n + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the browser's modules must run cdp <- intercept <- launch <- session:\n{}",
        problems.join("\n")
    );
}

/// Every reference to a module in a higher layer, one line each, by file
/// and line.
fn upward_references(layers: &[Layer], graph: &Graph) -> Vec<String> {
    let layer = layer_of(layers);
    let mut upward: Vec<&Reference> = graph
        .edges
        .values()
        .flat_map(BTreeMap::values)
        .flatten()
        .filter(|r| matches!((layer.get(r.from.as_str()), layer.get(r.to.as_str())), (Some(a), Some(b)) if b > a))
        .collect();
    upward.sort_by(|a, b| (&a.file, a.line, &a.path).cmp(&(&b.file, b.line, &b.path)));
    upward
        .iter()
        .map(|r| {
            format!(
                "{}:{}: {} (layer {}) imports {} from {} (layer {}, above)",
                r.file,
                r.line,
                r.from,
                layer[r.from.as_str()],
                r.path,
                r.to,
                layer[r.to.as_str()]
            )
        })
        .collect()
}

/// The strongly connected components of the graph (Tarjan's algorithm).
fn components(graph: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        graph: &'g Graph,
        next: usize,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.targets(v) {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                component.sort();
                self.found.push(component);
            }
        }
    }
    let mut tarjan = Tarjan {
        graph,
        next: 0,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for module in &graph.modules {
        if !tarjan.index.contains_key(module.as_str()) {
            tarjan.visit(module);
        }
    }
    tarjan.found
}

/// A shortest cycle through `start` within `component`: `a -> b -> a`.
fn shortest_cycle(graph: &Graph, component: &BTreeSet<&str>, start: &str) -> Vec<String> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.targets(v).filter(|w| component.contains(w)) {
            if w == start {
                let mut cycle = vec![start.to_string()];
                let mut at = v;
                while at != start {
                    cycle.push(at.to_string());
                    at = came_from[at];
                }
                cycle.push(start.to_string());
                cycle.reverse();
                return cycle;
            }
            if !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    Vec::new()
}

/// Each cycle: its modules, a shortest cycle through its first module, and
/// every edge within it with the references that make it. Empty if none.
fn cycle_report(graph: &Graph) -> String {
    let mut report = String::new();
    for component in components(graph).into_iter().filter(|c| c.len() > 1) {
        let members: BTreeSet<&str> = component.iter().map(String::as_str).collect();
        let _ = writeln!(report, "cycle of {} modules: {}", component.len(), component.join(" "));
        let _ = writeln!(report, "  for one: {}", shortest_cycle(graph, &members, &component[0]).join(" -> "));
        for from in &component {
            let Some(targets) = graph.edges.get(from) else { continue };
            for (to, references) in targets.iter().filter(|(to, _)| members.contains(to.as_str())) {
                let files: BTreeSet<&str> = references.iter().map(|r| r.file.as_str()).collect();
                let _ = writeln!(report, "  {from} -> {to}: {} references in {} files", references.len(), files.len());
                for r in references {
                    let _ = writeln!(report, "    {}:{}: {}", r.file, r.line, r.path);
                }
            }
        }
    }
    report
}

// ---------------------------------------------------------------------------
// Reading Rust source, enough to find `crate::` paths.

/// A `crate::name..` found in a file's text.
#[derive(Debug, PartialEq, Eq)]
struct Found {
    line: usize,
    name: String,
    path: String,
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Code,
    Comment,
    Literal,
}

/// The text cut into code, comments (`//..`, `/* .. */`) and string and
/// character literals (`".."`, `r#".."#`, `b".."`, `'c'`, `'\n'`), as
/// `(kind, start, end)` in `s`.
fn lex(s: &[char]) -> Vec<(Kind, usize, usize)> {
    let mut out = Vec::new();
    let mut code_start = 0;
    let mut i = 0;
    while i < s.len() {
        let at = |k: usize| s.get(i + k).copied();
        let starts_word = i == 0 || !is_ident_char(s[i - 1]);
        let token = match s[i] {
            '/' if at(1) == Some('/') => {
                Some((Kind::Comment, s[i..].iter().position(|&c| c == '\n').map_or(s.len(), |n| i + n)))
            }
            '/' if at(1) == Some('*') => Some((Kind::Comment, block_comment_end(s, i))),
            '"' => Some((Kind::Literal, string_end(s, i + 1))),
            'r' | 'b' | 'c' if starts_word => raw_string_end(s, i).map(|end| (Kind::Literal, end)),
            '\'' => char_literal_end(s, i).map(|end| (Kind::Literal, end)),
            _ => None,
        };
        match token {
            Some((kind, end)) => {
                if code_start < i {
                    out.push((Kind::Code, code_start, i));
                }
                out.push((kind, i, end));
                i = end;
                code_start = end;
            }
            None => i += 1,
        }
    }
    if code_start < s.len() {
        out.push((Kind::Code, code_start, s.len()));
    }
    out
}

/// The end of the block comment at `i` (they nest).
fn block_comment_end(s: &[char], i: usize) -> usize {
    let (mut depth, mut j) = (0, i);
    while j < s.len() {
        match (s[j], s.get(j + 1)) {
            ('/', Some('*')) => {
                depth += 1;
                j += 2;
            }
            ('*', Some('/')) => {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return j;
                }
            }
            _ => j += 1,
        }
    }
    s.len()
}

/// The end of the string whose text starts at `j`, after its `"`.
fn string_end(s: &[char], mut j: usize) -> usize {
    while j < s.len() {
        match s[j] {
            '\\' => j += 2,
            '"' => return j + 1,
            _ => j += 1,
        }
    }
    s.len()
}

/// The end of the raw string (`r".."`, `br#".."#`, `cr".."`) at `i`, if one
/// is there.
fn raw_string_end(s: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if matches!(s.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if s.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = s[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if s.get(j) != Some(&'"') {
        return None; // r#ident, or an identifier
    }
    j += 1;
    while j < s.len() {
        if s[j] == '"' && s[j + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(s.len())
}

/// The end of the character literal at `i` (`'x'`, `'\n'`, `'\u{1F600}'`),
/// if it is one and not a lifetime or a label.
fn char_literal_end(s: &[char], i: usize) -> Option<usize> {
    match (s.get(i + 1), s.get(i + 2)) {
        (Some('\\'), Some(_)) => s[i + 3..].iter().take(10).position(|&c| c == '\'').map(|n| i + 3 + n + 1),
        (Some(_), Some('\'')) => Some(i + 3),
        _ => None,
    }
}

/// `text` without its comments; strings are kept, and so are the lines.
fn strip_comments(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (kind, start, end) in lex(&s) {
        let part = s[start..end].iter();
        if kind == Kind::Comment {
            out.extend(part.filter(|&&c| c == '\n'));
        } else {
            out.extend(part);
        }
    }
    out
}

/// The code of `text` with comments, literals and test modules blanked out,
/// character for character (newlines stay, so lines keep their numbers).
fn code_of(text: &str) -> Vec<char> {
    let mut s: Vec<char> = text.chars().collect();
    for (kind, start, end) in lex(&s) {
        if kind != Kind::Code {
            blank(&mut s[start..end]);
        }
    }
    blank_test_modules(&mut s);
    s
}

fn blank(s: &mut [char]) {
    for c in s.iter_mut().filter(|c| **c != '\n') {
        *c = ' ';
    }
}

fn skip_space(s: &[char], mut j: usize) -> usize {
    while s.get(j).is_some_and(|c| c.is_whitespace()) {
        j += 1;
    }
    j
}

/// The identifier at `j` and where it ends ("" if none).
fn word_at(s: &[char], j: usize) -> (String, usize) {
    let n = s.get(j..).unwrap_or_default().iter().take_while(|&&c| is_ident_char(c)).count();
    (s[j..j + n].iter().collect(), j + n)
}

/// Where the bracket at `open` (`(`, `[` or `{`) is closed, past it.
fn matching(s: &[char], open: usize) -> usize {
    let (o, c) = match s[open] {
        '(' => ('(', ')'),
        '[' => ('[', ']'),
        _ => ('{', '}'),
    };
    let mut depth = 0;
    for (j, &ch) in s.iter().enumerate().skip(open) {
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth -= 1;
            if depth == 0 {
                return j + 1;
            }
        }
    }
    s.len()
}

/// The outer attribute `#[..]` at `i`: its text without spaces, and its end.
fn attribute_at(s: &[char], i: usize) -> Option<(String, usize)> {
    let open = skip_space(s, i + 1);
    if s.get(open) != Some(&'[') {
        return None;
    }
    let end = matching(s, open);
    let inner = s.get(open + 1..end.saturating_sub(1)).unwrap_or_default();
    Some((inner.iter().filter(|c| !c.is_whitespace()).collect(), end))
}

/// `cfg(test)`, or `cfg(all(test, ..))`.
fn is_test_cfg(attribute: &str) -> bool {
    attribute == "cfg(test)"
        || attribute
            .strip_prefix("cfg(all(")
            .and_then(|rest| rest.strip_suffix("))"))
            .is_some_and(|terms| split_top_level(&terms.chars().collect::<Vec<_>>()).iter().any(|t| t == "test"))
}

/// Where the `[more attributes] [pub[(..)]] mod name { .. }` at `j` ends,
/// if that is what is there.
fn module_block_end(s: &[char], mut j: usize) -> Option<usize> {
    loop {
        j = skip_space(s, j);
        match s.get(j) {
            Some('#') => j = attribute_at(s, j)?.1,
            _ => break,
        }
    }
    let (mut word, mut end) = word_at(s, j);
    if word == "pub" {
        j = skip_space(s, end);
        if s.get(j) == Some(&'(') {
            j = skip_space(s, matching(s, j));
        }
        (word, end) = word_at(s, j);
    }
    if word != "mod" {
        return None;
    }
    let (name, end) = word_at(s, skip_space(s, end));
    let open = skip_space(s, end);
    (!name.is_empty() && s.get(open) == Some(&'{')).then(|| matching(s, open))
}

/// Blanks every `#[cfg(test)] mod name { .. }` in code without comments
/// and literals.
fn blank_test_modules(s: &mut [char]) {
    let mut i = 0;
    while i < s.len() {
        if s[i] == '#'
            && let Some((attribute, after)) = attribute_at(s, i)
        {
            match module_block_end(s, after).filter(|_| is_test_cfg(&attribute)) {
                Some(end) => {
                    blank(&mut s[i..end]);
                    i = end;
                }
                None => i = after,
            }
        } else {
            i += 1;
        }
    }
}

/// The parts of a list at bracket depth 0, split at its commas and trimmed;
/// empty parts are left out.
fn split_top_level(s: &[char]) -> Vec<String> {
    split_top_level_at(s)
        .into_iter()
        .map(|(start, end)| s[start..end].iter().collect::<String>().trim().to_string())
        .collect()
}

/// The `(start, end)` of each part of a list at bracket depth 0.
fn split_top_level_at(s: &[char]) -> Vec<(usize, usize)> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (j, &c) in s.iter().enumerate() {
        match c {
            '{' | '(' | '[' | '<' => depth += 1,
            '}' | ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push((start, j));
                start = j + 1;
            }
            _ => {}
        }
    }
    parts.push((start, s.len()));
    parts.retain(|&(a, b)| s[a..b].iter().any(|c| !c.is_whitespace()));
    parts
}

/// `s` on one line: `b::{ y,\n z, }` -> `b::{y, z}`.
fn tidy(s: &str) -> String {
    let mut out = String::new();
    for word in s.split_whitespace() {
        if !out.is_empty() && !out.ends_with('{') && !word.starts_with('}') {
            out.push(' ');
        }
        out.push_str(word);
    }
    out = out.replace(",}", "}");
    if out.chars().count() > PATH_CHARS {
        out = out.chars().take(PATH_CHARS - 3).collect::<String>() + "...";
    }
    out
}

/// The path after `crate::` at `j`: `a::b::C`, `a::{x, y}`, `a::*`.
fn path_at(s: &[char], j: usize) -> String {
    let (mut path, mut end) = word_at(s, j);
    while s.get(end) == Some(&':') && s.get(end + 1) == Some(&':') {
        let next = end + 2;
        match s.get(next) {
            Some('{') => {
                let close = matching(s, next);
                path.extend(&s[end..close]);
                break;
            }
            Some('*') => {
                path.push_str("::*");
                break;
            }
            Some(&c) if is_ident_char(c) => {
                let (word, after) = word_at(s, next);
                path = path + "::" + &word;
                end = after;
            }
            _ => break,
        }
    }
    path
}

/// What `lib.rs` re-exports at the crate's root, by name: `pub use
/// crate::core::Core;` makes `crate::Core` a reference to `core`.
fn lib_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in lib.lines().map(str::trim) {
        let Some(path) = line.strip_prefix("pub use ").and_then(|p| p.strip_suffix(';')) else { continue };
        let path = path.strip_prefix("crate::").unwrap_or(path);
        let Some((module, rest)) = path.split_once("::") else { continue };
        let items = match rest.rsplit_once("::{").map(|(_, group)| group).or_else(|| rest.strip_prefix('{')) {
            Some(group) => group.trim_end_matches('}').split(',').map(str::trim).collect::<Vec<_>>(),
            None => vec![rest.rsplit("::").next().unwrap_or(rest)],
        };
        for item in items.into_iter().filter(|i| !i.is_empty()) {
            let name = item.rsplit(" as ").next().unwrap_or(item).trim();
            names.insert(name.to_owned(), module.to_owned());
        }
    }
    names
}

/// Every `crate::name..` in the code of `text` (not in comments, literals or
/// test modules), with its line; grouped uses give one each:
/// `crate::{a::x, b::{y, z}}` gives `crate::a::x` and `crate::b::{y, z}`.
fn references_in(text: &str) -> Vec<Found> {
    let s = code_of(text);
    let newlines: Vec<usize> = s.iter().enumerate().filter(|(_, c)| **c == '\n').map(|(j, _)| j).collect();
    let line_of = |j: usize| newlines.partition_point(|&n| n < j) + 1;
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(n) = s.get(i..).and_then(|rest| rest.windows(5).position(|w| w == ['c', 'r', 'a', 't', 'e'])) {
        let at = i + n;
        i = at + 5;
        if (at > 0 && is_ident_char(s[at - 1])) || s.get(i).is_some_and(|&c| is_ident_char(c)) {
            continue;
        }
        let colons = skip_space(&s, i);
        if s.get(colons..colons + 2) != Some(&[':', ':']) {
            continue;
        }
        let j = skip_space(&s, colons + 2);
        if s.get(j) == Some(&'{') {
            let close = matching(&s, j);
            let inner = &s[j + 1..close.saturating_sub(1).max(j + 1)];
            for (start, end) in split_top_level_at(inner) {
                let start = skip_space(inner, start);
                let (name, _) = word_at(inner, start);
                if !name.is_empty() {
                    let part: String = inner[start..end].iter().collect();
                    found.push(Found { line: line_of(j + 1 + start), name, path: tidy(&format!("crate::{part}")) });
                }
            }
            i = close;
        } else {
            let (name, _) = word_at(&s, j);
            if !name.is_empty() {
                found.push(Found { line: line_of(j), name, path: tidy(&format!("crate::{}", path_at(&s, j))) });
            }
        }
    }
    found
}

// ---------------------------------------------------------------------------
// The checks' own parts, on small inputs.

mod parts {
    use super::*;

    fn found(text: &str) -> Vec<(usize, String, String)> {
        references_in(text).into_iter().map(|f| (f.line, f.name, f.path)).collect()
    }

    #[test]
    fn grouped_uses_give_each_top_level_name() {
        let text = "use std::fmt;\nuse crate::{a::x, b::{y, z}};\nuse crate::{\n    c,\n    d::{self, e::F},\n};\n";
        assert_eq!(
            found(text),
            [
                (2, "a".into(), "crate::a::x".into()),
                (2, "b".into(), "crate::b::{y, z}".into()),
                (4, "c".into(), "crate::c".into()),
                (5, "d".into(), "crate::d::{self, e::F}".into()),
            ]
        );
    }

    #[test]
    fn paths_in_code_are_found_with_their_lines() {
        let text = "fn f() {\n    let g = crate::gate::check::Gate::new();\n    \
                    crate :: store::{Store, Db}; crate::tools::*; $crate::vocab::x!();\n    \
                    my_crate::notify::x(); crate_name::y(); pub(crate) fn h() {}\n}\n";
        assert_eq!(
            found(text),
            [
                (2, "gate".into(), "crate::gate::check::Gate::new".into()),
                (3, "store".into(), "crate::store::{Store, Db}".into()),
                (3, "tools".into(), "crate::tools::*".into()),
                (3, "vocab".into(), "crate::vocab::x".into()),
            ]
        );
    }

    #[test]
    fn long_paths_are_cut() {
        let long = format!("crate::a::{}", "b".repeat(100));
        let path = &found(&long)[0].2;
        assert_eq!(path.chars().count(), PATH_CHARS);
        assert!(path.starts_with("crate::a::bbb") && path.ends_with("..."));
    }

    #[test]
    fn comments_go_and_strings_stay() {
        let text = "let u = \"http://x\"; // crate::a\n/// crate::b doc\nlet r = r#\"// \"quoted\" \"#; /* crate::c /* nested */ */ let c = '\"'; let d = '/';\n";
        assert_eq!(
            strip_comments(text),
            "let u = \"http://x\"; \n\nlet r = r#\"// \"quoted\" \"#;  let c = '\"'; let d = '/';\n"
        );
        assert!(found(text).is_empty());
        let text =
            "let u = \"http://x/\\\"crate::a\"; crate::b::C; let e = '\\''; fn f<'a>(x: &'a str) { crate::c::d(x) }";
        let names: Vec<String> = found(text).into_iter().map(|f| f.1).collect();
        assert_eq!(names, ["b", "c"]);
    }

    #[test]
    fn test_modules_are_left_out() {
        let text = "use crate::a::X;\n\
                    #[cfg(test)]\nmod tests {\n    use crate::b::Y;\n    fn f() { let s = \"}\"; if true { crate::c::z(); } }\n}\n\
                    #[cfg(test)]\n#[allow(clippy::unwrap_used)]\npub(crate) mod more { use crate::d; }\n\
                    #[cfg(all(test, target_os = \"linux\"))]\nmod linux { use crate::e; }\n\
                    #[cfg(not(test))]\nmod real { use crate::f; }\n\
                    #[cfg(test)]\nfn helper() { crate::g::h(); }\n\
                    #[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod x;\n\
                    use crate::i::J;\n";
        let lines: Vec<(usize, String)> = found(text).into_iter().map(|f| (f.0, f.1)).collect();
        // Only modules are left out: a #[cfg(test)] fn is not.
        assert_eq!(lines, [(1, "a".into()), (13, "f".into()), (15, "g".into()), (19, "i".into())]);
    }

    const TABLE: &str = "# Architecture\n\nText | with a bar.\n\n<!-- layers:begin -->\n\
        | Layer | Name | Modules | What it holds |\n\
        |------:|:-----|---------|---------------|\n\
        | 0 | base | `error`, `vocab` | leaves |\n\
        |  1  |  storage  | `paths`,`secrets` , `store` | what is kept | and a bar |\n\
        | 2 | empty | | nothing yet |\n\
        <!-- layers:end -->\n| 9 | after | `x` | not read |\n";

    #[test]
    fn the_table_is_read() {
        let layers = parse_layers(TABLE).unwrap();
        assert_eq!(
            layers,
            [
                Layer { number: 0, name: "base".into(), modules: vec!["error".into(), "vocab".into()] },
                Layer {
                    number: 1,
                    name: "storage".into(),
                    modules: vec!["paths".into(), "secrets".into(), "store".into()]
                },
                Layer { number: 2, name: "empty".into(), modules: vec![] },
            ]
        );
        let modules: BTreeSet<String> = ["error", "vocab", "paths", "store", "tools"].map(String::from).into();
        assert_eq!(
            table_problems(&layers, &modules),
            [
                "module `tools` of src/ is in no layer",
                "`secrets` (layer [1]) is not a module of src/ (no src/secrets.rs, no src/secrets/)",
            ]
        );
    }

    #[test]
    fn bad_tables_are_named() {
        assert!(parse_layers("no table").unwrap_err().contains("layers:begin"));
        assert!(parse_layers(&TABLE.replace("| 2 |", "| two |")).unwrap_err().contains("not a layer number"));
        assert!(parse_layers(&TABLE.replace("| 2 |", "| 1 |")).unwrap_err().contains("twice"));
        assert!(parse_layers(&TABLE.replace("`store`", "`st ore`")).unwrap_err().contains("not a module name"));
        let twice = parse_layers(&TABLE.replace("`paths`", "`vocab`")).unwrap();
        let modules: BTreeSet<String> = ["error", "vocab", "secrets", "store"].map(String::from).into();
        assert_eq!(table_problems(&twice, &modules), ["module `vocab` is listed more than once: layers [0, 1]"]);
    }

    fn graph(edges: &[(&str, &str)]) -> Graph {
        let mut graph = Graph { modules: BTreeSet::new(), edges: BTreeMap::new() };
        for (n, &(from, to)) in edges.iter().enumerate() {
            graph.modules.extend([from.to_string(), to.to_string()]);
            let reference = Reference {
                file: format!("src/{from}/mod.rs"),
                line: n + 1,
                from: from.into(),
                to: to.into(),
                path: format!("crate::{to}::X"),
            };
            graph.edges.entry(from.into()).or_default().entry(to.into()).or_default().push(reference);
        }
        graph
    }

    #[test]
    fn upward_references_and_cycles_are_named() {
        let layers = parse_layers(TABLE).unwrap();
        let g = graph(&[
            ("store", "error"),
            ("vocab", "store"),
            ("error", "vocab"),
            ("paths", "store"),
            ("store", "paths"),
        ]);
        assert_eq!(
            upward_references(&layers, &g),
            ["src/vocab/mod.rs:2: vocab (layer 0) imports crate::store::X from store (layer 1, above)"]
        );
        let report = cycle_report(&g);
        assert!(
            report.starts_with(
                "cycle of 4 modules: error paths store vocab\n  for one: error -> vocab -> store -> error\n"
            )
        );
        assert!(
            report.contains("  paths -> store: 1 references in 1 files\n    src/paths/mod.rs:4: crate::store::X\n")
        );
        assert!(cycle_report(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    }

    #[test]
    fn the_crates_root_reexports_are_read_as_their_modules() {
        let lib = "pub mod core;\npub use crate::context::{CallContext, Cancel};\npub use crate::core::Core;\npub use error::{Error, Result as R};\n";
        let names = lib_reexports(lib);
        assert_eq!(names.get("Core").map(String::as_str), Some("core"));
        assert_eq!(names.get("Cancel").map(String::as_str), Some("context"));
        assert_eq!(names.get("R").map(String::as_str), Some("error"));
        assert_eq!(names.get("core"), None);
    }
}
