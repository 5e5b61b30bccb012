//! From tree-sitter's syntax tree to the simple commands. Every node is visited: a
//! `command` node becomes a [`Cmd`]; substitutions inside its words, assignments and
//! redirections are visited as commands of their own; anything else (lists, pipelines,
//! loops, bodies, here-documents, tests) is walked through, so no kind of node can hide a
//! command from the judgement.
use super::{Cmd, Script, Word};
use tree_sitter::{Node, Tree};

/// Node kinds that are (parts of) words: only the substitutions inside them run.
const WORDISH: &[&str] = &[
    "word",
    "string",
    "raw_string",
    "concatenation",
    "simple_expansion",
    "expansion",
    "number",
    "string_content",
    "ansi_c_string",
    "translated_string",
    "arithmetic_expansion",
    "binary_expression",
    "unary_expression",
    "ternary_expression",
    "postfix_expression",
    "parenthesized_expression",
    "subscript",
    "variable_name",
    "special_variable_name",
    "brace_expression",
    "regex",
    "extglob_pattern",
    "test_operator",
    "heredoc_body",
    "heredoc_content",
    "heredoc_start",
    "heredoc_end",
    "file_descriptor",
    "array",
    "command_name",
    "comment",
];

/// Deeper nesting is not judged (asked about); the walk recurses once per level.
const MAX_DEPTH: usize = 200;

struct Walk<'a> {
    src: &'a [u8],
    out: Script,
}

pub(super) fn script(tree: &Tree, src: &[u8]) -> Script {
    let root = tree.root_node();
    let mut w = Walk {
        src,
        out: Script {
            ok: !root.has_error(),
            ..Script::default()
        },
    };
    w.visit(root, 0);
    w.out
}

impl<'a> Walk<'a> {
    fn text(&self, n: Node) -> &'a str {
        n.utf8_text(self.src).unwrap_or("")
    }

    /// Marks the parse not ok at an error/missing node; false past the depth limit.
    fn enter(&mut self, n: Node, depth: usize) -> bool {
        if depth > MAX_DEPTH || n.is_error() || n.is_missing() {
            self.out.ok = false;
        }
        depth <= MAX_DEPTH
    }

    fn visit(&mut self, n: Node, depth: usize) {
        if !self.enter(n, depth) {
            return;
        }
        match n.kind() {
            "command" => self.command(n, depth),
            "variable_assignment" | "variable_assignments" => {
                let mut c = Cmd::default();
                self.assignment(n, &mut c, depth);
                self.out.commands.push(c);
            }
            "declaration_command" | "unset_command" => self.declaration(n, depth),
            // `for PATH in .; do ls; done` sets PATH like `PATH=.` does.
            "for_statement" => {
                if let Some(v) = n.child_by_field_name("variable") {
                    self.out.commands.push(Cmd {
                        assigns: vec![self.text(v).to_string()],
                        ..Cmd::default()
                    });
                }
                self.children(n, depth)
            }
            "redirected_statement" => {
                let body = n.child_by_field_name("body");
                let simple = body.is_some_and(|b| b.kind() == "command");
                let mut writes = false;
                let mut cur = n.walk();
                for c in n.named_children(&mut cur) {
                    if Some(c) == body {
                        continue;
                    }
                    writes |= self.redirect(c, depth + 1);
                }
                match body {
                    Some(b) => {
                        let before = self.out.commands.len();
                        self.visit(b, depth + 1);
                        if writes && simple && before < self.out.commands.len() {
                            self.out.commands[before].writes = true;
                        } else if writes {
                            self.out.stray_writes = true;
                        }
                    }
                    // `> f` alone truncates f.
                    None => self.out.stray_writes |= writes,
                }
            }
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                // A redirection outside a redirected statement (inside a heredoc's tail).
                if self.redirect(n, depth + 1) {
                    self.out.stray_writes = true;
                }
            }
            _ => self.children(n, depth),
        }
    }

    fn children(&mut self, n: Node, depth: usize) {
        let mut cur = n.walk();
        for c in n.named_children(&mut cur) {
            self.visit(c, depth + 1);
        }
    }

    /// A simple command: its words, its leading assignments and redirections, and every
    /// command substituted into any of them.
    fn command(&mut self, n: Node, depth: usize) {
        let idx = self.out.commands.len();
        self.out.commands.push(Cmd::default());
        let mut cmd = Cmd::default();
        let mut writes = false;
        let mut cur = n.walk();
        for c in n.named_children(&mut cur) {
            match c.kind() {
                "variable_assignment" => self.assignment(c, &mut cmd, depth + 1),
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    writes |= self.redirect(c, depth + 1)
                }
                "command_name" => {
                    let w = match c.named_child(0) {
                        Some(inner) => self.word(inner),
                        None => Word::Dyn(self.text(c).to_string()),
                    };
                    cmd.words.push(w);
                    self.children(c, depth + 1);
                }
                // `$(cmd)` inside `[[ ]]`, `=~` regexes and the like.
                _ => {
                    cmd.words.push(self.word(c));
                    self.visit_inside(c, depth + 1);
                }
            }
        }
        cmd.writes = writes;
        self.out.commands[idx] = cmd;
    }

    /// The commands inside a word (substitutions), without taking the word for a command;
    /// a statement found where a word was expected is visited as one.
    fn visit_inside(&mut self, n: Node, depth: usize) {
        if !self.enter(n, depth) {
            return;
        }
        match n.kind() {
            "command_substitution" | "process_substitution" => self.children(n, depth),
            k if WORDISH.contains(&k) => {
                let mut cur = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cur).collect();
                for c in kids {
                    self.visit_inside(c, depth + 1);
                }
            }
            _ => self.visit(n, depth),
        }
    }

    /// `NAME=value` (also `NAME+=v`, `a[i]=v`): the name, and what its value runs.
    fn assignment(&mut self, n: Node, cmd: &mut Cmd, depth: usize) {
        if n.kind() == "variable_assignments" {
            let mut cur = n.walk();
            for c in n.named_children(&mut cur) {
                self.assignment(c, cmd, depth + 1);
            }
            return;
        }
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x).to_string())
            .unwrap_or_default();
        cmd.assigns.push(name);
        let mut cur = n.walk();
        let kids: Vec<Node> = n.named_children(&mut cur).collect();
        for c in kids {
            self.visit_inside(c, depth + 1);
        }
    }

    /// `export A=1 B`, `local x`, `unset y`: a builtin that only sets variables.
    fn declaration(&mut self, n: Node, depth: usize) {
        let mut cmd = Cmd {
            declaration: true,
            ..Cmd::default()
        };
        let mut head = n.walk();
        if let Some(kw) = n.children(&mut head).next() {
            cmd.words.push(Word::Lit(self.text(kw).to_string()));
        }
        let mut cur = n.walk();
        for c in n.named_children(&mut cur) {
            match c.kind() {
                "variable_assignment" => self.assignment(c, &mut cmd, depth + 1),
                "variable_name" => cmd.assigns.push(self.text(c).to_string()),
                _ => {
                    cmd.words.push(self.word(c));
                    self.visit_inside(c, depth + 1);
                }
            }
        }
        self.out.commands.push(cmd);
    }

    /// Whether a redirection writes a file; what it runs (a substituted target, a
    /// here-document's substitutions, a pipeline after `<<EOF`) is visited.
    fn redirect(&mut self, n: Node, depth: usize) -> bool {
        let mut writes = false;
        if n.kind() == "file_redirect" {
            let mut op = String::new();
            let mut cur = n.walk();
            for c in n.children(&mut cur) {
                if !c.is_named() {
                    op.push_str(self.text(c));
                }
            }
            let dest = n.child_by_field_name("destination");
            let target = dest.map(|d| self.word(d));
            writes = writing(&op, target.as_ref());
            if !op.contains('>') && !op.ends_with('&') {
                if let Some(t) = &target {
                    self.out.inputs.push(t.clone());
                }
            }
        }
        let mut cur = n.walk();
        for c in n.named_children(&mut cur) {
            match c.kind() {
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    writes |= self.redirect(c, depth + 1)
                }
                k if WORDISH.contains(&k) => self.visit_inside(c, depth + 1),
                _ => self.visit(c, depth + 1),
            }
        }
        writes
    }

    /// The word as the shell would pass it, when that is known without running anything.
    pub(super) fn word(&self, n: Node) -> Word {
        let raw = self.text(n);
        match literal(n, self.src) {
            Some(s) => Word::Lit(s),
            None => Word::Dyn(raw.to_string()),
        }
    }
}

