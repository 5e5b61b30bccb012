//! The listing cache (`<project>/.list-cache`): `--list-sessions` prints the same bytes
//! whether the cache is missing, fresh, stale after a session written by another program
//! (the shell version does not know the cache), or garbage; and it is rebuilt silently.

use crate::support::*;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The listing computed here from the files alone: the reference the binary must match.
fn expected(project: &Path) -> String {
    let mut rows: Vec<(i128, String, i64, String)> = Vec::new();
    for e in std::fs::read_dir(project).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !e.file_type().unwrap().is_dir() || name.starts_with('.') {
            continue;
        }
        let m = std::fs::metadata(e.path().join("events.jsonl"))
            .or_else(|_| std::fs::metadata(e.path()))
            .unwrap();
        let key = m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128;
        let summary = std::fs::read_to_string(e.path().join("summary.txt")).unwrap_or_default();
        let line = summary
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string();
        let preview = if line.chars().count() > 60 {
            format!("{}...", line.chars().take(57).collect::<String>())
        } else {
            line
        };
        rows.push((key, name, m.mtime(), preview));
    }
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut s = format!("{:<40} {:<16} {}\n", "NAME", "MODIFIED", "PREVIEW");
    for (_, name, secs, preview) in rows {
        let when = bash_agent::util::time::local_minute(secs);
        s.push_str(&format!("{name:<40} {when:<16} {preview}\n"));
    }
    s
}

fn list(env: &Env) -> String {
    let o = env.run(&["--list-sessions"]);
    expect_code(&o, 0);
    stdout(&o)
}

/// A session as the shell version leaves one: its files written in place, no cache.
fn shell_session(project: &Path, name: &str, summary: Option<&str>) {
    let d = project.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("events.jsonl"),
        format!("{{\"type\":\"session_start\",\"session_id\":\"{name}\"}}\n"),
    )
    .unwrap();
    std::fs::write(d.join("conversation.jsonl"), "").unwrap();
    if let Some(s) = summary {
        std::fs::write(d.join("summary.txt"), s).unwrap();
    }
}

fn cache(project: &Path) -> String {
    std::fs::read_to_string(project.join(".list-cache")).unwrap_or_default()
}

/// List until the cache holds `n` entries (a summary is recorded once it has been left
/// alone for a moment); every listing on the way must be the expected one.
fn list_until_cached(env: &Env, n: usize) {
    let project = env.project_dir();
    wait_until(&format!("a cache of {n} entries"), 15, || {
        assert_eq!(list(env), expected(&project));
        let ok = cache(&project).ends_with(&format!("\nend {n}\n"));
        if !ok {
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        ok
    });
}

fn three_sessions(env: &Env) -> std::path::PathBuf {
    let project = env.project_dir();
    shell_session(
        &project,
        "20260101-000001-aaaa",
        Some("\n\nFirst summary line\nmore\n"),
    );
    shell_session(&project, "20260101-000002-bbbb", None);
    shell_session(&project, "sub_20260101-000003-cccc", Some(&"y".repeat(80)));
    project
}

#[test]
fn cache_missing_is_built_and_then_used() {
    let env = Env::new();
    let project = three_sessions(&env);
    assert!(!project.join(".list-cache").exists());
    list_until_cached(&env, 3);
    // The listing reads the preview from the cache: a recorded preview changed by hand
    // (the stamp left as it is) shows.
    let text = cache(&project).replace("First summary line", "Fyrst summary line");
    std::fs::write(project.join(".list-cache"), text).unwrap();
    assert!(list(&env).contains(" Fyrst summary line\n"));
    // The cache file is not a session, and never listed.
    assert!(!list(&env).contains(".list-cache"));
}

#[test]
fn stale_after_a_shell_written_session() {
    let env = Env::new();
    let project = three_sessions(&env);
    list_until_cached(&env, 3);
    let before = cache(&project);
    // Rewritten in place (same inode, same size), as the shell version's compaction does.
    let s1 = project.join("20260101-000001-aaaa/summary.txt");
    let ino = std::fs::metadata(&s1).unwrap().ino();
    std::fs::write(&s1, "\n\nSecond summary line\nmore\n").unwrap();
    assert_eq!(std::fs::metadata(&s1).unwrap().ino(), ino);
    // A summary appears, a new session, a removed one, an event appended elsewhere.
    std::fs::write(
        project.join("20260101-000002-bbbb/summary.txt"),
        "now one\n",
    )
    .unwrap();
    shell_session(&project, "20260101-000004-dddd", Some("fourth\n"));
    std::fs::remove_dir_all(project.join("sub_20260101-000003-cccc")).unwrap();
    bash_agent::util::fsx::append_line(
        &project.join("20260101-000001-aaaa/events.jsonl"),
        r#"{"type":"user_input","content":"again"}"#,
    )
    .unwrap();
    let now = list(&env);
    assert_eq!(now, expected(&project));
    assert!(now.contains(" Second summary line\n") && now.contains(" now one\n"));
    assert!(now
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("20260101-000001-aaaa "));
    list_until_cached(&env, 3);
    assert_ne!(cache(&project), before);
    // Rewritten in the order of the folder listing, which the next listing walks.
    let folder: Vec<String> = std::fs::read_dir(&project)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let recorded: Vec<String> = cache(&project)
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once('\t').map(|(n, _)| n.to_string()))
        .collect();
    assert_eq!(recorded, folder);
    // Without a cache the same bytes.
    let cached = list(&env);
    std::fs::remove_file(project.join(".list-cache")).unwrap();
    assert_eq!(list(&env), cached);
}

#[test]
fn corrupt_cache_is_rebuilt_silently() {
    let env = Env::new();
    let project = three_sessions(&env);
    let want = expected(&project);
    for garbage in [
        "not a cache at all\n".to_string(),
        "bash-agent list-cache 1\n20260101-000001-aaaa\t1 2 3\tbad stamp\nend 1\n".into(),
        String::from_utf8_lossy(&[0xff, 0x00, 0x13]).into_owned(),
    ] {
        std::fs::write(project.join(".list-cache"), garbage).unwrap();
        let o = env.run(&["--list-sessions"]);
        expect_code(&o, 0);
        assert_eq!(stdout(&o), want);
        assert_eq!(stderr(&o), "");
    }
    list_until_cached(&env, 3);
    // --json reads through the same cache.
    let o = env.run(&["--list-sessions", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert!(v
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["preview"] == "First summary line"));
}

#[test]
fn continue_ignores_the_cache_file() {
    let env = Env::new();
    let project = three_sessions(&env);
    list_until_cached(&env, 3);
    assert!(project.join(".list-cache").is_file());
    // The newest non-sub session is still the one `--continue` picks.
    bash_agent::util::fsx::append_line(
        &project.join("20260101-000002-bbbb/events.jsonl"),
        r#"{"type":"user_input","content":"again"}"#,
    )
    .unwrap();
    let latest = bash_agent::session::store::latest_session(&project);
    assert_eq!(latest.as_deref(), Some("20260101-000002-bbbb"));
}
