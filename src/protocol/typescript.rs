//! The UI's TypeScript types, generated from the protocol's Rust types with
//! ts-rs: every type reachable from `Op`, `Reply` and `Event`, declared once
//! in [`PATH`]. `make protocol` writes the file; a unit test fails while the
//! committed one differs from [`render`].

use std::any::TypeId;
use std::collections::HashSet;

use ts_rs::{Config, TS, TypeVisitor};

use super::{Event, Op, Reply};

/// The generated file, from the repository root.
pub const PATH: &str = "ui/src/protocol.gen.ts";

const HEADER: &str = "\
// Generated from the Rust types of src/protocol.rs (and the types they use)
// by `make protocol`: do not edit. ui/src/protocol.ts re-exports it.
";

/// The TypeScript declarations of `Op`, `Reply`, `Event` and every type
/// they use, sorted by name.
pub fn render() -> String {
    // i64 (durations) as `number`: JSON numbers, not bigint.
    let cfg = Config::new().with_large_int("number");
    let mut decls = Declarations { cfg: &cfg, seen: HashSet::new(), out: Vec::new() };
    decls.visit::<Op>();
    decls.visit::<Reply>();
    decls.visit::<Event>();
    let mut out = decls.out;
    out.sort();
    // serde_json::Value and ts-rs's stand-in for it both declare `JsonValue`.
    // Two different declarations of one name both stay: tsc rejects the file.
    out.dedup();
    let body: Vec<String> = out.into_iter().map(|(_, decl)| decl).collect();
    format!("{HEADER}\n{}\n", body.join("\n\n"))
}

/// Collects each type's declaration once, following its dependencies.
struct Declarations<'a> {
    cfg: &'a Config,
    seen: HashSet<TypeId>,
    out: Vec<(String, String)>,
}

impl TypeVisitor for Declarations<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Only named types have a declaration (not Vec, Option, String...).
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        let decl = format!("{}export {}", T::docs().unwrap_or_default(), layout(&T::decl(self.cfg)));
        self.out.push((T::ident(self.cfg), decl));
        T::visit_dependencies(self);
    }
}

/// Lines longer than this are broken: a union one variant per line, an
/// object one field per line (also any object with documented fields).
const WIDTH: usize = 100;

/// ts-rs writes a declaration on one line (`type X = A | { a: T, b: U, };`,
/// field docs inline): lay it out for reading and for line diffs.
fn layout(decl: &str) -> String {
    let decl = decl.trim().trim_end_matches(';');
    let Some((head, body)) = decl.split_once(" = ") else { return format!("{decl};") };
    let ty = parse_type(&mut tokens(body).into_iter().peekable());
    let flat = format!("{head} = {};", flat_type(&ty));
    if flat.len() <= WIDTH && !has_docs(&ty) {
        return flat;
    }
    if ty.len() > 1 {
        let variants: Vec<String> = ty.iter().map(|seq| format!("  | {}", seq_text(seq, 2))).collect();
        return format!("{head} =\n{};", variants.join("\n"));
    }
    format!("{head} = {};", type_text(&ty, 0))
}

enum Token {
    /// A `/** ... */` comment.
    Doc(String),
    Open,
    Close,
    Comma,
    Bar,
    Text(String),
}

/// Splits ts-rs output at braces, commas and bars outside `<...>`, string
/// literals and comments.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut text_run = String::new();
    let mut angle = 0usize;
    let mut chars = text.chars().peekable();
    let flush = |run: &mut String, out: &mut Vec<Token>| {
        if !run.trim().is_empty() {
            out.push(Token::Text(run.trim().to_owned()));
        }
        run.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                text_run.push(c);
                while let Some(s) = chars.next() {
                    text_run.push(s);
                    if s == '\\' {
                        text_run.extend(chars.next());
                    } else if s == '"' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                flush(&mut text_run, &mut out);
                let mut doc = String::from("/");
                for s in chars.by_ref() {
                    doc.push(s);
                    if doc.len() > 3 && doc.ends_with("*/") {
                        break;
                    }
                }
                out.push(Token::Doc(doc));
            }
            '<' => {
                angle += 1;
                text_run.push(c);
            }
            '>' => {
                angle = angle.saturating_sub(1);
                text_run.push(c);
            }
            '{' | '}' | ',' | '|' if angle == 0 => {
                flush(&mut text_run, &mut out);
                out.push(match c {
                    '{' => Token::Open,
                    '}' => Token::Close,
                    ',' => Token::Comma,
                    _ => Token::Bar,
                });
            }
            _ => text_run.push(c),
        }
    }
    flush(&mut text_run, &mut out);
    out
}

/// A union of sequences (one sequence: no union).
type Type = Vec<Seq>;
type Seq = Vec<Part>;

enum Part {
    Text(String),
    Object(Vec<Field>),
}

struct Field {
    docs: Vec<String>,
    ty: Type,
}

type Tokens = std::iter::Peekable<std::vec::IntoIter<Token>>;

