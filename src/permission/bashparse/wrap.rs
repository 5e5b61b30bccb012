//! Wrappers looked through: `env`, `command`, `builtin`, `exec`, `nice`, `nohup`,
//! `timeout`, `time`, `stdbuf`, `setsid`, `ionice`, `xargs`, `sudo`/`doas`, and git's
//! global options (`git -C dir`, `git -c k=v`, `git --exec-path=…`). A simple command has
//! several views: as written, and after each wrapper. Deny and ask rules match any view;
//! allow rules, the read-only list and the suggested rules use the key view (the command
//! that really runs, its privilege wrapper and any git `-c`/`--exec-path` kept).
use super::Word;
use crate::tools::policy::words::{self, is_assignment};

/// The views of one simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    /// Every view (the command as written first).
    pub views: Vec<Vec<Word>>,
    /// The view judged for allowing.
    pub key: Vec<Word>,
    /// Run through `sudo`, `doas`, `su`, `pkexec` (the key keeps that prefix).
    pub privileged: bool,
    /// An interpreter given code inline (`bash -c`, `python -c`, `node -e`, `perl -e`…):
    /// a writer whatever the code says; a rule for it is the exact command.
    pub inline_code: bool,
    /// A wrapper option with an effect of its own: `time -o f` writes f, `env -C dir`
    /// runs the command elsewhere (the scope check sees literal paths only).
    pub wrapper_effect: bool,
    /// Names `env NAME=value cmd` sets (judged like the shell's own assignments).
    pub env_assigns: Vec<String>,
}

/// (options taking a separate argument, positional arguments before the command): the
/// sandbox's table (`tools/policy/words.rs`) plus the privilege wrappers, which the gate
/// looks through for deny rules and keeps in the key.
fn wrapper(name: &str) -> Option<(&'static [&'static str], usize)> {
    match name {
        "sudo" | "doas" => Some((
            &[
                "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "--user", "--group",
            ],
            0,
        )),
        _ => words::wrapper(name),
    }
}

fn privilege(name: &str) -> bool {
    matches!(name, "sudo" | "doas" | "su" | "pkexec")
}

/// The program name without its folder (`/usr/bin/env` is `env`).
pub fn base(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The views of `words` (a simple command's name and arguments).
pub fn shape(words: &[Word]) -> Shape {
    let mut s = Shape {
        views: vec![words.to_vec()],
        ..Shape::default()
    };
    let mut rest: &[Word] = words;
    let mut key_prefix: Vec<Word> = Vec::new();
    let mut key: Option<Vec<Word>> = None;
    while let Some(Word::Lit(first)) = rest.first() {
        let name = base(first);
        // `command -v x` only looks x up; `env` alone prints the environment.
        if name == "command"
            && rest
                .get(1)
                .and_then(Word::lit)
                .is_some_and(|o| o == "-v" || o == "-V")
        {
            break;
        }
        let Some((with_arg, mut positional)) = wrapper(name) else {
            break;
        };
        let mut i = 1;
        let mut dynamic = false;
        let mut env_names = Vec::new();
        while let Some(w) = rest.get(i) {
            let Some(o) = w.lit() else {
                dynamic = true;
                break;
            };
            if o == "--" {
                i += 1;
                break;
            }
            if o.starts_with('-') && o.len() > 1 {
                if name == "env" && (o == "-S" || o.starts_with("--split-string")) {
                    dynamic = true;
                    break;
                }
                let effect = match name {
                    "time" => {
                        o.starts_with("-o")
                            || o.starts_with("--o")
                            || o.starts_with("--ap")
                            || (o.starts_with('-') && !o.starts_with("--") && o.contains('a'))
                    }
                    "env" => o.starts_with("-C") || o.starts_with("--ch"),
                    _ => false,
                };
                s.wrapper_effect |= effect;
                i += if with_arg.contains(&o) { 2 } else { 1 };
            } else if name == "env" && is_assignment(o) {
                env_names.push(o.split('=').next().unwrap_or("").to_string());
                i += 1;
            } else if positional > 0 {
                positional -= 1;
                i += 1;
            } else {
                break;
            }
        }
        if dynamic || i >= rest.len() {
            // Nothing after the wrapper (or a word the wrapper may take as an option):
            // the wrapper itself is the program.
            break;
        }
        if privilege(name) && key.is_none() {
            s.privileged = true;
            key_prefix.push(Word::Lit(first.clone()));
        }
        s.env_assigns.extend(env_names);
        rest = &rest[i..];
        s.views.push(rest.to_vec());
    }
    if privilege(rest.first().and_then(Word::lit).map(base).unwrap_or("")) {
        s.privileged = true;
    }
    // git's global options: the subcommand view for deny rules; the key keeps options
    // that change what git runs.
    if rest.first().and_then(Word::lit).map(base) == Some("git") {
        let (stripped, unsafe_opts) = git_globals(rest);
        if stripped.len() != rest.len() {
            s.views.push(stripped.clone());
            if !unsafe_opts {
                key = Some(stripped);
            }
        }
    }
    let mut k = key_prefix;
    k.extend(key.unwrap_or_else(|| rest.to_vec()));
    s.inline_code = inline_code(if s.privileged { &k[1..] } else { &k });
    s.key = k;
    s
}

/// `git -C dir --no-pager log` → `git log`; whether an option that makes git run
/// something else (`-c`, `--config-env`, `--exec-path=`) was among them.
fn git_globals(words: &[Word]) -> (Vec<Word>, bool) {
    let mut i = 1;
    let mut unsafe_opts = false;
    while let Some(w) = words.get(i) {
        let Some(o) = w.lit() else {
            unsafe_opts = true;
            break;
        };
        if !o.starts_with('-') {
            break;
        }
        match o {
            "-C" | "--namespace" | "--super-prefix" => i += 2,
            // Another repository's config (core.fsmonitor, core.pager) runs code: a bare
            // repository committed inside the project is one `--git-dir` away.
            "-c" | "--config-env" | "--git-dir" | "--work-tree" => {
                unsafe_opts = true;
                i += 2;
            }
            _ if o.starts_with("-c")
                || o.starts_with("--exec-path")
                || o.starts_with("--git-dir")
                || o.starts_with("--work-tree")
                || o.starts_with("--config-env") =>
            {
                unsafe_opts = true;
                i += 1;
            }
            _ => i += 1,
        }
    }
    let mut out = vec![words[0].clone()];
    out.extend(words.iter().skip(i).cloned());
    (out, unsafe_opts)
}

/// `bash -c code`, `python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, `osascript -e`…
fn inline_code(words: &[Word]) -> bool {
    let Some(name) = words.first().and_then(Word::lit).map(base) else {
        return false;
    };
    let flags: &[&str] = match name {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" | "csh" | "tcsh" | "busybox" => &["-c"],
        n if n.starts_with("python") || n == "pypy" || n == "pypy3" => &["-c"],
        "node" | "nodejs" | "deno" | "bun" => &["-e", "-p", "--eval", "--print", "eval"],
        "perl" | "ruby" => &["-e", "-E"],
        "php" => &["-r"],
        "lua" | "luajit" => &["-e"],
        "osascript" | "Rscript" => &["-e"],
        _ => return false,
    };
    words.iter().skip(1).any(|w| match w.lit() {
        Some(o) => {
            flags.contains(&o)
                || (o.starts_with('-')
                    && !o.starts_with("--")
                    && flags
                        .iter()
                        .any(|f| f.len() == 2 && o[1..].contains(&f[1..])))
        }
        None => false,
    })
}
