//! Path-scoped rules (`.claude/rules/**/*.md` with `paths:`), applied as Claude Code
//! applies them: when the model reads, writes or edits a file one of them matches, the
//! rule comes with that tool's result, once per run (docs/prompt.md, "Rules"). The globs
//! are relative to the folder holding the `.claude` folder of the rule (the project root
//! for the user's `~/.claude/rules`). The rules are read on the first Read/Write/Edit of a
//! run; the files already given are remembered for the process (a sub-agent has its own).
use super::{instructions, rules};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

struct Scoped {
    path: PathBuf,
    base: PathBuf,
    set: globset::GlobSet,
    text: String,
}

struct State {
    cwd: PathBuf,
    rules: Vec<Scoped>,
    given: HashSet<PathBuf>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn scoped(r: rules::Rule, base: &Path) -> Option<Scoped> {
    let mut b = globset::GlobSetBuilder::new();
    for p in &r.paths {
        let p = p.trim().trim_start_matches("./");
        if let Ok(g) = globset::GlobBuilder::new(p).literal_separator(true).build() {
            b.add(g);
        }
    }
    Some(Scoped {
        path: r.path,
        base: base.to_path_buf(),
        set: b.build().ok()?,
        text: r.text,
    })
}

fn load(cwd: &Path) -> Vec<Scoped> {
    let project = crate::settings::project_root(cwd);
    let bound = std::fs::canonicalize(&project).unwrap_or_else(|_| project.clone());
    let mut ignored = Vec::new(); // said when the prompt was built
    let mut out = Vec::new();
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let dir = PathBuf::from(home).join(".claude/rules");
        for r in rules::load(&dir, None, &mut ignored) {
            out.extend((!r.paths.is_empty()).then(|| scoped(r, &project)).flatten());
        }
    }
    for d in instructions::chain(cwd) {
        for r in rules::load(&d.join(".claude/rules"), Some(&bound), &mut ignored) {
            out.extend((!r.paths.is_empty()).then(|| scoped(r, &d)).flatten());
        }
    }
    out
}

/// The rules a Read/Write/Edit of `input`'s file brings that this run has not given yet,
/// as text to append to the tool's result; None for other tools and files.
pub fn for_touched(cwd: &Path, tool: &str, input: &Value) -> Option<String> {
    if !matches!(tool, "Read" | "Write" | "Edit") {
        return None;
    }
    let file = input
        .get("path")
        .or_else(|| input.get("file_path"))
        .and_then(Value::as_str)?;
    let abs = cwd.join(file);
    let mut g = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if g.as_ref().is_none_or(|s| s.cwd != cwd) {
        *g = Some(State {
            cwd: cwd.to_path_buf(),
            rules: load(cwd),
            given: HashSet::new(),
        });
    }
    let st = g.as_mut()?;
    let mut parts = Vec::new();
    for r in &st.rules {
        let Ok(rel) = abs.strip_prefix(&r.base) else {
            continue;
        };
        if st.given.contains(&r.path) || !r.set.is_match(rel) {
            continue;
        }
        st.given.insert(r.path.clone());
        parts.push(format!(
            "<system-reminder>\nThe project rule {} applies to {file}:\n{}\n</system-reminder>",
            r.path.display(),
            r.text
        ));
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}
