//! Bash rules on the parsed command (docs/interactive.md, "Permissions"): a deny or ask
//! rule matches the whole command or any simple command anywhere in it (in any of its
//! views: as written, after each wrapper, inside `bash -c`); an allow rule lets a command
//! run only when every simple command in it — in substitutions, bodies and here-documents
//! too — is matched by an allow rule or is on the read-only list. Only an exact rule (no
//! `*`) may match the whole text of a command that did not parse.
use super::bashparse::{judge, judge_within, Judged};
use super::Facts;
use std::borrow::Cow;
use std::path::Path;

/// The policy bits of a read outside the workspace: system, external, network.
const OUTSIDE_READS: u32 = 0o4440;

/// The facts of a Bash call, its one parse and judgement included. The read-only list
/// says what runs; the policy's path scopes say where it reads: a read outside the
/// workspace (system files, the home folder, the network) asks too.
pub fn bash_facts(command: &str, cwd: &Path, projects_root: &Path) -> Facts {
    // An absolute path the parse sees is placed as the gate places it: the folder, `/tmp`,
    // the session store and the `--add-dir` folders are the workspace.
    let places = crate::tools::policy::places_of_run(cwd).temp_as_workspace();
    let inside = |p: &Path| {
        let low = p.to_string_lossy().to_lowercase();
        matches!(
            places.scope(&low),
            None | Some(crate::tools::policy::WORKSPACE)
        )
    };
    let mut j = judge_within(command, &inside);
    let req = crate::tools::policy::classify_for_gate(command, cwd, projects_root);
    j.scope_ok &= req & OUTSIDE_READS == 0;
    Facts {
        tool: "Bash".into(),
        command: Some(command.to_string()),
        workspace_read: j.read_only(),
        bash: Some(std::sync::Arc::new(j)),
        ..Facts::default()
    }
}

/// The judgement the gate made for the call, or one made now (tests, callers without a
/// gate).
pub(super) fn judged(f: &Facts) -> Cow<'_, Judged> {
    match &f.bash {
        Some(j) => Cow::Borrowed(j),
        None => Cow::Owned(judge(f.command.as_deref().unwrap_or(""))),
    }
}

/// Claude Code's matching: `prefix:*` is the prefix alone or followed by a blank; a
/// pattern ending in ` *` (its only wildcard) also matches the bare prefix (`Bash(ls *)`
/// matches `ls`, not `lsof`); otherwise `*` matches any run of characters.
pub(super) fn bash_match(pattern: &str, command: &str) -> bool {
    let c = command.trim();
    let p = pattern.trim();
    if let Some(prefix) = p.strip_suffix(":*") {
        let prefix = prefix.trim();
        return c == prefix || c.starts_with(&format!("{prefix} "));
    }
    if let Some(prefix) = p.strip_suffix(" *") {
        if !prefix.contains('*') && c == prefix.trim_end() {
            return true;
        }
    }
    super::rules::wildcard(p, c)
}

/// A deny or ask rule's pattern against the command: the whole text or any view of any
/// simple command.
pub(super) fn matches_any(pattern: &str, j: &Judged) -> bool {
    bash_match(pattern, &j.text)
        || j.cmds.iter().any(|c| {
            c.views
                .iter()
                .any(|v| !v.is_empty() && bash_match(pattern, v))
        })
}

/// Whether allow rules (their patterns; None is the bare `Bash`) cover the command.
pub(super) fn covered(patterns: &[Option<&str>], j: &Judged) -> bool {
    if patterns.iter().any(Option::is_none) {
        return true;
    }
    let pats: Vec<&str> = patterns.iter().flatten().copied().collect();
    if pats.iter().any(|p| !p.contains('*') && p.trim() == j.text) {
        return true;
    }
    j.ok && !j.cmds.is_empty()
        && j.cmds.iter().all(|c| {
            (c.read && j.scope_ok)
                || (!c.key.is_empty()
                    && !c.unsafe_env
                    && pats.iter().any(|p| bash_match(p, &c.key)))
        })
}

/// The rules "always" adds: one per distinct simple command that is not a read, from the
/// commands the parse found (never a keyword, an assignment, a redirection or a fragment);
/// the exact command when one of them cannot be named by a prefix rule.
pub fn suggestions(j: &Judged) -> Vec<String> {
    let exact = || {
        if j.text.is_empty() || j.text.contains('*') {
            Vec::new()
        } else {
            vec![format!("Bash({})", j.text)]
        }
    };
    if !j.ok {
        return exact();
    }
    let all_read = j.cmds.iter().all(|c| c.read);
    let mut out: Vec<String> = Vec::new();
    for c in &j.cmds {
        if c.read && !all_read {
            continue;
        }
        match &c.suggest {
            Some(s) => {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
            None if c.read => {}
            None => return exact(),
        }
    }
    if out.is_empty() {
        return exact();
    }
    out
}
