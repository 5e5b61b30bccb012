//! The approval corpus (tests/fixtures/bash_corpus.txt): in the default permission mode
//! every command labelled `read` runs unasked and every one labelled `ask` asks; plan mode
//! runs the reads and refuses the rest. Then saved rules that must not open holes:
//! substitutions, assignments, wrappers and loop bodies are judged command by command.
use bash_agent::permission::{bash_facts, decide, PermMode, Rule, RuleKind, Verdict};
use std::path::Path;

fn corpus() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bash_corpus.txt"),
    )
    .unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (label, cmd) = l.split_once('\t').expect("label<TAB>command");
            (label.to_string(), cmd.replace("\\n", "\n"))
        })
        .collect()
}

fn verdict(mode: PermMode, rules: &[Rule], cmd: &str, cwd: &Path) -> Verdict {
    let f = bash_facts(cmd, cwd, &cwd.join(".store"));
    decide(mode, rules, &f, Path::new("/nonexistent-home"))
}

fn kind(v: &Verdict) -> &'static str {
    v.kind()
}

#[test]
fn the_corpus_is_judged_as_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let all = corpus();
    assert!(all.len() >= 150, "{} commands", all.len());
    let mut wrong = Vec::new();
    for (label, cmd) in &all {
        let want = match label.as_str() {
            "read" => "allow",
            "ask" => "ask",
            l => panic!("unknown label {l}"),
        };
        let got = kind(&verdict(PermMode::Default, &[], cmd, cwd));
        if got != want {
            wrong.push(format!("{label}\t{cmd:?} -> {got}"));
        }
        let plan = kind(&verdict(PermMode::Plan, &[], cmd, cwd));
        let plan_want = if want == "allow" { "allow" } else { "deny" };
        if plan != plan_want {
            wrong.push(format!("plan {label}\t{cmd:?} -> {plan}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn allow(list: &[&str], cwd: &Path) -> Vec<Rule> {
    list.iter()
        .map(|r| Rule::parse(RuleKind::Allow, r, cwd).unwrap())
        .collect()
}

#[test]
fn saved_rules_cannot_be_bypassed() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    // What "always" saved for a loop before, and prefix rules on harmless commands.
    let rules = allow(
        &[
            "Bash(for:*)",
            "Bash(do echo:*)",
            "Bash(done)",
            "Bash(echo:*)",
            "Bash(FOO=1:*)",
            "Bash(git status:*)",
            "Bash(timeout:*)",
            "Bash(ls *)",
            "Bash(git x:*)",
        ],
        cwd,
    );
    for cmd in [
        "for f in $(rm victim.txt); do echo $f; done",
        "echo $(rm victim)",
        "echo `rm victim`",
        "echo \"$(rm victim)\"",
        "FOO=1 rm victim.txt",
        "git status && rm victim",
        "git status; rm victim",
        "git status | rm victim",
        "timeout 5 rm victim",
        "ls $(rm victim)",
        "ls <(rm victim)",
        "echo x > $(rm victim)",
        "git -c alias.x='!rm victim' x",
        "for i in 1; do rm victim; done",
        "f() { rm victim; }; f",
        "x=$(rm victim); echo $x",
        "echo ok\nrm victim",
        "PATH=/tmp/evil git status",
        "env LD_PRELOAD=./x.so echo hi",
        "GIT_EXTERNAL_DIFF=./x git status",
        // Adversarial review.
        "git --git-dir=evil.git status",
        "git --work-tree=.. status",
        "git -c core.fsmonitor='rm victim' status",
        "time -o victim ls",
        "env -C .. ls",
        "echo hi | sh",
        "echo rm victim | bash",
        "timeout 5 bash -c 'rm victim'",
        "timeout 5 timeout 5 rm victim",
        "echo x; eval 'rm victim'",
        "printf -v PATH %s .; git status",
        "read PATH <<< .; git status",
        "declare -n r=PATH; r=.; git status",
        "PATH[0]=. git status",
        "echo ${x:-$(rm victim)}",
        "trap 'rm victim' EXIT; echo hi",
        "ls; coproc rm victim",
        "git status | xargs rm",
        "git status >(rm victim)",
    ] {
        let v = verdict(PermMode::Default, &rules, cmd, cwd);
        assert_eq!(kind(&v), "ask", "{cmd:?}: {v:?}");
    }
    // What the rules do allow (a rule on a program covers its redirections, as Claude
    // Code's does: `Bash(echo:*)` allows `echo x > f`).
    for cmd in [
        "echo hi",
        "echo hi && git status -s",
        "timeout 5 ls",
        "ls",
        "echo x > f",
    ] {
        let v = verdict(PermMode::Default, &rules, cmd, cwd);
        assert_eq!(kind(&v), "allow", "{cmd:?}: {v:?}");
    }
}

#[test]
fn prefix_rules_in_both_spellings_match_the_bare_command() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    for rule in ["Bash(git commit *)", "Bash(git commit:*)"] {
        let r = allow(&[rule], cwd);
        for (cmd, want) in [
            ("git commit", "allow"),
            ("git commit -m 'x y'", "allow"),
            ("git commitx", "ask"),
            ("git commit -m x && rm y", "ask"),
            ("git commit -m \"$(rm y)\"", "ask"),
        ] {
            let v = verdict(PermMode::Default, &r, cmd, cwd);
            assert_eq!(kind(&v), want, "{rule} {cmd:?}: {v:?}");
        }
    }
}

#[test]
fn deny_rules_match_any_simple_command_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let rules = vec![Rule::parse(RuleKind::Deny, "Bash(rm:*)", cwd).unwrap()];
    let mut wrong = Vec::new();
    for cmd in [
        "rm x",
        "ls && rm x",
        "echo $(rm x)",
        "for f in $(rm x); do :; done",
        "sudo rm x",
        "env FOO=1 rm x",
        "timeout 5 nice rm x",
        "ls | xargs rm",
        "bash -c 'ls; rm x'",
        "find . -exec rm {} \\;",
        "cat <<EOF\n$(rm x)\nEOF",
        "\"rm\" x",
        "r\\m x",
        // Adversarial review: spellings, wrappers and code strings.
        "/bin/rm x",
        "/usr/bin/rm x",
        "\\rm x",
        "r''m x",
        "command rm x",
        "exec rm x",
        "nohup rm x",
        "setsid rm x",
        "stdbuf -oL rm x",
        "ionice -c3 rm x",
        "sudo -u root rm x",
        "env -i rm x",
        "xargs -I{} rm {}",
        "eval 'rm x'",
        "eval rm x",
        "builtin eval 'rm x'",
        "bash -lc 'rm x'",
        "sh -ec 'rm x'",
        "bash -c \"eval 'rm x'\"",
        "fd -Hx rm",
        "find . -okdir rm {} \\;",
        "watch rm x",
        "watch -n 1 rm x",
        "trap 'rm x' EXIT",
        "f(){ rm x; }; f",
        "cat <(rm x)",
        "echo >(rm x)",
        "echo $((1 + $(rm x)))",
        "echo ${x:-$(rm y)}",
        "if true; then rm x; fi",
        "coproc rm x",
        "time rm x",
        "rm<<<x",
    ] {
        for mode in [PermMode::Default, PermMode::Bypass] {
            let v = verdict(mode, &rules, cmd, cwd);
            if kind(&v) != "deny" {
                wrong.push(format!("{mode:?} {cmd:?}: {v:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "not denied:\n{}", wrong.join("\n"));
}

#[test]
fn suggestions_name_real_commands() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let sugg = |cmd: &str| match verdict(PermMode::Default, &[], cmd, cwd) {
        Verdict::Ask { suggest, .. } => suggest,
        v => panic!("{cmd}: {v:?}"),
    };
    assert_eq!(sugg("git commit -m 'a b' 2>&1"), "Bash(git commit:*)");
    assert_eq!(
        sugg("npm run test -- --watch=false"),
        "Bash(npm run test:*)"
    );
    assert_eq!(sugg("FOO=1 rm x"), "Bash(rm:*)");
    assert_eq!(
        sugg("for f in $(ls); do rm \"$f\"; cp a \"draft.txt\"; done"),
        "Bash(rm:*), Bash(cp:*)"
    );
    assert_eq!(sugg("timeout 60 cargo test -q"), "Bash(cargo test:*)");
    // A git global option kept in the key: never `Bash(git:*)`.
    assert_eq!(
        sugg("git --git-dir x.git log"),
        "Bash(git --git-dir x.git log)"
    );
    assert_eq!(sugg("sudo apt install x"), "Bash(sudo apt install:*)");
    assert_eq!(sugg("bash -c 'echo hi'"), "Bash(bash -c 'echo hi')");
    // No prefix names `$CMD`: the exact command.
    assert_eq!(sugg("$CMD x"), "Bash($CMD x)");
    // Each suggestion, saved, allows the command it was made for.
    for cmd in [
        "git commit -m 'a b' 2>&1",
        "for f in $(ls); do rm \"$f\"; cp a \"draft.txt\"; done",
        "bash -c 'echo hi'",
        "$CMD x",
        "sudo apt install x",
    ] {
        let s = sugg(cmd);
        let rules: Vec<Rule> = bash_agent::permission::split_rules(&s)
            .iter()
            .map(|r| Rule::parse(RuleKind::Allow, r, cwd).unwrap())
            .collect();
        let v = verdict(PermMode::Default, &rules, cmd, cwd);
        assert_eq!(kind(&v), "allow", "{cmd:?} with {s}: {v:?}");
    }
}

/// A path the parse sees (escaped, or with `..`) or cannot place (known only at run time)
/// is scoped by the parse too: an absolute path inside the workspace (the folder, `/tmp`,
/// the session store) stays a read.
#[test]
fn paths_hidden_from_the_text_check_ask() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let d = cwd.display();
    for (cmd, want) in [
        (format!("cat {d}/notes.txt"), "allow"),
        (format!("cat \\{d}/notes.txt"), "allow"),
        (format!("cat {d}/../x"), "ask"),
        // Beside the folder: under `/tmp` that is workspace for the gate (as `rm` there is
        // a write to ask about), elsewhere it is not.
        (format!("cat {d}x/notes.txt"), "allow"),
        ("cat \\/var/lib/x/notes.txt".to_string(), "ask"),
        ("cat \\/etc/passwd".to_string(), "ask"),
        ("cat $(printf /etc/passwd)".to_string(), "ask"),
    ] {
        let got = kind(&verdict(PermMode::Default, &[], &cmd, cwd));
        assert_eq!(got, want, "{cmd}");
    }
}
