//! What the permission gate's Bash judgement costs per call (not a test): the parse with
//! tree-sitter-bash, the walk, the read-only list, the policy's path scopes and a decision
//! with a few rules, over every command of the approval corpus
//! (tests/fixtures/bash_corpus.txt), plus a long generated command. The goal is < 1 ms per
//! call (docs/performance.md). Run: `cargo bench --bench bashparse`.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use bash_agent::permission::{bash_facts, decide, PermMode, Rule, RuleKind};
use std::path::Path;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/fixtures/bash_corpus.txt")).unwrap();
    let mut cmds: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t').map(|(_, c)| c.replace("\\n", "\n")))
        .collect();
    let long: String = (0..40)
        .map(|i| {
            format!(
                "for f in $(git ls-files '*{i}.rs'); do grep -n \"fn {i}\" \"$f\" | head -3; done"
            )
        })
        .collect::<Vec<_>>()
        .join(" && ");
    let cwd = std::env::current_dir().unwrap();
    let store = cwd.join(".store");
    let home = Path::new("/nonexistent-home");
    let rules: Vec<Rule> = [
        "Bash(git commit:*)",
        "Bash(npm run test:*)",
        "Bash(cargo test *)",
    ]
    .iter()
    .map(|r| Rule::parse(RuleKind::Allow, r, &cwd).unwrap())
    .chain(std::iter::once(
        Rule::parse(RuleKind::Deny, "Bash(rm -rf /:*)", &cwd).unwrap(),
    ))
    .collect();
    // The first call loads the grammar (once per run).
    let t = Instant::now();
    let _ = bash_facts("ls", &cwd, &store);
    let first = t.elapsed().as_secs_f64() * 1e6;
    // Mean over all calls; the slowest command by its best time over the rounds (a
    // command's intrinsic cost, not a preemption on a shared machine).
    let per = |set: &[String], rounds: usize| -> (f64, f64, String) {
        let mut best = vec![f64::MAX; set.len()];
        let t = Instant::now();
        for _ in 0..rounds {
            for (i, c) in set.iter().enumerate() {
                let s = Instant::now();
                let f = bash_facts(c, &cwd, &store);
                let _ = decide(PermMode::Default, &rules, &f, home);
                best[i] = best[i].min(s.elapsed().as_secs_f64() * 1e6);
            }
        }
        let mean = t.elapsed().as_secs_f64() * 1e6 / (rounds * set.len()) as f64;
        let (i, worst) =
            best.iter().enumerate().fold(
                (0, 0f64),
                |acc, (i, b)| if *b > acc.1 { (i, *b) } else { acc },
            );
        (mean, worst, set[i].chars().take(60).collect())
    };
    let (mean, worst, which) = per(&cmds, 50);
    println!("first call (grammar loaded): {first:.1} us");
    println!(
        "corpus: {} commands, mean {mean:.1} us/call, slowest {worst:.1} us ({which:?})",
        cmds.len()
    );
    cmds.clear();
    cmds.push(long.clone());
    let (mean, _, _) = per(&cmds, 50);
    println!(
        "long command ({} bytes, 40 loops): {mean:.1} us/call",
        long.len()
    );
    // Its parts: the tree-sitter parse alone, the judgement, the policy's path scopes.
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        for _ in 0..50 {
            f();
        }
        t.elapsed().as_secs_f64() * 1e6 / 50.0
    };
    let parse = time(&|| {
        let _ = bash_agent::permission::bashparse::parse(&long);
    });
    let judge = time(&|| {
        let _ = bash_agent::permission::bashparse::judge(&long);
    });
    let scopes = time(&|| {
        let _ = bash_agent::tools::policy::classify_for_gate(&long, &cwd, &store);
    });
    println!("  parse {parse:.1} us, parse + judgement {judge:.1} us, path scopes {scopes:.1} us");
}
