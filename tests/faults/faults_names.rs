//! Session names and paths that try to escape the projects folder are refused as usage
//! errors (exit 2) by every entry point that takes a name, and nothing is created or
//! removed anywhere; a new session's folders are 0700 and its FIFOs and files 0600 even
//! under a permissive umask.

use crate::support::checks::*;
use crate::support::*;
use std::collections::BTreeMap;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Every path under `root` with its (mode, size): a before/after snapshot.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (u32, u64)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p.clone());
            }
            out.insert(p, (m.mode(), if m.is_dir() { 0 } else { m.len() }));
        }
    }
    out
}

fn bad_names(abs: &Path) -> Vec<String> {
    vec![
        "../x".into(),
        "../victim".into(),
        "..".into(),
        ".".into(),
        "a/b".into(),
        "a/../../x".into(),
        abs.display().to_string(),
        "/".into(),
        "a\tb".into(),
        "a\u{1}b".into(),
        "a\u{1b}[31mred".into(),
        "a\u{7f}b".into(),
        "line\nbreak".into(),
        "-rf".into(),
        ".hidden".into(),
        "a b".into(),
        "~".into(),
        "a\\b".into(),
        "é".into(),
        "x".repeat(129),
    ]
}

#[test]
fn escaping_names_are_usage_errors_everywhere() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"repeat":true,"text":"ok"}]"#);
    // A real session, and a victim folder beside this project's folder.
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "real", "hi"]);
    assert!(out.status.success());
    let victim = env.project_dir().parent().unwrap().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("keep"), "precious").unwrap();
    let abs = env.dir.path().join("escaped-abs");
    let before = snapshot(env.dir.path());
    let base = mock.base("claude");
    let mut checked = 0;
    // Commands that accept a bad name or report it as something else than a usage error.
    let mut wrong: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for name in bad_names(&abs) {
        let s = format!("--session={name}");
        let agent_flags = [
            "--provider",
            "claude",
            "--base-url",
            base.as_str(),
            "--api-key",
            "k",
        ];
        let runs: Vec<Vec<&str>> = vec![
            [&agent_flags[..], &[s.as_str(), "hi"]].concat(),
            [&agent_flags[..], &[s.as_str(), "--listen"]].concat(),
            [&agent_flags[..], &[s.as_str(), "--fork", "hi"]].concat(),
            vec![s.as_str(), "--send", "x"],
            vec![s.as_str(), "--inject", "x"],
            vec![s.as_str(), "--replay"],
            vec![s.as_str(), "--replay-frames"],
            [&["compact", s.as_str()][..], &agent_flags[..]].concat(),
            vec!["undo", s.as_str()],
            vec!["usage", s.as_str()],
            vec!["sessions", "rm", "--", name.as_str()],
            vec!["sessions", "show", "--", name.as_str()],
        ];
        for args in runs {
            let mut c = env.cmd();
            c.args(&args).stdout(Stdio::null()).stderr(Stdio::piped());
            let mut child = c.spawn().unwrap();
            let st = wait_timeout(&mut child, 20);
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            assert_no_panic(&err);
            if st.code() != Some(2) || !err.contains("invalid session name") {
                let cmd = match args[0] {
                    "sessions" => args[..2].join(" "),
                    a if a.starts_with("--session") => args.last().unwrap().to_string(),
                    a => a.to_string(),
                };
                let e = wrong.entry(cmd).or_insert((0, String::new()));
                e.0 += 1;
                e.1 = format!("{name:?} -> exit {:?}: {}", st.code(), err.trim());
            }
            assert!(
                !err.contains('\u{1b}') || name.contains('\u{1b}') && err.contains("\\u{1b}"),
                "{args:?}: raw escape echoed"
            );
            checked += 1;
        }
        assert!(!abs.exists(), "{name:?} created {}", abs.display());
    }
    let after = snapshot(env.dir.path());
    let changed: Vec<_> = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(v) && !p.ends_with("index.db"))
        .map(|(p, _)| p)
        .chain(before.keys().filter(|p| !after.contains_key(*p)))
        .collect();
    // Only the mock's request record may grow (a refused run must not reach the model).
    assert!(
        changed
            .iter()
            .all(|p| p.to_string_lossy().contains("record-")),
        "bad names changed the file system: {changed:?}"
    );
    assert_eq!(
        std::fs::read_to_string(victim.join("keep")).unwrap(),
        "precious"
    );
    assert_eq!(mock.requests().len(), 1, "a refused run reached the model");
    eprintln!("{checked} refused invocations");
    assert!(
        wrong.is_empty(),
        "not refused with exit 2 (decision 8: usage error):\n{}",
        wrong
            .iter()
            .map(|(cmd, (n, ex))| format!("  {cmd}: {n} name(s), e.g. {ex}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_longest_valid_name_works() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok"}]"#);
    let name = "n".repeat(128);
    let out = env.agent(&mock.base("claude"), "claude", &["--session", &name, "hi"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(env.session_dir(&name).join("events.jsonl").is_file());
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

#[test]
fn new_session_permissions_under_umask_0() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"text":"writing","tool_calls":[{"name":"Write","id":"w","input":{"path":"f.txt","content":"a\n"}}]},{"repeat":true,"text":"ok"}]"#,
    );
    let mut c = env.cmd();
    c.args([
        "--provider",
        "claude",
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "k",
    ])
    .args(["--session", "P", "--listen"])
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    // SAFETY: umask(2) is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        c.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let mut agent = Guard(c.spawn().unwrap());
    let sdir = env.session_dir("P");
    let fifo = sdir.join("input.fifo");
    wait_until("the agent to serve input.fifo", 20, || {
        bash_agent::ipc::client::has_reader(&fifo)
    });
    // One turn with a file change, so the ledger and file history exist too.
    bash_agent::ipc::fifo::write_frame(
        &fifo,
        &bash_agent::ipc::resp::Frame::new(["USER_INPUT", "0", "write"]),
    )
    .unwrap();
    wait_until("three finished turns", 20, || {
        events(&sdir.join("events.jsonl"))
            .iter()
            .filter(|e| e["type"] == "stop")
            .count()
            >= 3
    });
    wait_until("the running flag to go", 5, || {
        !sdir.join("agent_running.flag").exists()
    });

    for f in ["input.fifo", "notify.fifo"] {
        let m = std::fs::symlink_metadata(sdir.join(f)).unwrap();
        assert!(m.file_type().is_fifo(), "{f} is not a FIFO");
        assert_eq!(mode(&sdir.join(f)), 0o600, "{f}");
    }
    // Every folder from ~/.bash-agent down is 0700, every file in them 0600.
    let agent_home = env.home.join(".bash-agent");
    assert_eq!(mode(&agent_home), 0o700, "{}", agent_home.display());
    let mut n = 0;
    let mut stack = vec![agent_home.join("projects")];
    while let Some(d) = stack.pop() {
        assert_eq!(mode(&d), 0o700, "{}", d.display());
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(p);
            } else {
                let m = mode(&p);
                assert_eq!(m & 0o077, 0, "{} is {m:o}: readable by others", p.display());
                n += 1;
            }
        }
    }
    assert!(n >= 8, "only {n} files checked");
    bash_agent::ipc::fifo::write_frame(&fifo, &bash_agent::ipc::resp::Frame::new(["SESSION_END"]))
        .unwrap();
    assert_eq!(wait_timeout(&mut agent, 20).code(), Some(0));
    check_tree(&env.home);
}
