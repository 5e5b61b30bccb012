//! Where a read-only command reads, as far as the parse can tell. The policy's path scopes
//! look at the command's text; these catch what the text hides: a path whose quotes or
//! escapes the text check does not undo (`\\/etc/passwd`), a `..` component, and an
//! argument known only at run time that could name any file (`cat $(printf /etc/x)`,
//! `cat $OLDPWD/x`). Either makes the command ask.
use super::{Cmd, Word};
use std::path::Path;

/// Programs that never open a file named by an argument: a run-time argument is harmless.
const NO_FILES: &[&str] = &[
    "echo", "printf", "test", "[", "expr", "seq", "sleep", "true", "false", ":", "exit", "return",
    "shift", "set", "wait", "jobs", "type", "which", "whereis", "command", "id", "groups", "uname",
    "printenv", "read",
];

/// Variables an argument may expand without asking: the shell's own parameters and the
/// workspace folder.
fn known_var(name: &str, assigned: &[String]) -> bool {
    name.chars().all(|c| c.is_ascii_digit())
        || matches!(name, "@" | "*" | "#" | "?" | "$" | "!" | "-" | "PWD")
        || assigned.iter().any(|a| a == name)
}

/// Whether a run-time word could name a file the parse cannot place.
fn unplaceable(raw: &str, assigned: &[String]) -> bool {
    if raw.starts_with("<(") || raw.starts_with(">(") {
        // A process substitution's path is a pipe; its command is judged itself.
        return false;
    }
    if raw.contains("$(") || raw.contains('`') || raw.contains('~') {
        return true;
    }
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == b'$' {
            let rest = &raw[i + 1..];
            let rest = rest.strip_prefix('{').unwrap_or(rest);
            let rest = rest.trim_start_matches(['#', '!']);
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let name = if name.is_empty() {
                rest.chars().next().map(String::from).unwrap_or_default()
            } else {
                name
            };
            if !known_var(&name, assigned) {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// A literal argument that leaves the workspace in a way the text check may miss.
fn outside_literal(w: &str) -> bool {
    // Of /dev, only the streams and the generators: `/dev/tcp/host/port` is the network.
    let dev_ok = matches!(
        w,
        "/dev/null"
            | "/dev/stdin"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/random"
            | "/dev/urandom"
    ) || w
        .strip_prefix("/dev/fd/")
        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
    w.starts_with('/') && !dev_ok || w.starts_with('~') || w.split('/').any(|c| c == "..")
}

/// Whether `cmd` (judged read-only by the list) reads only where the parse can see.
/// `assigned`: every variable the script sets (assignments, loop variables); `inside`:
/// whether an absolute path (no `..`) is in the workspace as the gate counts it (the
/// folder, `/tmp`, the session store, `--add-dir` folders).
pub fn placed(
    prog: &str,
    args: &[Word],
    assigned: &[String],
    inside: &dyn Fn(&Path) -> bool,
) -> bool {
    if NO_FILES.contains(&prog) {
        return true;
    }
    args.iter().all(|w| match w {
        Word::Dyn(raw) => !unplaceable(raw, assigned),
        Word::Lit(s) => {
            let opt_val = s.split_once('=').map(|p| p.1);
            let check = |p: &str| {
                !outside_literal(p)
                    || (p.starts_with('/') && !p.contains("..") && inside(Path::new(p)))
            };
            // `-f../x`, `-T/tmp`: a short option's attached value (not a lone `/`, the
            // separator of `awk -F/`, `cut -d/`).
            let attached = s
                .strip_prefix('-')
                .filter(|r| !r.starts_with('-'))
                .and_then(|r| r.get(1..))
                .filter(|v| *v != "/");
            check(s) && opt_val.is_none_or(check) && attached.is_none_or(check)
        }
    })
}

/// Every variable the script's commands set.
pub fn assigned(cmds: &[Cmd]) -> Vec<String> {
    cmds.iter()
        .flat_map(|c| c.assigns.iter().cloned())
        .collect()
}