/// Whether a redirection with operator `op` to `target` writes a file.
fn writing(op: &str, target: Option<&Word>) -> bool {
    if !op.contains('>') || op.ends_with("&-") {
        // Input, or closing a descriptor (`2>&-`).
        return false;
    }
    match target {
        Some(Word::Lit(t)) => {
            let dup = op.ends_with('&') && (t == "-" || t.bytes().all(|b| b.is_ascii_digit()));
            !dup && !matches!(
                t.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
            )
        }
        _ => true,
    }
}

/// The literal value of a word node, None when it expands at run time.
fn literal(n: Node, src: &[u8]) -> Option<String> {
    let text = n.utf8_text(src).ok()?;
    match n.kind() {
        "word" | "number" | "command_name" | "variable_name" => {
            if brace_expansion(text) || leading_glob(text) {
                return None;
            }
            let mut out = String::new();
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    match chars.next() {
                        Some('\n') | None => {}
                        Some(e) => out.push(e),
                    }
                } else {
                    out.push(c);
                }
            }
            Some(out)
        }
        "raw_string" => Some(
            text.trim_start_matches('\'')
                .trim_end_matches('\'')
                .to_string(),
        ),
        "string" => {
            let mut out = String::new();
            let mut cur = n.walk();
            for c in n.named_children(&mut cur) {
                if c.kind() != "string_content" {
                    return None;
                }
                out.push_str(&unescape_dq(c.utf8_text(src).ok()?));
            }
            Some(out)
        }
        "concatenation" => {
            if brace_expansion(text) {
                return None;
            }
            let mut out = String::new();
            let mut cur = n.walk();
            for c in n.named_children(&mut cur) {
                out.push_str(&literal(c, src)?);
            }
            Some(out)
        }
        _ => None,
    }
}

/// `*`, `?*` or `[-]*` at the start of an unquoted word: the names it expands to may start
/// with `-` and be taken for options (a file named `--output=x` in the repository).
fn leading_glob(text: &str) -> bool {
    text.starts_with('*') || text.starts_with('?') || (text.starts_with('[') && text.len() > 1)
}

/// `{a,b}` and `{1..3}` outside quotes: one word becomes several.
fn brace_expansion(text: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut open = false;
    let mut prev = ' ';
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if prev == '\\' => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '{' => open = true,
            None if open && (c == ',' || (c == '.' && prev == '.')) => return true,
            None => {}
        }
        prev = c;
    }
    false
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
fn unescape_dq(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(e) = chars.next() {
                        out.push(e);
                    }
                    continue;
                }
                Some('\n') => {
                    chars.next();
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    out
}
