//! The permission policy's promises, one table row per shape: normalised paths
//! (`/dev/fd/..`, `/proc/self/root`), variables assigned in the command, privileged
//! commands behind wrappers that take options or behind quotes, and the home wherever
//! HOME points. The file guard follows symlinks in the parent chain.
use super::tools_policy::assert_classified;
use bash_agent::tools::policy::{classify_in, file_required, Access, Places};
use std::path::Path;

fn places(home: &str) -> Places {
    Places::new(
        Path::new("/home/u/proj"),
        Path::new("/home/u/.bash-agent/projects"),
        Path::new(home),
    )
}

/// (command, required bits) with HOME=/home/u.
const TABLE: &[(&str, u32)] = &[
    // normalised before scoping
    ("cat /dev/fd/../../../etc/passwd", 0o4000),
    ("cat /dev/fd/../environ", 0o4000),
    ("cat /dev/fd/3", 0o0004),
    ("echo x > /dev/fd/2", 0o0002),
    ("cat /proc/self/root/etc/shadow", 0o4000),
    ("cat /proc/self/root/home/u/proj/a.txt", 0o0004),
    ("echo x > /proc/self/root/opt/x", 0o0200),
    ("cat /proc/1/root/etc/hosts", 0o4000),
    ("cat /proc/thread-self/root/etc/hosts", 0o4000),
    ("cat /proc/self/cwd/src/main.rs", 0o0004),
    // variables assigned in the command
    ("F=/etc/passwd; cat $F", 0o4000),
    ("F=/etc/passwd; cat ${F}", 0o4000),
    ("F=\"/etc/passwd\"; cat \"$F\"", 0o4000),
    ("D=../outside; echo x > $D/f", 0o0200),
    ("D=/opt; E=$D/x; echo hi > $E", 0o0200),
    ("export T=/etc/hosts && cat $T", 0o4000),
    ("N=src; cat $N/main.rs", 0o0004),
    ("cat $UNSET/x", 0o0004),
    // privileged commands behind wrappers with options
    ("env -i sudo ls", 0o1000),
    ("env -u PATH sudo ls", 0o1000),
    ("env -i A=1 sudo ls", 0o1000),
    ("env -- sudo ls", 0o1000),
    ("time -p sudo ls", 0o1000),
    ("exec -a name sudo ls", 0o1000),
    ("nice -n 10 sudo ls", 0o1000),
    ("nice -5 sudo ls", 0o1000),
    ("nohup sudo ls", 0o1000),
    ("command sudo ls", 0o1000),
    ("builtin sudo", 0o1000),
    ("stdbuf -o0 sudo ls", 0o1000),
    ("stdbuf -o 0 sudo ls", 0o1000),
    ("timeout 5 sudo ls", 0o1000),
    ("timeout -s KILL 5 sudo ls", 0o1000),
    ("setsid sudo ls", 0o1000),
    ("setsid -f doas ls", 0o1000),
    ("echo x | xargs sudo rm", 0o1000),
    ("echo x | xargs -n 1 sudo ls", 0o1000),
    ("nohup nice -n 5 timeout 9 sudo ls", 0o1000),
    // quoted or escaped
    ("\"sudo\" ls", 0o1000),
    ("'sudo' ls", 0o1000),
    ("s\\udo ls", 0o1000),
    ("su\"\"do ls", 0o1000),
    ("\"su\" -", 0o1000),
    // not privileged
    ("command -v sudo", 0o0004),
    ("timeout 5 ls", 0o0004),
    ("env FOO=1 make", 0o0001),
    ("echo sudo", 0o0004),
];

#[test]
fn policy_shapes() {
    let p = places("/home/u");
    assert_classified(TABLE, &p);
}

#[test]
fn home_is_the_home_wherever_it_points() {
    let p = Places::new(
        Path::new("/srv/proj"),
        Path::new("/root/.bash-agent/projects"),
        Path::new("/root"),
    );
    let cases: &[(&str, u32)] = &[
        ("cat ~/notes.txt", 0o0400),
        ("cat $HOME/notes.txt", 0o0400),
        ("cat /root/notes.txt", 0o0400),
        ("echo x > ~/f", 0o0200),
        ("cat ~/.ssh/id_rsa", 0o4000),
        ("cat /etc/hosts", 0o4000),
        ("cat /root/.bash-agent/projects/x/plan.md", 0o0004),
    ];
    for (cmd, want) in cases {
        assert_eq!(classify_in(cmd, &p), *want, "{cmd}");
    }
    assert_eq!(file_required("~/x", Access::Write, &p), 0o0200);
}

#[test]
fn file_guard_follows_symlinks_in_the_parent_chain() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let cwd = root.join("proj");
    let out = root.join("outside");
    std::fs::create_dir_all(cwd.join("real")).unwrap();
    std::fs::create_dir_all(out.join("deep")).unwrap();
    std::os::unix::fs::symlink(&out, cwd.join("link")).unwrap();
    std::os::unix::fs::symlink("../outside/deep", cwd.join("rel-link")).unwrap();
    std::os::unix::fs::symlink("link", cwd.join("chain")).unwrap();
    // A link to a system folder: the guard decides on where the kernel would write.
    std::os::unix::fs::symlink("/etc", cwd.join("etc-link")).unwrap();
    let p = Places::new(
        &cwd,
        Path::new("/nonexistent/projects"),
        Path::new("/home/u"),
    );
    for t in [
        "etc-link/x",
        "etc-link/newdir/../x",
        "etc-link/a/b/../../x",
        "real/../etc-link/new/../x",
    ] {
        assert_eq!(file_required(t, Access::Write, &p), 0o2000, "{t}");
    }
    assert_eq!(file_required("real/new/../x", Access::Write, &p), 0o0004);
    let cases: &[(&str, bool)] = &[
        ("link/f.txt", true),
        ("link/newdir/../f.txt", true),
        ("link/newdir/more/../../f.txt", true),
        ("rel-link/f.txt", true),
        ("rel-link/../f.txt", true),
        ("chain/x/../y", true),
        ("real/../f.txt", false),
        ("real/new/../f.txt", false),
        ("new/dir/f.txt", false),
    ];
    for (t, outside) in cases {
        let real = bash_agent::tools::policy::physical(&cwd.join(t));
        assert_eq!(
            !real.starts_with(&cwd),
            *outside,
            "{t} resolves to {}",
            real.display()
        );
    }
    assert_eq!(
        bash_agent::tools::policy::physical(&cwd.join("link/newdir/../f.txt")),
        out.join("f.txt")
    );
    assert_eq!(
        bash_agent::tools::policy::physical(&cwd.join("rel-link/../f.txt")),
        out.join("f.txt")
    );
}
