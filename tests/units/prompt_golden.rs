//! Golden tests for the system prompt (model-tools.md §3). Regenerate with `BLESS=1`.
use bash_agent::agent::prompt::{build_with, Env};
use bash_agent::session::Session;
use std::fs;
use std::path::{Path, PathBuf};

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    session: Session,
    cwd: PathBuf,
    env: Env,
}

fn fixture(lang: &str) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let session = Session::new(&root.join("projects/-work"), "s1");
    session.create_dir().unwrap();
    for f in [session.plan(), session.plan_draft(), session.summary()] {
        fs::write(f, "").unwrap();
    }
    let cwd = root.join("work");
    let home = root.join("home");
    fs::create_dir_all(&cwd).unwrap();
    fs::create_dir_all(&home).unwrap();
    let env = Env {
        lang: lang.into(),
        pwd: cwd.clone(),
        home,
        platform: "Linux".into(),
        shell: "/bin/bash".into(),
        agent_home: root.join("agent-home/.bash-agent"),
        date: "2026-01-02".into(),
        git: String::new(),
    };
    Fixture {
        _tmp: tmp,
        root,
        session,
        cwd,
        env,
    }
}

fn render(f: &Fixture, skills: &[String], depth: u32) -> String {
    build_with(&f.session, skills, depth, &f.env).replace(f.root.to_str().unwrap(), "<TMP>")
}

fn check(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("BLESS").is_some() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, actual).unwrap();
        return;
    }
    let expected = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display()));
    assert_eq!(actual, expected, "prompt differs from {}", path.display());
}

fn tags(p: &str) -> Vec<String> {
    p.lines()
        .filter(|l| l.starts_with('<') && !l.starts_with("</"))
        .filter_map(|l| {
            l.trim_start_matches('<')
                .split([' ', '>'])
                .next()
                .map(String::from)
        })
        .collect()
}

#[test]
fn english_minimal() {
    let f = fixture("en_US");
    let p = render(&f, &[], 0);
    assert!(!p.ends_with('\n'));
    assert_eq!(
        tags(&p),
        [
            "agent-identity",
            "environment",
            "rules",
            "using-your-tools",
            "sub-agent-guidance",
            "todo-guidance",
            "plan-lifecycle-guidance",
            "output-language"
        ]
    );
    assert!(p.contains(
        "<environment>\nlang: en_US\npwd: <TMP>/work\nhome: <TMP>/home\nplatform: Linux\nshell: /bin/bash\ndate: 2026-01-02\n</environment>\n<rules>"
    ));
    assert!(p.contains(
        "**Files**: PLAN_DRAFT_FILE: <TMP>/projects/-work/s1/plan.draft | PLAN_FILE: <TMP>/projects/-work/s1/plan.md\n"
    ));
    check("prompt_en.txt", &p);
}

#[test]
fn chinese_minimal() {
    let f = fixture("zh_CN");
    let p = render(&f, &[], 0);
    assert!(p.starts_with("<agent-identity>\n你是 bash-agent"));
    assert!(p.contains("<output-language>\n所有输出"));
    check("prompt_zh.txt", &p);
}

#[test]
fn full_with_plan_summary_instructions_skills() {
    let f = fixture("en_US");
    fs::write(f.session.plan(), "# Plan\n1. count files\n\n").unwrap();
    fs::write(f.session.plan_draft(), "DRAFT MUST NOT APPEAR\n").unwrap();
    fs::write(
        f.session.summary(),
        "Task focus: counting\nReflections: none\n",
    )
    .unwrap();
    // Every kind loads: AGENTS.md (else AGENT.md), then CLAUDE.md (else .claude/CLAUDE.md).
    fs::create_dir_all(&f.env.agent_home).unwrap();
    fs::write(f.env.agent_home.join("CLAUDE.md"), "Global claude rule.\n").unwrap();
    fs::write(f.env.agent_home.join("AGENT.md"), "Global rule: be nice.\n").unwrap();
    fs::create_dir_all(f.cwd.join(".claude")).unwrap();
    fs::write(f.cwd.join(".claude/CLAUDE.md"), "Project claude rule.").unwrap();
    fs::write(f.cwd.join("AGENTS.md"), "Project rule: run tests.\n\n").unwrap();
    // Skills: project .claude/skills, project skills/, ~/.claude/skills.
    let sk = |root: PathBuf, name: &str, body: &str| {
        fs::create_dir_all(root.join(name)).unwrap();
        fs::write(root.join(name).join("SKILL.md"), body).unwrap();
    };
    sk(f.cwd.join(".claude/skills"), "pdf", "---\nname: pdf\ndescription: \"Work with PDF files\"\n---\nUse ${BASH_AGENT_SKILL_DIR}/tool.py\n");
    sk(
        f.cwd.join("skills"),
        "notes",
        "# Notes\n\nKeep notes tidy.\n",
    );
    sk(
        f.env.home.join(".claude/skills"),
        "pdf",
        "description: shadowed\n",
    );
    sk(
        f.env.home.join(".claude/skills"),
        "bare",
        "# Only a heading\n",
    );
    let selected = vec!["pdf".to_string(), "golden-missing-skill".to_string()];
    let p = render(&f, &selected, 0);
    assert!(!p.contains("DRAFT MUST NOT APPEAR"));
    assert!(p.contains(
        "<instruction-files>\n<instruction-file name=\"global\">\nGlobal rule: be nice.\n</instruction-file>\n<instruction-file name=\"global\">\nGlobal claude rule.\n</instruction-file>\n<instruction-file name=\"project\">\nProject rule: run tests.\n</instruction-file>\n<instruction-file name=\"project\">\nProject claude rule.\n</instruction-file>\n</instruction-files>\n"
    ));
    assert!(p.contains(
        "<skill-index>\n- pdf: Work with PDF files\n- notes: Keep notes tidy.\n- bare\n</skill-index>\n"
    ));
    assert!(p.contains(
        "<selected-skills>\n<skill name=\"pdf\">\nBase directory: <TMP>/work/.claude/skills/pdf\n\n---\nname: pdf\n"
    ));
    assert!(p.contains("Use <TMP>/work/.claude/skills/pdf/tool.py\n</skill>\n</selected-skills>\n"));
    assert!(p.contains(
        "<current-plan name=\"<TMP>/projects/-work/s1/plan.md\">\n# Plan\n1. count files\n</current-plan>\n"
    ));
    assert!(p.contains(
        "<context-snapshot>\nTask focus: counting\nReflections: none\n</context-snapshot>\n<output-language>"
    ));
    check("prompt_full.txt", &p);
}

#[test]
fn git_state_follows_the_environment() {
    // The date and the git state are injected (the golden files stay fixed); a git state
    // becomes its own section right after the environment.
    let mut f = fixture("en_US");
    f.env.git = "branch: main\nstatus:\n M src/a.rs".into();
    let p = render(&f, &[], 0);
    assert!(p.contains(
        "date: 2026-01-02\n</environment>\n<git-status>\nbranch: main\nstatus:\n M src/a.rs\n</git-status>\n<rules>"
    ), "{p}");
}

#[test]
fn sub_agents_are_told_they_cannot_delegate() {
    let f = fixture("en_US");
    let main = render(&f, &[], 0);
    let child = render(&f, &[], 1);
    assert!(main.contains("Only the main agent can start sub-agents"));
    assert!(child.contains("<sub-agent-guidance>\n- You are running as a sub-agent"));
    assert!(!child.contains("Only the main agent"));
}
