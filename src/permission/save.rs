//! The rules chosen with "always" (docs/interactive.md, "Permissions"): one rule per part of
//! a compound command, and where they are kept — this session only, the project's
//! `.bash-agent/settings.json` or the user's `~/.bash-agent/settings.json` (the person
//! picks). A saved rule is merged into the file's `permissions.allow` (the file's other keys
//! kept) and written atomically, so the next run honours it.
use super::Facts;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Where an "always" rule is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveTo {
    Session,
    Project,
    User,
}

/// The rules "always" proposes for a call: for Bash, one per distinct simple command the
/// parse found that is not a read (`for f in $(ls); do rm $f; done` gives `Bash(rm:*)`;
/// `git commit -m x && npm run test` gives `Bash(git commit:*)`, `Bash(npm run test:*)`),
/// or the exact command when a part cannot be named by a prefix; `whole` (the decision's
/// one suggestion) for any other tool. A pure function: the question shows the list.
pub fn proposals(f: &Facts, whole: &str, _home: &Path) -> Vec<String> {
    if f.tool == "Bash" {
        return super::bashrules::suggestions(&super::bashrules::judged(f));
    }
    vec![whole.to_string()]
}

/// Merge `rules` into `permissions.allow` of the settings file at `path` (created with its
/// folder when missing); rules already there are not added again. Written atomically.
pub fn save(path: &Path, rules: &[String]) -> Result<(), String> {
    save_to(path, None, rules).map(|_| ())
}

/// Where a save to `path` lands: a symlinked file (or folder on the way) is followed, so a
/// settings file kept in a dotfiles repository is written through its link, never replaced
/// by a copy. With `within` (the project root), a path that leads out of it is refused: a
/// repository's `.bash-agent` linked to the user's own folder must not receive the rule
/// (nor get the user's settings copied into it). docs/interactive.md, "Permissions".
pub fn target(path: &Path, within: Option<&Path>) -> Result<PathBuf, String> {
    let shown = crate::util::shown::path(path);
    // The nearest part of the path that exists (a link counts, even a broken one).
    let mut base = path.to_path_buf();
    let mut rest = Vec::new();
    while base.symlink_metadata().is_err() {
        match (base.file_name().map(|n| n.to_os_string()), base.parent()) {
            (Some(n), Some(p)) => {
                rest.push(n);
                base = p.to_path_buf();
            }
            _ => break,
        }
    }
    let mut real = std::fs::canonicalize(&base)
        .map_err(|e| format!("{shown}: a symlink that cannot be followed ({e})"))?;
    for n in rest.iter().rev() {
        real.push(n);
    }
    if let Some(root) = within {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if !real.starts_with(&root) {
            return Err(format!(
                "{shown} leads out of the project (a symlink to {}), so the rule is not saved there",
                crate::util::shown::path(&real)
            ));
        }
    }
    Ok(real)
}

/// [`save`] through [`target`]: returns the file written.
pub fn save_to(path: &Path, within: Option<&Path>, rules: &[String]) -> Result<PathBuf, String> {
    let real = target(path, within)?;
    save_file(&real, rules)?;
    Ok(real)
}

