use super::*;
use std::path::{Path, PathBuf};

fn bash(cmd: &str, read: bool) -> Facts {
    Facts {
        tool: "Bash".into(),
        command: Some(cmd.into()),
        workspace_read: read,
        ..Facts::default()
    }
}

fn file(tool: &str, rel: &str) -> Facts {
    // An absolute `rel` is outside the workspace.
    let p = PathBuf::from("/w").join(rel);
    Facts {
        tool: tool.into(),
        in_workspace: p.starts_with("/w"),
        rel_path: p.starts_with("/w").then(|| rel.to_string()),
        path: Some(p),
        ..Facts::default()
    }
}

fn rules(list: &[(RuleKind, &str)]) -> Vec<Rule> {
    list.iter()
        .map(|(k, t)| Rule::parse(*k, t, Path::new("/w")).expect("rule"))
        .collect()
}

fn kind(v: &Verdict) -> &'static str {
    v.kind()
}

#[test]
fn modes_without_rules() {
    use PermMode::*;
    let home = Path::new("/h");
    let table: Vec<(PermMode, Facts, &str)> = vec![
        (Default, bash("rm -rf build", false), "ask"),
        (Default, bash("ls -la", true), "allow"),
        (Default, file("Write", "a.txt"), "ask"),
        (Default, file("Read", "a.txt"), "allow"),
        (
            Default,
            Facts {
                tool: "mcp__gh__issues".into(),
                ..Facts::default()
            },
            "ask",
        ),
        (
            Default,
            Facts {
                tool: "SubAgent".into(),
                ..Facts::default()
            },
            "allow",
        ),
        (AcceptEdits, file("Edit", "src/a.rs"), "allow"),
        (AcceptEdits, file("Edit", "/elsewhere/outside.rs"), "ask"),
        (AcceptEdits, bash("rm -rf build", false), "ask"),
        (Plan, bash("rm -rf build", false), "deny"),
        (Plan, bash("git status", true), "allow"),
        (Plan, file("Write", "a.txt"), "deny"),
        (Plan, file("Read", "a.txt"), "allow"),
        (
            Plan,
            Facts {
                tool: "PlanConfirm".into(),
                ..Facts::default()
            },
            "allow",
        ),
        (
            Plan,
            Facts {
                tool: "Write".into(),
                plan_draft: true,
                ..Facts::default()
            },
            "allow",
        ),
        (Bypass, bash("rm -rf build", false), "allow"),
        (Bypass, file("Write", "a.txt"), "allow"),
    ];
    for (mode, f, want) in table {
        let v = decide(mode, &[], &f, home);
        assert_eq!(kind(&v), want, "{mode:?} {f:?}: {v:?}");
    }
}

#[test]
fn rules_deny_wins_and_prefixes_match_at_word_boundaries() {
    use PermMode::*;
    use RuleKind::*;
    let home = Path::new("/h");
    let r = rules(&[
        (Allow, "Bash(git push:*)"),
        (Deny, "Bash(git push --force:*)"),
        (Allow, "Edit(src/**)"),
        (Deny, "Read(./.env)"),
        (Ask, "Bash(npm publish)"),
        (Allow, "Bash(npm *)"),
        (Allow, "mcp__docs"),
        (Deny, "mcp__my-server__rm"),
    ]);
    let table: Vec<(PermMode, Facts, &str)> = vec![
        (Default, bash("git push origin main", false), "allow"),
        (Default, bash("git push", false), "allow"),
        (Default, bash("git pushx", false), "ask"),
        (Default, bash("git push --force origin", false), "deny"),
        (Bypass, bash("git push --force origin", false), "deny"),
        (Default, bash("git push && rm -rf /", false), "ask"),
        (Default, file("Edit", "src/deep/a.rs"), "allow"),
        (Default, file("Write", "src/a.rs"), "allow"),
        (Default, file("Edit", "tests/a.rs"), "ask"),
        (Default, file("Read", ".env"), "deny"),
        (Bypass, file("Read", ".env"), "deny"),
        (Default, file("Read", "sub/.env"), "allow"),
        (Default, bash("npm publish", false), "ask"),
        (Bypass, bash("npm publish", false), "allow"),
        (Default, bash("npm test", false), "allow"),
        (
            Default,
            Facts {
                tool: "mcp__docs__search".into(),
                ..Facts::default()
            },
            "allow",
        ),
        (
            Default,
            Facts {
                tool: "mcp__other__x".into(),
                ..Facts::default()
            },
            "ask",
        ),
        (
            Bypass,
            Facts {
                tool: "mcp__my-server__rm".into(),
                ..Facts::default()
            },
            "deny",
        ),
        (Plan, bash("git push origin", false), "allow"),
    ];
    for (mode, f, want) in table {
        let v = decide(mode, &r, &f, home);
        assert_eq!(kind(&v), want, "{mode:?} {f:?}: {v:?}");
    }
}