fn parse_type(tokens: &mut Tokens) -> Type {
    let mut ty = vec![Vec::new()];
    while let Some(token) = tokens.next_if(|t| !matches!(t, Token::Close | Token::Comma | Token::Doc(_))) {
        match token {
            Token::Bar => ty.push(Vec::new()),
            Token::Open => {
                let fields = parse_fields(tokens);
                if let Some(seq) = ty.last_mut() {
                    seq.push(Part::Object(fields));
                }
            }
            Token::Text(text) => {
                if let Some(seq) = ty.last_mut() {
                    seq.push(Part::Text(text));
                }
            }
            Token::Close | Token::Comma | Token::Doc(_) => {}
        }
    }
    ty.retain(|seq| !seq.is_empty());
    ty
}

/// The fields of an object, up to its closing brace.
fn parse_fields(tokens: &mut Tokens) -> Vec<Field> {
    let mut fields = Vec::new();
    let mut docs = Vec::new();
    while let Some(token) = tokens.peek() {
        match token {
            Token::Close => {
                tokens.next();
                break;
            }
            Token::Comma => {
                tokens.next();
            }
            Token::Doc(doc) => {
                docs.push(doc.clone());
                tokens.next();
            }
            _ => {
                let ty = parse_type(tokens);
                fields.push(Field { docs: std::mem::take(&mut docs), ty });
            }
        }
    }
    fields
}

fn has_docs(ty: &Type) -> bool {
    ty.iter().any(seq_has_docs)
}

fn seq_has_docs(seq: &Seq) -> bool {
    seq.iter().any(|part| match part {
        Part::Text(_) => false,
        Part::Object(fields) => fields.iter().any(|f| !f.docs.is_empty() || has_docs(&f.ty)),
    })
}

fn flat_type(ty: &Type) -> String {
    ty.iter().map(flat_seq).collect::<Vec<_>>().join(" | ")
}

fn flat_seq(seq: &Seq) -> String {
    let parts: Vec<String> = seq
        .iter()
        .map(|part| match part {
            Part::Text(text) => text.clone(),
            Part::Object(fields) => {
                let fields: Vec<String> = fields.iter().map(|f| flat_type(&f.ty)).collect();
                format!("{{ {} }}", fields.join(", "))
            }
        })
        .collect();
    parts.join(" ")
}

fn type_text(ty: &Type, indent: usize) -> String {
    ty.iter().map(|seq| seq_text(seq, indent)).collect::<Vec<_>>().join(" | ")
}

/// A sequence at `indent`: objects stay on one line unless they are too
/// long or have documented fields.
fn seq_text(seq: &Seq, indent: usize) -> String {
    let flat = flat_seq(seq);
    if indent + flat.len() <= WIDTH && !seq_has_docs(seq) {
        return flat;
    }
    let pad = " ".repeat(indent + 2);
    let parts: Vec<String> = seq
        .iter()
        .map(|part| match part {
            Part::Text(text) => text.clone(),
            Part::Object(fields) => {
                let mut out = String::from("{\n");
                for field in fields {
                    for doc in &field.docs {
                        out.push_str(&doc_text(doc, &pad));
                    }
                    out.push_str(&format!("{pad}{},\n", type_text(&field.ty, indent + 2)));
                }
                out.push_str(&" ".repeat(indent));
                out.push('}');
                out
            }
        })
        .collect();
    parts.join(" ")
}
/// A doc comment at `pad`: `/** one line */`, or its lines re-indented.
fn doc_text(doc: &str, pad: &str) -> String {
    let lines: Vec<&str> = doc
        .trim_start_matches("/**")
        .trim_end_matches("*/")
        .lines()
        .map(|line| line.trim().trim_start_matches('*').trim())
        .filter(|line| !line.is_empty())
        .collect();
    match lines.as_slice() {
        [line] if pad.len() + line.len() + 7 <= WIDTH => format!("{pad}/** {line} */\n"),
        _ => {
            let body: String = lines.iter().map(|line| format!("{pad} * {line}\n")).collect();
            format!("{pad}/**\n{body}{pad} */\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// `make protocol` runs this with `HALLEY_WRITE_PROTOCOL=1` to write the file.
    #[test]
    fn the_committed_typescript_is_up_to_date() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PATH);
        let fresh = render();
        if std::env::var_os("HALLEY_WRITE_PROTOCOL").is_some() {
            std::fs::write(&path, &fresh).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != fresh {
            let line = committed
                .lines()
                .zip(fresh.lines())
                .position(|(a, b)| a != b)
                .map_or_else(|| committed.lines().count().min(fresh.lines().count()) + 1, |i| i + 1);
            panic!(
                "{PATH} is stale (it differs from the Rust types from line {line}): \
                 run `make protocol` to regenerate it"
            );
        }
    }

    /// The skills' argument schemas as the palette's form tests read them
    /// (`ui/tests/palette/skills.json`), kept equal to the catalogue; `make
    /// protocol` writes it.
    #[test]
    fn the_skills_schemas_the_ui_tests_read_are_up_to_date() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/tests/palette/skills.json");
        let skills: serde_json::Map<String, serde_json::Value> = crate::tools::catalogue::catalogue()
            .into_iter()
            .filter(|t| t.kind == crate::tools::ToolKind::Skill)
            .map(|t| (t.name.clone(), t.parameters.clone()))
            .collect();
        let fresh = format!("{}\n", serde_json::to_string_pretty(&skills).unwrap());
        if std::env::var_os("HALLEY_WRITE_PROTOCOL").is_some() {
            std::fs::write(&path, &fresh).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == fresh, "ui/tests/palette/skills.json is stale: run `make protocol` to regenerate it");
    }
}