fn save_file(path: &Path, rules: &[String]) -> Result<(), String> {
    let shown = path.display();
    let mut root: Value = match std::fs::read_to_string(path) {
        Ok(t) if !t.trim().is_empty() => {
            serde_json::from_str(&t).map_err(|e| format!("{shown}: invalid JSON: {e}"))?
        }
        Ok(_) => Value::Object(Map::new()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(e) => return Err(format!("{shown}: {e}")),
    };
    let obj = root
        .as_object_mut()
        .ok_or_else(|| format!("{shown}: not a JSON object"))?;
    let perms = obj
        .entry("permissions")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| format!("{shown}: permissions must be an object"))?;
    let allow = perms
        .entry("allow")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| format!("{shown}: permissions.allow must be an array"))?;
    for r in rules {
        if !allow.iter().any(|v| v.as_str() == Some(r)) {
            allow.push(Value::String(r.clone()));
        }
    }
    let mut text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
    text.push('\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    crate::util::fsx::write_atomic(path, text.as_bytes()).map_err(|e| format!("{shown}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(c: &str) -> Facts {
        Facts {
            tool: "Bash".into(),
            command: Some(c.into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_rule_per_simple_command_each_once() {
        let home = Path::new("/home/x");
        let f = bash("for f in $(ls); do rm -f $f; touch $f.new; rm x; done");
        assert_eq!(proposals(&f, "", home), ["Bash(rm:*)", "Bash(touch:*)"]);
        let f = bash("git commit -m 'a b' && npm run test -- -x 2>&1 | head");
        assert_eq!(
            proposals(&f, "", home),
            ["Bash(git commit:*)", "Bash(npm run test:*)"]
        );
        assert_eq!(proposals(&bash("FOO=1 rm x"), "", home), ["Bash(rm:*)"]);
        assert_eq!(proposals(&bash("ls -l /etc"), "", home), ["Bash(ls:*)"]);
    }

    #[test]
    fn saving_merges_into_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".bash-agent/settings.json");
        save(&p, &["Bash(ls:*)".into()]).unwrap();
        std::fs::write(
            &p,
            r#"{"model":"m","permissions":{"deny":["Write"],"allow":["Bash(ls:*)"]}}"#,
        )
        .unwrap();
        save(&p, &["Bash(ls:*)".into(), "Edit".into()]).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["model"], "m");
        assert_eq!(v["permissions"]["deny"][0], "Write");
        assert_eq!(
            v["permissions"]["allow"],
            serde_json::json!(["Bash(ls:*)", "Edit"])
        );
        std::fs::write(&p, "[1]").unwrap();
        assert!(save(&p, &["Edit".into()]).is_err());
    }

    /// Issue 42, item 2: a project's `.bash-agent` (or its settings file) linked out of the
    /// project receives nothing; the user's own file linked into a dotfiles folder is
    /// written through its link.
    #[test]
    fn never_through_a_link_out_of_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        let user = dir.path().join("home/.bash-agent");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&user).unwrap();
        let secret = r#"{"api_key":"sk-secret"}"#;
        std::fs::write(user.join("settings.json"), secret).unwrap();
        let rule = ["Bash(make:*)".to_string()];
        // The folder linked to the user's folder.
        std::os::unix::fs::symlink(&user, root.join(".bash-agent")).unwrap();
        let p = root.join(".bash-agent/settings.json");
        let e = save_to(&p, Some(&root), &rule).unwrap_err();
        assert!(e.contains("leads out of the project"), "{e}");
        assert_eq!(
            std::fs::read_to_string(user.join("settings.json")).unwrap(),
            secret
        );
        // The file linked to the user's file.
        std::fs::remove_file(root.join(".bash-agent")).unwrap();
        std::fs::create_dir(root.join(".bash-agent")).unwrap();
        std::os::unix::fs::symlink(user.join("settings.json"), &p).unwrap();
        assert!(save_to(&p, Some(&root), &rule).is_err());
        assert!(p.is_symlink());
        assert_eq!(
            std::fs::read_to_string(user.join("settings.json")).unwrap(),
            secret
        );
        // A dangling link is refused too.
        std::fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink(dir.path().join("nowhere/x.json"), &p).unwrap();
        assert!(save_to(&p, Some(&root), &rule).is_err());
        assert!(!dir.path().join("nowhere").exists());
        // A link inside the project is followed.
        std::fs::remove_file(&p).unwrap();
        std::fs::write(root.join("shared.json"), "{}").unwrap();
        std::os::unix::fs::symlink(root.join("shared.json"), &p).unwrap();
        assert_eq!(
            save_to(&p, Some(&root), &rule).unwrap(),
            std::fs::canonicalize(&root).unwrap().join("shared.json")
        );
        assert!(p.is_symlink());
        // The user's file in a dotfiles folder: written through the link.
        let dots = dir.path().join("dotfiles/bash-agent.json");
        std::fs::create_dir_all(dots.parent().unwrap()).unwrap();
        std::fs::write(&dots, secret).unwrap();
        let link = dir.path().join("home/.bash-agent/linked.json");
        std::os::unix::fs::symlink(&dots, &link).unwrap();
        save_to(&link, None, &rule).unwrap();
        assert!(link.is_symlink());
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&dots).unwrap()).unwrap();
        assert_eq!(v["api_key"], "sk-secret");
        assert_eq!(v["permissions"]["allow"][0], "Bash(make:*)");
    }
}