#[test]
fn suggested_rules() {
    let home = Path::new("/h");
    let ask = |f: &Facts| match decide(PermMode::Default, &[], f, home) {
        Verdict::Ask { suggest, .. } => suggest,
        v => panic!("{v:?}"),
    };
    assert_eq!(ask(&bash("rm -rf build", false)), "Bash(rm:*)");
    assert_eq!(ask(&bash("git push origin", false)), "Bash(git push:*)");
    assert_eq!(ask(&bash("cargo -q build", false)), "Bash(cargo:*)");
    assert_eq!(ask(&file("Edit", "src/a.rs")), "Edit(src/**)");
    assert_eq!(ask(&file("Write", "a.txt")), "Edit(./a.txt)");
    // A suggested rule parses and allows the call it was made for.
    for f in [
        bash("rm -rf build", false),
        file("Edit", "src/a.rs"),
        file("Write", "a.txt"),
    ] {
        let s = ask(&f);
        let r = rules(&[(RuleKind::Allow, s.as_str())]);
        assert_eq!(
            kind(&decide(PermMode::Default, &r, &f, home)),
            "allow",
            "{s}"
        );
    }
}

#[test]
fn bad_rules_and_modes() {
    assert!(Rule::parse(RuleKind::Allow, "Bash(git", Path::new("/w")).is_err());
    assert!(Rule::parse(RuleKind::Allow, "", Path::new("/w")).is_err());
    assert!(Rule::parse(RuleKind::Allow, "Bash(*)", Path::new("/w")).is_ok());
    assert_eq!(PermMode::parse("accept-edits"), Some(PermMode::AcceptEdits));
    assert_eq!(PermMode::parse("yolo"), None);
    assert!(rules::bash_match_for_tests("ls:*", "ls"));
    assert!(!rules::bash_match_for_tests("ls:*", "lsof"));
    // Claude Code's ` *` form: the bare command too, at a word boundary.
    assert!(rules::bash_match_for_tests("ls *", "ls"));
    assert!(rules::bash_match_for_tests("ls *", "ls -la"));
    assert!(!rules::bash_match_for_tests("ls *", "lsof"));
    assert!(rules::bash_match_for_tests("ls*", "lsof"));
    assert!(!rules::bash_match_for_tests("git * main", "git"));
}

#[test]
fn answers() {
    assert_eq!(parse_answer("y"), Answer::Yes);
    assert_eq!(
        parse_answer(" A "),
        Answer::Always(crate::permission::save::SaveTo::Session)
    );
    assert_eq!(
        parse_answer("p"),
        Answer::Always(crate::permission::save::SaveTo::Project)
    );
    assert!(crate::permission::is_answer("n too risky"));
    assert!(!crate::permission::is_answer("yes please"));
    assert!(!crate::permission::is_answer("fix the tests too"));
    assert_eq!(parse_answer("n"), Answer::No(String::new()));
    assert_eq!(
        parse_answer("n keep the build"),
        Answer::No("keep the build".into())
    );
    assert_eq!(parse_answer("yes please"), Answer::No("yes please".into()));
    assert_eq!(
        parse_answer("use make clean"),
        Answer::No("use make clean".into())
    );
}

