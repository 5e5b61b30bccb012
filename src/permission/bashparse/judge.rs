//! The judgement of one Bash command, made once per call: for each simple command the
//! texts rules are matched against, whether it only reads, and the rule "always" would
//! add for it (docs/interactive.md, "Permissions").
use super::wrap::{base, shape};
use super::{parse, read_only, render, Word};

/// Programs whose first argument (a subcommand or a script) belongs in a suggested rule.
const MULTI: &[&str] = &[
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "cargo",
    "docker",
    "podman",
    "kubectl",
    "go",
    "pip",
    "pip3",
    "make",
    "python",
    "python3",
    "node",
    "bundle",
    "mix",
    "uv",
    "npx",
    "deno",
    "gh",
    "helm",
    "terraform",
    "poetry",
    "rake",
    "dotnet",
    "mvn",
    "gradle",
    "bash",
    "sh",
    "zsh",
    "ruby",
    "perl",
    "rustup",
    "brew",
    "apt",
    "apt-get",
    "systemctl",
    "just",
];

/// Programs with a second level of subcommands (`npm run test`, `docker compose up`).
const TWO_LEVEL: &[(&str, &str)] = &[
    ("npm", "run"),
    ("pnpm", "run"),
    ("yarn", "run"),
    ("bun", "run"),
    ("uv", "run"),
    ("docker", "compose"),
    ("git", "stash"),
    ("git", "remote"),
    ("cargo", "run"),
];

/// How deep `bash -c '…'` is looked into for deny rules.
const MAX_INLINE: usize = 3;

/// One simple command as the rules see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judge {
    /// Texts a deny or ask rule is matched against (as written, after each wrapper, the
    /// commands of inline shell code and of `find -exec`).
    pub views: Vec<String>,
    /// The text an allow rule must match.
    pub key: String,
    /// On the read-only list.
    pub read: bool,
    /// The rule "always" adds for it; None when no prefix rule can name it (a program known
    /// only at run time, an assignment, a declaration).
    pub suggest: Option<String>,
    /// It sets a variable that changes what programs run (`PATH=. cmd`, `env LD_PRELOAD=…
    /// cmd`): no prefix rule covers it, only an exact rule on the whole command.
    pub unsafe_env: bool,
}

/// The judgement of a whole command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judged {
    /// The command as given (trimmed).
    pub text: String,
    /// Parsed cleanly, and no compound command's redirection writes a file.
    pub ok: bool,
    pub cmds: Vec<Judge>,
    /// Every path it names is inside the workspace: its input redirections as the parse
    /// sees them, then the gate's text check of the policy scopes.
    pub scope_ok: bool,
}

impl Judged {
    /// Runs unasked in the default mode.
    pub fn read_only(&self) -> bool {
        self.ok && self.scope_ok && self.cmds.iter().all(|c| c.read)
    }
}

/// Parse and judge `command` (absolute paths ask: no workspace is known).
pub fn judge(command: &str) -> Judged {
    judge_in(command, None)
}

/// Parse and judge `command` run in the workspace `cwd`.
pub fn judge_in(command: &str, cwd: Option<&std::path::Path>) -> Judged {
    judge_within(command, &|p| cwd.is_some_and(|c| p.starts_with(c)))
}

/// Parse and judge `command`; `inside` says whether an absolute path it reads is in the
/// workspace as the gate counts it.
pub fn judge_within(command: &str, inside: &dyn Fn(&std::path::Path) -> bool) -> Judged {
    let script = parse(command);
    let assigned = super::scope::assigned(&script.commands);
    let inputs_placed = super::scope::placed("", &script.inputs, &assigned, inside);
    let mut out = Judged {
        text: command.trim().to_string(),
        ok: script.ok && !script.stray_writes,
        cmds: Vec::with_capacity(script.commands.len()),
        scope_ok: inputs_placed,
    };
    for c in &script.commands {
        let read = read_only(c);
        if c.words.is_empty() {
            out.cmds.push(Judge {
                read,
                unsafe_env: !read,
                ..Judge::default()
            });
            continue;
        }
        let s = shape(&c.words);
        let prog = s.key.first().and_then(Word::lit).map(base).unwrap_or("");
        let read =
            read && super::scope::placed(prog, s.key.get(1..).unwrap_or(&[]), &assigned, inside);
        let mut views: Vec<String> = s.views.iter().map(|v| render(v)).collect();
        for v in &s.views {
            extra_views(v, &mut views, 0);
        }
        let key = render(&s.key);
        // `time -o f ls` / `env -C .. ls`: a rule on `ls` does not cover the wrapper's
        // own effect, so only an exact rule does.
        let unsafe_env = s.wrapper_effect
            || !c
                .assigns
                .iter()
                .chain(&s.env_assigns)
                .all(|n| super::safe_assignment(n));
        let suggest = if c.declaration || unsafe_env {
            None
        } else {
            suggestion(&s.key, s.privileged, s.inline_code, &key)
        };
        out.cmds.push(Judge {
            views,
            key,
            read,
            suggest,
            unsafe_env,
        });
    }
    out
}

