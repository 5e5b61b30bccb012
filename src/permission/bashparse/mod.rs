//! One parse of a Bash command with tree-sitter-bash (docs/tools-and-policy.md, "How a
//! Bash command is judged"): the simple commands it would run — in pipelines, lists,
//! subshells, groups, loop, `if`/`case` and function bodies, command and process
//! substitutions anywhere (words, assignments, redirections, here-documents) — with their
//! words, assignments and redirections. The permission gate judges those, never the raw
//! text: a rule or the read-only list sees every command that would run.
//!
//! A command that does not parse cleanly (an error or a missing node) is marked
//! [`Script::ok`] = false, and the gate asks. The grammar is loaded on the first Bash call
//! judged, never at start-up.
mod git;
mod judge;
mod readonly;
mod render;
mod scope;
mod walk;
mod wrap;

pub use judge::{judge, judge_in, judge_within, Judge, Judged};
pub use readonly::{read_only, safe_assignment};
pub use render::render;
pub use wrap::{shape, Shape};

use std::cell::RefCell;

/// Longer commands are not parsed (asked about): nobody reviews a megabyte of shell.
const MAX_LEN: usize = 256 * 1024;

/// One word as the shell would pass it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// Known before running: quotes and escapes removed.
    Lit(String),
    /// Depends on the run (an expansion, a substitution, a brace expansion): the source text.
    Dyn(String),
}

impl Word {
    pub fn lit(&self) -> Option<&str> {
        match self {
            Word::Lit(s) => Some(s),
            Word::Dyn(_) => None,
        }
    }
}

/// One simple command (or a bare assignment / declaration) the script would run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cmd {
    /// The command name and its arguments (no assignments, no redirections). Empty for a
    /// bare assignment (`X=1`).
    pub words: Vec<Word>,
    /// Names assigned: `X=1 cmd`, `X=1`, `export X=1`.
    pub assigns: Vec<String>,
    /// A redirection of this command writes a file (`>`, `>>`, `&>`, `<>`, `>|` to anything
    /// but /dev/null, /dev/stdout, /dev/stderr or a descriptor).
    pub writes: bool,
    /// A declaration builtin (`export`, `declare`, `local`, `readonly`, `typeset`, `unset`).
    pub declaration: bool,
}

/// What the parse found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    /// Parsed without an error or a missing node, within the size and depth limits.
    pub ok: bool,
    pub commands: Vec<Cmd>,
    /// The files input redirections read (`< f`, `0< f`), for the scope check.
    pub inputs: Vec<Word>,
    /// A redirection on a compound command (`{ ls; } > f`, `done > f`) writes a file.
    pub stray_writes: bool,
}

thread_local! {
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// Parse `command`. Never panics; anything it cannot read is `ok: false`.
pub fn parse(command: &str) -> Script {
    if command.len() > MAX_LEN || command.contains('\0') {
        return Script::default();
    }
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = tree_sitter::Parser::new();
            if p.set_language(&tree_sitter_bash::LANGUAGE.into()).is_err() {
                return Script::default();
            }
            *slot = Some(p);
        }
        let Some(parser) = slot.as_mut() else {
            return Script::default();
        };
        match parser.parse(command, None) {
            Some(tree) => walk::script(&tree, command.as_bytes()),
            None => Script::default(),
        }
    })
}

#[cfg(test)]
mod tests;
