//! `--add-dir DIR` under the default permission policy: the folder counts as workspace for
//! the policy, the file tools and the kernel sandbox alike, whether it is named absolute,
//! relative, with `..` or through a symlink.
//!
//! The folder outside lies under /var/tmp, not /tmp: the policy lets every command write
//! /tmp, so only a folder elsewhere shows the policy's own refusal and its lifting.
use crate::sandbox_e2e::{bash, result, run, Box_};
use serde_json::json;

/// The sandbox test box with its outside folder away from /tmp (kept alive by the TempDir).
fn setup() -> (Box_, tempfile::TempDir) {
    let mut b = crate::sandbox_e2e::setup();
    let away = tempfile::Builder::new()
        .prefix("bash-agent-add-dir")
        .tempdir_in("/var/tmp")
        .unwrap();
    b.outside = std::fs::canonicalize(away.path()).unwrap().join("outside");
    std::fs::create_dir_all(&b.outside).unwrap();
    (b, away)
}

/// `to` relative to the working directory, climbing with `..` to the root.
fn relative(b: &Box_, to: &std::path::Path) -> String {
    let ups = b.env.cwd.components().count() - 1;
    format!(
        "{}{}",
        "../".repeat(ups),
        to.display().to_string().trim_start_matches('/')
    )
}

fn write(id: &str, path: &str) -> serde_json::Value {
    json!({"name": "Write", "id": id, "input": {"path": path, "content": "one\n"}})
}

fn edit(id: &str, path: &str) -> serde_json::Value {
    json!({"name": "Edit", "id": id, "input": {"path": path, "old_string": "one", "new_string": "two"}})
}

#[test]
fn without_add_dir_the_default_policy_refuses_outside() {
    let (b, _away) = setup();
    let o = b.outside.display().to_string();
    let rs = run(
        &b,
        vec![
            bash("b", &format!("echo x > {o}/b.txt")),
            write("w", &format!("{o}/w.txt")),
        ],
        "",
        &[],
    );
    let r = result(&rs, "b");
    assert!(r.contains("blocked by bash safety policy"), "{r}");
    assert!(result(&rs, "w").starts_with("Error: "));
    assert!(!b.outside.join("b.txt").exists() && !b.outside.join("w.txt").exists());
}

#[test]
fn an_added_folder_is_workspace_for_bash_write_and_edit() {
    let (b, _away) = setup();
    let o = b.outside.display().to_string();
    std::fs::write(b.outside.join("e.txt"), "one\n").unwrap();
    let rs = run(
        &b,
        vec![
            bash("b", &format!("echo x > {o}/b.txt && echo wrote")),
            write("w", &format!("{o}/w.txt")),
            edit("e", &format!("{o}/e.txt")),
            bash(
                "rel",
                &format!(
                    "echo x > {} && echo rel-ok",
                    relative(&b, &b.outside.join("rel.txt"))
                ),
            ),
        ],
        "",
        &["--add-dir", &o],
    );
    assert_eq!(result(&rs, "b"), "wrote");
    assert!(!result(&rs, "w").starts_with("Error"), "{rs:?}");
    assert!(!result(&rs, "e").starts_with("Error"), "{rs:?}");
    assert_eq!(result(&rs, "rel"), "rel-ok");
    assert_eq!(
        std::fs::read_to_string(b.outside.join("w.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(
        std::fs::read_to_string(b.outside.join("e.txt")).unwrap(),
        "two\n"
    );
    assert!(b.outside.join("b.txt").exists() && b.outside.join("rel.txt").exists());
}

#[test]
fn relative_dotdot_and_symlinked_add_dirs() {
    let (b, _away) = setup();
    // Relative to the working directory, with a `..` through a folder of the project.
    std::fs::create_dir_all(b.env.cwd.join("sub")).unwrap();
    let rel = relative(&b, &b.outside);
    let rs = run(
        &b,
        vec![
            bash("r", &format!("echo x > {rel}/r.txt && echo r-ok")),
            write("w", &format!("{rel}/w.txt")),
        ],
        "",
        &["--add-dir", &format!("sub/../{rel}")],
    );
    assert_eq!(result(&rs, "r"), "r-ok");
    assert!(b.outside.join("w.txt").exists(), "{rs:?}");

    // A symlink to the folder: paths through the link and the real path both count.
    let link = b.env.dir.path().join("link");
    std::os::unix::fs::symlink(&b.outside, &link).unwrap();
    let l = link.display().to_string();
    let o = b.outside.display().to_string();
    std::fs::write(b.outside.join("le.txt"), "one\n").unwrap();
    let rs = run(
        &b,
        vec![
            bash("lb", &format!("echo x > {l}/lb.txt && echo lb-ok")),
            write("lw", &format!("{l}/lw.txt")),
            edit("le", &format!("{l}/le.txt")),
            bash("real", &format!("echo x > {o}/real.txt && echo real-ok")),
        ],
        "",
        &["--add-dir", &l],
    );
    assert_eq!(result(&rs, "lb"), "lb-ok");
    assert_eq!(result(&rs, "real"), "real-ok");
    assert!(b.outside.join("lw.txt").exists(), "{rs:?}");
    assert_eq!(
        std::fs::read_to_string(b.outside.join("le.txt")).unwrap(),
        "two\n"
    );
    // A folder beside the added one is still outside.
    let beside = b.outside.parent().unwrap().join("beside");
    std::fs::create_dir_all(&beside).unwrap();
    let rs = run(
        &b,
        vec![bash("x", &format!("echo x > {}/x.txt", beside.display()))],
        "",
        &["--add-dir", &l],
    );
    assert!(
        result(&rs, "x").contains("blocked by bash safety policy"),
        "{rs:?}"
    );
    assert!(!beside.join("x.txt").exists());
}
