//! Undo of the agent's file changes: Write, Edit and created files across two turns,
//! refusal on an outside change, --force, and a running session.

use crate::support::*;
use bash_agent::history::files::{self as history, after_change, before_change};
use bash_agent::history::undo::{take_pending_note, undo};
use std::fs;
use std::os::unix::fs::PermissionsExt;

fn write(p: &std::path::Path, s: &str) {
    fs::write(p, s).unwrap();
}
fn read(p: &std::path::Path) -> String {
    fs::read_to_string(p).unwrap()
}

#[test]
fn undo_write_edit_and_created_file_across_two_turns() {
    let env = Env::new();
    let s = env.session("work");
    let a = env.cwd.join("a.txt");
    let b = env.cwd.join("b.sh");
    let created = env.cwd.join("sub/new.txt");
    write(&a, "one\n");
    write(&b, "#!/bin/sh\necho b\n");
    fs::set_permissions(&b, fs::Permissions::from_mode(0o750)).unwrap();

    // Turn 1: Write a.txt, create sub/new.txt.
    before_change(&s, 1, &a, "toolu_1");
    write(&a, "two\n");
    before_change(&s, 1, &a, "toolu_2"); // same turn: the first version is kept
    write(&a, "two!\n");
    after_change(&s, 1, &a);
    fs::create_dir_all(created.parent().unwrap()).unwrap();
    before_change(&s, 1, &created, "toolu_3");
    write(&created, "fresh\n");
    after_change(&s, 1, &created);
    // Turn 2: Edit a.txt and b.sh.
    before_change(&s, 2, &a, "toolu_4");
    write(&a, "three\n");
    after_change(&s, 2, &a);
    before_change(&s, 2, &b, "toolu_5");
    fs::write(&b, "#!/bin/sh\necho B\n").unwrap();
    after_change(&s, 2, &b);

    let idx = read(&history::index_path(&s));
    assert_eq!(
        idx.lines()
            .filter(|l| l.contains("\"op\":\"before\""))
            .count(),
        4
    );
    assert!(idx.contains("\"existed\":false"));

    // Undo turn 2 through the CLI (default session = the latest one).
    let o = env.run(&["undo"]);
    expect_code(&o, 0);
    assert!(stdout(&o).contains("restored"), "{}", stdout(&o));
    assert_eq!(read(&a), "two!\n");
    assert_eq!(read(&b), "#!/bin/sh\necho b\n");
    assert_eq!(
        fs::metadata(&b).unwrap().permissions().mode() & 0o777,
        0o750
    );
    assert_eq!(read(&created), "fresh\n");

    // The model is told once.
    let note = take_pending_note(&s).expect("a pending note");
    assert!(note.contains("turn 2") && note.contains("b.sh"), "{note}");
    assert_eq!(take_pending_note(&s), None);

    // A second undo goes further back: turn 1.
    let o = env.run(&["undo", "--session", "work", "--json"]);
    expect_code(&o, 0);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["turns"], serde_json::json!([1]));
    assert_eq!(read(&a), "one\n");
    assert!(!created.exists(), "a created file is removed");
    assert!(v["removed"][0].as_str().unwrap().ends_with("sub/new.txt"));

    // Nothing left.
    let o = env.run(&["undo", "--session", "work"]);
    expect_code(&o, 1);
    assert!(stderr(&o).contains("nothing to undo"), "{}", stderr(&o));

    // Two undo events were logged, with the files.
    let ev = read(&s.events());
    let undos: Vec<&str> = ev
        .lines()
        .filter(|l| l.starts_with("{\"type\":\"undo\""))
        .collect();
    assert_eq!(undos.len(), 2, "{ev}");
    assert!(undos[0].contains("\"turns\":1") && undos[0].contains("b.sh"));
}

#[test]
fn undo_several_turns_at_once_in_process() {
    let env = Env::new();
    let s = env.session("multi");
    let a = env.cwd.join("a.txt");
    write(&a, "v0");
    for turn in 1..=3 {
        before_change(&s, turn, &a, "t");
        write(&a, &format!("v{turn}"));
        after_change(&s, turn, &a);
    }
    let r = undo(&s, 2, false).unwrap();
    assert_eq!(r.turns, vec![3, 2]);
    assert_eq!(read(&a), "v1");
    assert!(r.to_string().contains("restored"));
    let r = undo(&s, 5, false).unwrap();
    assert_eq!(r.turns, vec![1]);
    assert_eq!(read(&a), "v0");
    assert!(undo(&s, 0, false).is_err());
}

#[test]
fn refuses_outside_change_unless_forced() {
    let env = Env::new();
    let s = env.session("guard");
    let a = env.cwd.join("a.txt");
    let gone = env.cwd.join("gone.txt");
    write(&a, "original\n");
    write(&gone, "keep me\n");
    before_change(&s, 1, &a, "t1");
    write(&a, "agent\n");
    after_change(&s, 1, &a);
    before_change(&s, 1, &gone, "t2");
    write(&gone, "agent too\n");
    after_change(&s, 1, &gone);
    // Someone edits a.txt and deletes gone.txt outside the agent.
    write(&a, "user's work\n");
    fs::remove_file(&gone).unwrap();

    let o = env.run(&["undo", "--session", "guard"]);
    expect_code(&o, 1);
    let err = stderr(&o);
    assert!(err.contains("changed outside the agent"), "{err}");
    assert!(
        err.contains("a.txt (modified)") && err.contains("gone.txt (deleted)"),
        "{err}"
    );
    assert!(err.contains("--force"));
    assert_eq!(read(&a), "user's work\n", "nothing restored on refusal");
    assert!(!s.dir.join("undo.pending").exists());

    let o = env.run(&["undo", "--session", "guard", "--force"]);
    expect_code(&o, 0);
    assert_eq!(read(&a), "original\n");
    assert_eq!(read(&gone), "keep me\n");
    assert!(stdout(&o).contains("overwrote an outside change"));
}

#[test]
fn refuses_a_running_session_and_bad_names() {
    let env = Env::new();
    let s = env.session("busy");
    let a = env.cwd.join("a.txt");
    write(&a, "x");
    before_change(&s, 1, &a, "t");
    write(&a, "y");
    after_change(&s, 1, &a);
    let lock = bash_agent::session::lock::SessionLock::acquire(&s.dir, "busy").unwrap();
    let o = env.run(&["undo", "--session", "busy"]);
    expect_code(&o, 1);
    assert!(stderr(&o).contains("in use"), "{}", stderr(&o));
    assert_eq!(read(&a), "y");
    drop(lock);
    let o = env.run(&["undo", "--session", "../busy"]);
    assert_ne!(o.status.code(), Some(0));
    let o = env.run(&["undo", "--session", "nosuch"]);
    expect_code(&o, 1);
    let o = env.run(&["undo", "--session", "busy"]);
    expect_code(&o, 0);
    assert_eq!(read(&a), "x");
}

#[test]
fn symlinked_path_restores_the_target() {
    let env = Env::new();
    let s = env.session("link");
    let target = env.cwd.join("real.txt");
    let link = env.cwd.join("link.txt");
    write(&target, "before");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    before_change(&s, 1, &link, "t");
    write(&link, "after");
    after_change(&s, 1, &link);
    undo(&s, 1, false).unwrap();
    assert_eq!(read(&target), "before");
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
}
