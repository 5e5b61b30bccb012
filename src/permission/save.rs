//! The rules chosen with "always" (docs/interactive.md, "Permissions"): one rule per part of
//! a compound command, and where they are kept — this session only, the project's
//! `.bash-agent/settings.json` or the user's `~/.bash-agent/settings.json` (the person
//! picks). A saved rule is merged into the file's `permissions.allow` (the file's other keys
//! kept) and written atomically, so the next run honours it.
use super::Facts;
use serde_json::{Map, Value};
use std::path::Path;

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
}
