//! Read, Write and Edit against real files, including hostile inputs.
use crate::support::tools::{ctx, env, run, NoHost, Rec};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

#[test]
fn read_numbers_lines_like_cat_n() {
    let e = env();
    std::fs::write(e.cwd.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let out = run(&ctx(&e, &NoHost), "Read", &json!({"path": "notes.txt"}));
    assert!(out.ok);
    assert_eq!(out.conv, "     1\talpha\n     2\tbeta\n     3\tgamma\n");
    assert_eq!(
        out.display,
        format!("Read(notes.txt) [3 lines, 17 bytes]\n{}", out.conv)
    );
    let cat = std::process::Command::new("cat")
        .arg("-n")
        .arg(e.cwd.join("notes.txt"))
        .output()
        .unwrap();
    assert_eq!(out.conv.as_bytes(), &cat.stdout[..]);
}

#[test]
fn read_offset_and_limit() {
    let e = env();
    let text: String = (1..=10).map(|i| format!("l{i}\n")).collect();
    std::fs::write(e.cwd.join("f.txt"), &text).unwrap();
    let c = ctx(&e, &NoHost);
    let out = run(
        &c,
        "Read",
        &json!({"path": "f.txt", "offset": 3, "limit": 2}),
    );
    assert_eq!(out.conv, "     3\tl3\n     4\tl4\n");
    assert!(out
        .display
        .starts_with("Read(f.txt) [10 lines, 31 bytes, offset=3, limit=2]\n"));
    let out = run(&c, "Read", &json!({"path": "f.txt", "offset": "9"}));
    assert_eq!(out.conv, "     9\tl9\n    10\tl10\n");
    assert!(out
        .display
        .starts_with("Read(f.txt) [10 lines, 31 bytes, offset=9, limit=10]"));
    let out = run(
        &c,
        "Read",
        &json!({"path": "f.txt", "offset": 0, "limit": 1}),
    );
    assert_eq!(out.conv, "     1\tl1\n", "offset 0 reads from the start");
    let out = run(&c, "Read", &json!({"path": "f.txt", "offset": 50}));
    assert!(out.ok && out.conv.contains("past the end"), "{}", out.conv);
    let out = run(&c, "Read", &json!({"path": "f.txt", "offset": "abc"}));
    assert!(
        !out.ok && out.conv.starts_with("Error: invalid offset"),
        "{}",
        out.conv
    );
}

#[test]
fn read_refuses_binary_and_replaces_bad_utf8() {
    let e = env();
    std::fs::write(e.cwd.join("bin.dat"), b"\x7fELF\x00\x01\x02").unwrap();
    std::fs::write(e.cwd.join("latin1.txt"), b"caf\xe9\nok\n").unwrap();
    let c = ctx(&e, &NoHost);
    let out = run(&c, "Read", &json!({"path": "bin.dat"}));
    assert!(!out.ok);
    assert!(
        out.conv
            .starts_with("Error: bin.dat is a binary file (7 bytes)"),
        "{}",
        out.conv
    );
    let out = run(&c, "Read", &json!({"path": "latin1.txt"}));
    assert!(out.ok);
    assert_eq!(out.conv, "     1\tcaf\u{FFFD}\n     2\tok\n");
}

#[test]
fn read_errors() {
    let e = env();
    std::fs::create_dir(e.cwd.join("d")).unwrap();
    let c = ctx(&e, &NoHost);
    assert_eq!(run(&c, "Read", &json!({})).conv, "Error: no path provided");
    assert_eq!(
        run(&c, "Read", &json!({"path": "nope.txt"})).conv,
        "Error: file not found: nope.txt"
    );
    assert_eq!(
        run(&c, "Read", &json!({"path": "d"})).conv,
        "Error: file not found: d"
    );
}

#[test]
fn read_caps_huge_files_with_a_continuation_note() {
    let e = env();
    let text: String = (1..=100_000)
        .map(|i| format!("line number {i}\n"))
        .collect();
    std::fs::write(e.cwd.join("big.txt"), &text).unwrap();
    let mut c = ctx(&e, &NoHost);
    c.max_result_bytes = 10_000;
    let out = run(&c, "Read", &json!({"path": "big.txt"}));
    assert!(out.ok);
    assert!(out.conv.len() <= 10_000, "{}", out.conv.len());
    assert!(out.conv.starts_with("     1\tline number 1\n"));
    let note = out.conv.lines().last().unwrap();
    assert!(note.contains("of 100000; use offset="), "{note}");
    let next: usize = note
        .split("offset=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let shown = out.conv.lines().count() - 1;
    assert_eq!(next, shown + 1);
    // A single enormous line is cut, not dropped.
    std::fs::write(e.cwd.join("one.txt"), "x".repeat(1_000_000)).unwrap();
    let out = run(&c, "Read", &json!({"path": "one.txt"}));
    assert!(out.ok && out.conv.len() <= 10_000 && out.conv.starts_with("     1\txxx"));
}

#[test]
fn paths_with_spaces_and_newlines() {
    let e = env();
    let c = ctx(&e, &NoHost);
    for name in ["a b/c d.txt", "new\nline.txt"] {
        let out = run(&c, "Write", &json!({"path": name, "content": "hi\n"}));
        assert!(out.ok, "{}", out.conv);
        assert_eq!(std::fs::read_to_string(e.cwd.join(name)).unwrap(), "hi\n");
        let out = run(&c, "Read", &json!({"path": name}));
        assert_eq!(out.conv, "     1\thi\n");
        let out = run(
            &c,
            "Edit",
            &json!({"path": name, "old_string": "hi", "new_string": "yo"}),
        );
        assert!(out.ok, "{}", out.conv);
        assert_eq!(std::fs::read_to_string(e.cwd.join(name)).unwrap(), "yo\n");
    }
}

#[test]
fn write_exact_bytes_parents_and_summary() {
    let e = env();
    let rec = Rec::default();
    let c = ctx(&e, &rec);
    let out = run(
        &c,
        "Write",
        &json!({"path": "deep/er/f.txt", "content": "line1\nline2\nline3"}),
    );
    assert!(out.ok);
    assert_eq!(out.conv, "OK: wrote 17 bytes to deep/er/f.txt");
    assert_eq!(
        out.display,
        "Write(deep/er/f.txt) [3 lines, 17 bytes]\nOK: wrote 17 bytes to deep/er/f.txt"
    );
    assert_eq!(
        std::fs::read(e.cwd.join("deep/er/f.txt")).unwrap(),
        b"line1\nline2\nline3"
    );
    assert_eq!(
        rec.calls(),
        vec![format!(
            "change:{}|toolu_t1",
            e.cwd.join("deep/er/f.txt").display()
        )]
    );
    let out = run(&c, "Write", &json!({"path": "empty.txt", "content": ""}));
    assert!(out.ok && std::fs::read(e.cwd.join("empty.txt")).unwrap().is_empty());
    assert_eq!(
        run(&c, "Write", &json!({"path": "x"})).conv,
        "Error: no content provided"
    );
}

#[test]
fn write_keeps_mode_and_symlinks_and_reports_failures() {
    let e = env();
    let c = ctx(&e, &NoHost);
    let f = e.cwd.join("script.sh");
    std::fs::write(&f, "old").unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o750)).unwrap();
    assert!(
        run(
            &c,
            "Write",
            &json!({"path": "script.sh", "content": "#!/bin/sh\n"})
        )
        .ok
    );
    assert_eq!(
        std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
        0o750
    );
    std::os::unix::fs::symlink("script.sh", e.cwd.join("link.sh")).unwrap();
    assert!(
        run(
            &c,
            "Write",
            &json!({"path": "link.sh", "content": "via link"})
        )
        .ok
    );
    assert!(std::fs::symlink_metadata(e.cwd.join("link.sh"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "via link");
    // A path below a regular file cannot be created: reported, not "OK".
    let out = run(
        &c,
        "Write",
        &json!({"path": "script.sh/sub.txt", "content": "x"}),
    );
    assert!(
        !out.ok && out.conv.starts_with("Error: cannot create directory"),
        "{}",
        out.conv
    );
    let out = run(&c, "Write", &json!({"path": ".", "content": "x"}));
    assert!(!out.ok && out.conv.contains("is a directory"));
}

#[test]
fn edit_matches_the_reference_output() {
    let e = env();
    std::fs::write(e.cwd.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let rec = Rec::default();
    let out = run(
        &ctx(&e, &rec),
        "Edit",
        &json!({"path": "notes.txt", "old_string": "beta", "new_string": "BETA"}),
    );
    assert!(out.ok);
    assert_eq!(out.conv, "Success: Edit(notes.txt) [+1 -1 lines]");
    assert_eq!(
        out.display,
        "Success: Edit(notes.txt) [+1 -1 lines]\n\u{1b}[1m--- a/notes.txt\u{1b}[0m\n\u{1b}[1m+++ b/notes.txt\u{1b}[0m\n\u{1b}[36m@@ -1,3 +1,3 @@\u{1b}[0m\n alpha\n\u{1b}[31m-beta\u{1b}[0m\n\u{1b}[32m+BETA\u{1b}[0m\n gamma\n"
    );
    assert_eq!(
        std::fs::read_to_string(e.cwd.join("notes.txt")).unwrap(),
        "alpha\nBETA\ngamma\n"
    );
    assert_eq!(rec.calls().len(), 1);
}

#[test]
fn edit_first_occurrence_and_errors() {
    let e = env();
    let c = ctx(&e, &NoHost);
    let f = e.cwd.join("m.txt");
    std::fs::write(&f, "x = 1\nx = 1\nx = 1\n").unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(
        &c,
        "Edit",
        &json!({"path": "m.txt", "old_string": "x = 1", "new_string": "x = 2"}),
    );
    assert!(out.ok);
    assert_eq!(out.conv, "Success: Edit(m.txt) [+1 -1 lines] (note: old_string occurs 3 times; only the first occurrence was replaced)");
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        "x = 2\nx = 1\nx = 1\n"
    );
    assert_eq!(
        std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let out = run(
        &c,
        "Edit",
        &json!({"path": "m.txt", "old_string": "zzz", "new_string": "y"}),
    );
    assert_eq!(out.conv, "Error: old_string not found in m.txt. Hint: Read the file and copy exact bytes (including whitespace/indent/newlines) before retrying Edit.");
    assert_eq!(
        run(
            &c,
            "Edit",
            &json!({"path": "m.txt", "old_string": "", "new_string": "y"})
        )
        .conv,
        "Error: empty old_string"
    );
    assert_eq!(
        run(
            &c,
            "Edit",
            &json!({"path": "none.txt", "old_string": "a", "new_string": "b"})
        )
        .conv,
        "Error: file not found: none.txt"
    );
    assert_eq!(
        run(&c, "Edit", &json!({"old_string": "a"})).conv,
        "Error: no path provided"
    );
    // An edit may empty the file.
    let whole = std::fs::read_to_string(&f).unwrap();
    let out = run(
        &c,
        "Edit",
        &json!({"path": "m.txt", "old_string": whole, "new_string": ""}),
    );
    assert!(out.ok);
    assert_eq!(out.conv, "Success: Edit(m.txt) [+0 -3 lines]");
    assert_eq!(std::fs::read(&f).unwrap().len(), 0);
}

#[test]
fn edit_files_with_invalid_utf8() {
    let e = env();
    let f = e.cwd.join("raw.bin");
    std::fs::write(&f, b"head \xff\xfe\nkeep me\n").unwrap();
    let out = run(
        &ctx(&e, &NoHost),
        "Edit",
        &json!({"path": "raw.bin", "old_string": "keep", "new_string": "kept"}),
    );
    assert!(out.ok, "{}", out.conv);
    assert_eq!(std::fs::read(&f).unwrap(), b"head \xff\xfe\nkept me\n");
}

#[test]
fn file_guard_blocks_system_paths() {
    let e = env();
    let c = ctx(&e, &NoHost);
    let out = run(&c, "Read", &json!({"path": "/etc/hostname"}));
    assert!(
        out.conv.starts_with(
            "Error: command blocked by bash safety policy (required=4000 allowed=0467"
        ),
        "{}",
        out.conv
    );
    let out = run(
        &c,
        "Write",
        &json!({"path": "/etc/should-not-exist", "content": "x"}),
    );
    assert!(out.conv.starts_with("Error: command blocked"));
    assert!(!std::path::Path::new("/etc/should-not-exist").exists());
    // The session's plan files are always writable.
    let draft = e.session.plan_draft();
    let out = run(
        &c,
        "Write",
        &json!({"path": draft.to_string_lossy(), "content": "1. step\n"}),
    );
    assert!(out.ok, "{}", out.conv);
}