/// The commands a simple command runs in turn, for deny rules: `/bin/rm` as `rm`, the
/// code of `bash -c`/`sh -ec`, `eval`, `trap`, `watch`, `su -c`, and the command of
/// `find -exec`/`fd -x`.
fn extra_views(key: &[Word], views: &mut Vec<String>, depth: usize) {
    let Some(first) = key.first().and_then(Word::lit) else {
        return;
    };
    let prog = base(first);
    if prog != first && !prog.is_empty() {
        let mut v = vec![Word::Lit(prog.to_string())];
        v.extend(key[1..].iter().cloned());
        views.push(render(&v));
    }
    if depth < MAX_INLINE {
        if let Some(code) = code_string(prog, key) {
            for c in parse(&code).commands {
                let s = shape(&c.words);
                for v in &s.views {
                    views.push(render(v));
                    extra_views(v, views, depth + 1);
                }
            }
        }
    }
    if matches!(prog, "find" | "fd" | "fdfind") {
        let mut i = 0;
        while i < key.len() {
            let runs = key[i].lit().is_some_and(|o| {
                matches!(
                    o,
                    "-exec" | "-execdir" | "-ok" | "-okdir" | "--exec" | "--exec-batch"
                ) || (prog != "find"
                    && o.starts_with('-')
                    && !o.starts_with("--")
                    && (o.ends_with('x') || o.ends_with('X')))
            });
            if runs {
                let end = key[i + 1..]
                    .iter()
                    .position(|w| matches!(w.lit(), Some(";" | "+")))
                    .map_or(key.len(), |j| i + 1 + j);
                let inner = &key[i + 1..end];
                if !inner.is_empty() {
                    views.push(render(inner));
                    extra_views(inner, views, depth + 1);
                }
                i = end;
            }
            i += 1;
        }
    }
}

/// The shell code a program runs from its arguments, when they are literal.
fn code_string(prog: &str, key: &[Word]) -> Option<String> {
    let lits: Vec<&str> = key[1..].iter().map(Word::lit).collect::<Option<_>>()?;
    match prog {
        // `bash -c code`, `bash -lc code`, `sh -ec code`, `su -c code`.
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "su" | "runuser" | "script" => {
            let i = lits.iter().position(|o| {
                *o == "-c"
                    || *o == "--command"
                    || (o.starts_with('-') && !o.starts_with("--") && o.contains('c'))
            })?;
            lits.get(i + 1).map(|c| c.to_string())
        }
        "eval" => Some(lits.join(" ")),
        "trap" => lits.first().map(|c| c.to_string()),
        // `watch [-n secs] [-d] cmd args…` runs `sh -c "cmd args…"`.
        "watch" => {
            let mut i = 0;
            while i < lits.len() && lits[i].starts_with('-') {
                i += if matches!(lits[i], "-n" | "--interval" | "-q" | "--equexit") {
                    2
                } else {
                    1
                };
            }
            (i < lits.len()).then(|| lits[i..].join(" "))
        }
        _ => None,
    }
}

/// `Bash(git commit:*)`, `Bash(npm run test:*)`, `Bash(sudo apt install:*)`; the exact
/// command for inline code and for git with a global option left in the key (`-c`,
/// `--exec-path`, `--git-dir`: a prefix would allow any code; `Bash(git:*)` any git).
fn suggestion(key: &[Word], privileged: bool, inline: bool, rendered: &str) -> Option<String> {
    let exact = || (!rendered.contains('*')).then(|| format!("Bash({rendered})"));
    let (prefix, words) = if privileged {
        ("sudo ", key.get(1..).unwrap_or(&[]))
    } else {
        ("", key)
    };
    let prog = words.first()?.lit()?;
    if !name_like(prog, true) {
        return None;
    }
    if inline {
        return exact();
    }
    let mut parts = vec![prog.to_string()];
    let sub = words.get(1).and_then(Word::lit);
    if base(prog) == "git" && sub.is_some_and(|s| s.starts_with('-')) {
        return exact();
    }
    if MULTI.contains(&base(prog)) {
        if let Some(sub) = sub.filter(|s| name_like(s, false)) {
            parts.push(sub.to_string());
            let sub2 = words.get(2).and_then(Word::lit);
            if TWO_LEVEL.contains(&(base(prog), sub)) {
                if let Some(s2) = sub2.filter(|s| name_like(s, false)) {
                    parts.push(s2.to_string());
                }
            }
        }
    }
    Some(format!("Bash({prefix}{}:*)", parts.join(" ")))
}

/// A word that can stand in a rule: no blanks, wildcards, parentheses or `:`; a
/// subcommand does not start with `-`.
fn name_like(w: &str, program: bool) -> bool {
    !w.is_empty()
        && (program || !w.starts_with('-'))
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+@=".contains(c))
        && !w.contains("=")
}
