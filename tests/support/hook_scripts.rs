//! Claude Code hook tests' stand-ins: executable scripts written into the project (the
//! corpus keeps no program files), a logger script that records each JSON input, and the
//! project's `.claude/settings.json`.
use super::Env;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;

/// An executable stand-in at `rel` (under the project).
pub fn script(env: &Env, rel: &str, body: &str) {
    let p = env.cwd.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, body).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The start of a stand-in that appends its JSON input (`$input`) as one line to `log`
/// (under the project).
pub fn logger(log: &str) -> String {
    format!(
        "#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' \"$(printf '%s' \"$input\" | tr -d '\\n')\" >> \"$CLAUDE_PROJECT_DIR/{log}\"\n"
    )
}

/// The JSON inputs a [`logger`] recorded in `log`.
pub fn lines(env: &Env, log: &str) -> Vec<Value> {
    std::fs::read_to_string(env.cwd.join(log))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `.claude/settings.json` with `v`, the folder trusted.
pub fn settings(env: &Env, v: Value) {
    std::fs::create_dir_all(env.cwd.join(".claude")).unwrap();
    std::fs::write(env.cwd.join(".claude/settings.json"), v.to_string()).unwrap();
    env.trust_project();
}
