//! Glob and Grep: rg-compatible output shape, ignore rules, sorting; compared with a real
//! `rg` when one is installed.
use crate::support::tools::{ctx, env, run, NoHost, ToolFixture};
use serde_json::json;
use std::path::Path;

fn tree() -> ToolFixture {
    let e = env();
    let w = |p: &str, s: &[u8]| {
        let f = e.cwd.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, s).unwrap();
    };
    std::fs::create_dir_all(e.cwd.join(".git")).unwrap();
    w(".gitignore", b"ignored/\n*.log\n");
    w(".ignore", b"secret-dir/\n");
    w("notes.txt", b"alpha\nBETA\ngamma\n");
    w("sub/b.txt", b"one\nBETA two\n");
    w("sub/deeper/c.rs", b"fn main() {}\n// BETA\n");
    w("with space/d e.txt", b"BETA\n");
    w(".hidden.txt", b"BETA hidden\n");
    w("ignored/x.txt", b"BETA\n");
    w("build.log", b"BETA\n");
    w("secret-dir/y.txt", b"BETA\n");
    w("bin.dat", b"BETA\x00\x01\x02");
    w("ctx.txt", b"1\n2\nBETA\n4\n5\n6\n7\n8\n9\nBETA\n11\n");
    e
}

/// ripgrep's own answer, or None (reported as a skipped part of the test) when not installed.
fn rg(cwd: &Path, args: &[&str]) -> Option<String> {
    let Ok(out) = std::process::Command::new("rg")
        .args(args)
        .current_dir(cwd)
        .output()
    else {
        crate::support::skip::skip("rg not installed: the output is not compared with ripgrep's");
        return None;
    };
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn glob_lists_like_rg_files() {
    let e = tree();
    let c = ctx(&e, &NoHost);
    let out = run(&c, "Glob", &json!({"pattern": "*.txt"}));
    assert!(out.ok);
    assert_eq!(
        out.conv,
        "./.hidden.txt\n./ctx.txt\n./notes.txt\n./sub/b.txt\n./with space/d e.txt\n"
    );
    let out = run(&c, "Glob", &json!({"pattern": "*.rs", "path": "sub"}));
    assert_eq!(out.conv, "sub/deeper/c.rs\n");
    let out = run(&c, "Glob", &json!({"pattern": "*.nothing"}));
    assert!(out.ok && out.conv.is_empty());
    let abs = e.cwd.join("sub");
    let out = run(
        &c,
        "Glob",
        &json!({"pattern": "*.txt", "path": abs.to_string_lossy()}),
    );
    assert_eq!(out.conv, format!("{}\n", abs.join("b.txt").display()));
    assert_eq!(
        run(&c, "Glob", &json!({"pattern": "*", "path": "nope"})).conv,
        "Error: directory not found: nope"
    );
    assert_eq!(
        run(&c, "Glob", &json!({})).conv,
        "Error: no pattern provided"
    );
    if let Some(want) = rg(&e.cwd, &["--files", ".", "-g", "*.txt"]) {
        assert_eq!(
            sorted_lines(&out_of(&c, "Glob", json!({"pattern": "*.txt"}))),
            sorted_lines(&want)
        );
        let want = rg(&e.cwd, &["--files", ".", "-g", "sub/**"]).unwrap();
        assert_eq!(
            sorted_lines(&out_of(&c, "Glob", json!({"pattern": "sub/**"}))),
            sorted_lines(&want)
        );
    }
}

fn out_of(c: &crate::support::tools::TestCtx, tool: &str, input: serde_json::Value) -> String {
    run(c, tool, &input).conv
}

#[test]
fn grep_heading_output() {
    let e = tree();
    let c = ctx(&e, &NoHost);
    let out = run(&c, "Grep", &json!({"pattern": "BETA", "path": "."}));
    assert!(out.ok);
    assert_eq!(
        out.conv,
        "./ctx.txt\n3:BETA\n10:BETA\n\n./notes.txt\n2:BETA\n\n./sub/b.txt\n2:BETA two\n\n./sub/deeper/c.rs\n2:// BETA\n\n./with space/d e.txt\n1:BETA\n"
    );
    let out = run(
        &c,
        "Grep",
        &json!({"pattern": "BETA", "path": "ctx.txt", "context": 1}),
    );
    assert_eq!(out.conv, "2-2\n3:BETA\n4-4\n--\n9-9\n10:BETA\n11-11\n");
    let out = run(&c, "Grep", &json!({"pattern": "BETA", "glob": "*.rs"}));
    assert_eq!(out.conv, "./sub/deeper/c.rs\n2:// BETA\n");
    let out = run(&c, "Grep", &json!({"pattern": "no-such-thing"}));
    assert!(out.ok && out.conv.is_empty());
    let out = run(&c, "Grep", &json!({"pattern": "(unclosed"}));
    assert!(
        !out.ok && out.conv.starts_with("Error: invalid regex"),
        "{}",
        out.conv
    );
    assert_eq!(
        run(&c, "Grep", &json!({"pattern": "x", "path": "missing"})).conv,
        "Error: path not found: missing"
    );
    for args in [
        vec!["-n", "--color", "never", "--heading", "--", "BETA", "."],
        vec![
            "-n",
            "--color",
            "never",
            "--heading",
            "-C",
            "2",
            "--",
            "BETA",
            ".",
        ],
        vec![
            "-n",
            "--color",
            "never",
            "--heading",
            "--glob",
            "*.txt",
            "--",
            "a|B",
            ".",
        ],
    ] {
        let Some(want) = rg(&e.cwd, &args) else { break };
        let mut input = json!({"pattern": args[args.len() - 2], "path": "."});
        if let Some(i) = args.iter().position(|a| *a == "-C") {
            input["context"] = json!(args[i + 1].parse::<u64>().unwrap());
        }
        if let Some(i) = args.iter().position(|a| *a == "--glob") {
            input["glob"] = json!(args[i + 1]);
        }
        let got = run(&c, "Grep", &input).conv;
        // rg's file order is not stable; compare file blocks as sets.
        let blocks = |s: &str| {
            let mut b: Vec<String> = s.split("\n\n").map(|x| x.trim_end().to_string()).collect();
            b.sort();
            b
        };
        assert_eq!(blocks(&got), blocks(&want), "args {args:?}");
    }
}

#[test]
fn grep_invalid_utf8_lines_are_replaced() {
    let e = env();
    std::fs::write(e.cwd.join("l1.txt"), b"caf\xe9 BETA\n").unwrap();
    let out = run(&ctx(&e, &NoHost), "Grep", &json!({"pattern": "BETA"}));
    assert_eq!(out.conv, "./l1.txt\n1:caf\u{FFFD} BETA\n");
}
