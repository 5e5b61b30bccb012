//! The permission gate's Bash parse (src/permission/bashparse) under hostile input,
//! deterministically: every file of `tests/fuzz_corpus/bashparse/` (seeds and any crash
//! the cargo-fuzz target `bashparse` finds) and seeded mutations of them — cut, spliced
//! with shell syntax, nested deep. Invariants: no panic; what does not parse is never a
//! read and never runs unasked; every suggested rule parses.
use bash_agent::permission::bashparse::judge;
use bash_agent::permission::{bash_facts, decide, PermMode, Rule, RuleKind, Verdict};
use std::path::Path;

fn check(cmd: &str) {
    let j = judge(cmd);
    if !j.ok {
        assert!(!j.read_only(), "{cmd:?}");
    }
    let cwd = Path::new("/nonexistent-workspace");
    let f = bash_facts(cmd, cwd, &cwd.join(".store"));
    let v = decide(PermMode::Default, &[], &f, Path::new("/nonexistent-home"));
    if !j.ok {
        assert!(
            !matches!(v, Verdict::Allow),
            "unparsed and allowed: {cmd:?}"
        );
    }
    if let Verdict::Ask { suggest, .. } = v {
        let home = Path::new("/nonexistent-home");
        for r in bash_agent::permission::save::proposals(&f, &suggest, home) {
            assert!(
                Rule::parse(RuleKind::Allow, &r, cwd).is_ok(),
                "{cmd:?}: {r:?}"
            );
        }
    }
}

#[test]
fn bash_parse_never_panics_and_unparsed_asks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus/bashparse");
    let mut seeds: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 5);
    const PIECES: &[&str] = &[
        "$(",
        ")",
        "`",
        "'",
        "\"",
        "<<EOF\n",
        "\nEOF\n",
        "; ",
        " && ",
        " | ",
        "{ ",
        " }",
        "for x in ",
        "; do ",
        "; done",
        "case a in ",
        " esac",
        "> f",
        "2>&1",
        "$((",
        "))",
        "\\",
        "\n",
        "<(",
        "[[ ",
        " ]]",
        "f() ",
        "${x:-",
        "}",
        "\0",
        "é",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    for s in &seeds {
        check(s);
        for _ in 0..200 {
            let mut t: Vec<char> = s.chars().collect();
            for _ in 0..1 + next(4) {
                match next(3) {
                    0 if !t.is_empty() => {
                        let a = next(t.len());
                        let b = (a + next(8)).min(t.len());
                        t.drain(a..b);
                    }
                    _ => {
                        let at = next(t.len() + 1);
                        let p = PIECES[next(PIECES.len())];
                        for (k, c) in p.chars().enumerate() {
                            t.insert(at + k, c);
                        }
                    }
                }
            }
            check(&t.iter().collect::<String>());
        }
    }
    // Deep nesting is refused (asked about), not a stack overflow.
    let deep = format!("{}rm x{}", "$(".repeat(5000), ")".repeat(5000));
    check(&deep);
    assert!(!judge(&deep).ok);
    let long = "ls ".repeat(200_000);
    check(&long);
}
