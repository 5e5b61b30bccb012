//! The Claude Code configurations of 19 public repositories (`../shared/realworld/
//! claude-configs/<owner>__<repo>/`, each with a PROVENANCE.txt), read where they lie:
//! every command, agent, skill and rule file loads, with the counts of issue 40.
use bash_agent::agent::custom::{agents, commands, files, skills};
use bash_agent::agent::prompt::rules;
use std::path::{Path, PathBuf};

fn corpus() -> Option<Vec<PathBuf>> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld/claude-configs");
    let Ok(base) = std::fs::canonicalize(&base) else {
        crate::support::skip::skip(&format!("{} is absent", base.display()));
        return None;
    };
    let Ok(rd) = std::fs::read_dir(&base) else {
        crate::support::skip::skip(&format!("{} is absent", base.display()));
        return None;
    };
    let mut dirs: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("PROVENANCE.txt").is_file())
        .collect();
    dirs.sort();
    Some(dirs)
}

/// `*.md` files under `dir`, links followed (what a Claude Code user sees).
fn count_md(dir: &Path, only: Option<&str>) -> usize {
    walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter(|e| match only {
            Some(n) => e.file_name() == n,
            None => e.path().extension().is_some_and(|x| x == "md"),
        })
        .count()
}

#[test]
fn every_command_agent_skill_and_rule_of_the_corpus_loads() {
    let Some(dirs) = corpus() else { return };
    let nowhere = Path::new("/nonexistent");
    let (mut cmds, mut ags, mut sks, mut rls) = (0, 0, 0, 0);
    let mut repos = [0usize; 4];
    let mut problems = Vec::new();
    for d in &dirs {
        let cat = commands::load(&files::roots(d, nowhere, "commands"), &|_| false);
        assert_eq!(
            cat.commands.len(),
            count_md(&d.join(".claude/commands"), None),
            "{}: {:?}",
            d.display(),
            cat.warnings
        );
        for c in &cat.commands {
            // Substitution never refuses: a `$N` beyond the words stays as written.
            let _ = commands::substitute(c, "one two");
        }
        let a = agents::load(&files::roots(d, nowhere, "agents"));
        assert_eq!(
            a.agents.len(),
            count_md(&d.join(".claude/agents"), None),
            "{}: {:?}",
            d.display(),
            a.warnings
        );
        // A symlink the copy keeps as a text file naming its target (PROVENANCE.txt says
        // which): made a real link again, in a throw-away home, since the corpus is
        // read-only; the skills behind it are read where they lie.
        let home = tempfile::tempdir().unwrap();
        let mut skills_dir = d.join(".claude/skills");
        if skills_dir.is_file() {
            let target = std::fs::read_to_string(&skills_dir).unwrap();
            skills_dir = d.join(".claude").join(target.trim());
            std::fs::create_dir_all(home.path().join(".claude")).unwrap();
            std::os::unix::fs::symlink(&skills_dir, home.path().join(".claude/skills")).unwrap();
        }
        let (s, sw) = skills::as_commands(d, home.path(), &|_| false);
        assert_eq!(
            s.len(),
            count_md(&skills_dir, Some("SKILL.md")),
            "{}",
            d.display()
        );
        for c in &s {
            let body = c.body.trim();
            assert!(
                !body.is_empty() && !body.starts_with("---"),
                "{}",
                c.path.display()
            );
        }
        let mut rw = Vec::new();
        let canon = std::fs::canonicalize(d).unwrap();
        let r = rules::load(&d.join(".claude/rules"), Some(&canon), &mut rw);
        for (i, n) in [cat.commands.len(), a.agents.len(), s.len(), r.len()]
            .into_iter()
            .enumerate()
        {
            if n > 0 {
                repos[i] += 1;
            }
        }
        cmds += cat.commands.len();
        ags += a.agents.len();
        sks += s.len();
        rls += r.len();
        problems.extend(cat.warnings);
        problems.extend(a.warnings);
        problems.extend(sw);
        problems.extend(rw);
    }
    // Every file is YAML or what Claude Code reads as such: no warning at all.
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!((cmds, ags, sks, rls), (185, 53, 27, 14));
    // Agents are in 9 folders (the issue counted 8; PROVENANCE.txt lists 9 with agents).
    assert_eq!(repos, [15, 9, 4, 2]);
}