#[test]
fn refusal_names_mode_and_how_to_allow() {
    let t = refusal_text(PermMode::Default, "x asks", "Bash(rm:*)", Some("keep it"));
    assert!(t.contains("permission mode default") && t.contains("keep it"));
    assert!(t.contains("--allow 'Bash(rm:*)'"));
}

fn web(url: &str, host: Option<&str>) -> Facts {
    Facts {
        tool: "WebFetch".into(),
        url: Some(url.into()),
        domain: host.map(str::to_string),
        ..Facts::default()
    }
}

#[test]
fn webfetch_asks_and_domain_rules_apply() {
    use PermMode::*;
    let home = Path::new("/h");
    let f = web("https://docs.example.com/a", Some("docs.example.com"));
    for m in [Default, AcceptEdits, Plan] {
        match decide(m, &[], &f, home) {
            Verdict::Ask { suggest, .. } => {
                assert_eq!(suggest, "WebFetch(domain:docs.example.com)")
            }
            v => panic!("{m:?}: {v:?}"),
        }
    }
    assert_eq!(kind(&decide(Bypass, &[], &f, home)), "allow");
    let deny = rules(&[(RuleKind::Deny, "WebFetch(domain:example.com)")]);
    for m in [Default, Bypass] {
        assert_eq!(kind(&decide(m, &deny, &f, home)), "deny");
    }
    let other = web("https://example.org/", Some("example.org"));
    assert_eq!(kind(&decide(Bypass, &deny, &other, home)), "allow");
    // `notexample.com` is not a subdomain of example.com.
    let near = web("https://notexample.com/", Some("notexample.com"));
    assert_eq!(kind(&decide(Bypass, &deny, &near, home)), "allow");
    let allow = rules(&[(RuleKind::Allow, "WebFetch(domain:docs.example.com)")]);
    assert_eq!(kind(&decide(Default, &allow, &f, home)), "allow");
    assert_eq!(kind(&decide(Default, &allow, &other, home)), "ask");
    let by_url = rules(&[(RuleKind::Allow, "WebFetch(https://docs.example.com/*)")]);
    assert_eq!(kind(&decide(Default, &by_url, &f, home)), "allow");
    let all = rules(&[(RuleKind::Deny, "WebFetch")]);
    assert_eq!(kind(&decide(Bypass, &all, &other, home)), "deny");
    // A Bash rule does not cover WebFetch.
    let bash_rule = rules(&[(RuleKind::Allow, "Bash")]);
    assert_eq!(kind(&decide(Default, &bash_rule, &f, home)), "ask");
    // An unparsable URL has no domain: a domain rule cannot allow it.
    let bad = web("not a url", None);
    assert_eq!(kind(&decide(Default, &allow, &bad, home)), "ask");
}

/// A symlink's target is a path the rules see too: a deny rule on the target refuses the
/// link; an allow rule on the link's folder does not reach a target outside it.
#[test]
fn path_rules_see_through_symlinks() {
    let h = Path::new("/h");
    let mut f = file("Read", "docs/link");
    f.path_real = Some(PathBuf::from("/w/secret/key"));
    let deny = rules(&[(RuleKind::Deny, "Read(./secret/**)")]);
    assert_eq!(kind(&decide(PermMode::Bypass, &deny, &f, h)), "deny");
    let mut e = file("Edit", "src/link");
    e.path_real = Some(PathBuf::from("/h/.bashrc"));
    let allow = rules(&[(RuleKind::Allow, "Edit(src/**)")]);
    assert_eq!(kind(&decide(PermMode::Default, &allow, &e, h)), "ask");
    e.path_real = None;
    assert_eq!(kind(&decide(PermMode::Default, &allow, &e, h)), "allow");
}

#[test]
fn flag_values_split_into_rules() {
    use crate::permission::split_rules;
    assert_eq!(
        split_rules("Bash(git diff:*) Edit,Read, WebFetch(domain:a.b)"),
        ["Bash(git diff:*)", "Edit", "Read", "WebFetch(domain:a.b)"]
    );
    assert_eq!(split_rules("Bash(a, b)"), ["Bash(a, b)"]);
    assert!(split_rules(" , ").is_empty());
}
