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
    let per = |set: &[String], rounds: usize| -> (f64, f64) {
        let mut worst = 0f64;
        let t = Instant::now();
        for _ in 0..rounds {
            for c in set {
                let s = Instant::now();
                let f = bash_facts(c, &cwd, &store);
                let _ = decide(PermMode::Default, &rules, &f, home);
                worst = worst.max(s.elapsed().as_secs_f64() * 1e6);
            }
        }
        (
            t.elapsed().as_secs_f64() * 1e6 / (rounds * set.len()) as f64,
            worst,
        )
    };
    let (mean, worst) = per(&cmds, 50);
    println!("first call (grammar loaded): {first:.1} us");
    println!(
        "corpus: {} commands, mean {mean:.1} us/call, worst {worst:.1} us",
        cmds.len()
    );
    cmds.clear();
    cmds.push(long.clone());
    let (mean, _) = per(&cmds, 50);
    println!(
        "long command ({} bytes, 40 loops): {mean:.1} us/call",
        long.len()
    );
}
