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
    /// Every path it names is inside the workspace (set by the gate; true by default).
    pub scope_ok: bool,
}

impl Judged {
    /// Runs unasked in the default mode.
    pub fn read_only(&self) -> bool {
        self.ok && self.scope_ok && self.cmds.iter().all(|c| c.read)
    }
}

/// Parse and judge `command`.
pub fn judge(command: &str) -> Judged {
    let script = parse(command);
    let mut out = Judged {
        text: command.trim().to_string(),
        ok: script.ok && !script.stray_writes,
        cmds: Vec::with_capacity(script.commands.len()),
        scope_ok: true,
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
        let mut views: Vec<String> = s.views.iter().map(|v| render(v)).collect();
        extra_views(&s.key, &mut views, 0);
        let key = render(&s.key);
        let unsafe_env = !c
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

/// The commands `bash -c 'code'` and `find … -exec cmd … ;` run, for deny rules.
fn extra_views(key: &[Word], views: &mut Vec<String>, depth: usize) {
    let Some(prog) = key.first().and_then(Word::lit).map(base) else {
        return;
    };
    if depth < MAX_INLINE && matches!(prog, "bash" | "sh" | "zsh" | "dash" | "ksh") {
        let code = key
            .iter()
            .position(|w| w.lit() == Some("-c"))
            .and_then(|i| key.get(i + 1))
            .and_then(Word::lit);
        if let Some(code) = code {
            for c in parse(code).commands {
                let s = shape(&c.words);
                views.extend(s.views.iter().map(|v| render(v)));
                extra_views(&s.key, views, depth + 1);
            }
        }
    }
    if matches!(prog, "find" | "fd" | "fdfind") {
        let mut i = 0;
        while i < key.len() {
            if matches!(
                key[i].lit(),
                Some(
                    "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                        | "-x"
                        | "--exec"
                        | "-X"
                        | "--exec-batch"
                )
            ) {
                let end = key[i + 1..]
                    .iter()
                    .position(|w| matches!(w.lit(), Some(";" | "+")))
                    .map_or(key.len(), |j| i + 1 + j);
                let inner = &key[i + 1..end];
                if !inner.is_empty() {
                    views.push(render(inner));
                }
                i = end;
            }
            i += 1;
        }
    }
}

/// `Bash(git commit:*)`, `Bash(npm run test:*)`, `Bash(sudo apt install:*)`; the exact
/// command for inline code and for git with `-c`/`--exec-path` (a prefix would allow any
/// code).
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
    if base(prog) == "git"
        && sub.is_some_and(|s| {
            s.starts_with("-c") || s.starts_with("--exec-path") || s.starts_with("--config-env")
        })
    {
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
