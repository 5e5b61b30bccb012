//! The Bash parse and judgement of the permission gate (docs/tools-and-policy.md): any
//! bytes as a command. Invariants: no panic; a command that does not parse is never a
//! read and is never allowed unasked; every suggested rule parses as a rule.
#![no_main]
use bash_agent::permission::bashparse::judge;
use bash_agent::permission::{decide, PermMode, Rule, RuleKind, Verdict};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let cmd = String::from_utf8_lossy(data);
    let j = judge(&cmd);
    if !j.ok {
        assert!(!j.read_only(), "an unparsed command judged a read: {cmd:?}");
    }
    let cwd = Path::new("/nonexistent-workspace");
    let f = bash_agent::permission::bash_facts(&cmd, cwd, &cwd.join(".store"));
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
            assert!(Rule::parse(RuleKind::Allow, &r, cwd).is_ok(), "{r:?}");
        }
    }
});
