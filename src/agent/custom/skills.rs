//! Skills run as `/name`, as in Claude Code (docs/custom-commands.md, "Skills as
//! commands"): every skill of the prompt's skill index (`tools::skills`: the project's
//! `.claude/skills` and `skills`, the user's `~/.claude/skills`) whose name no command
//! file takes is a command. Its SKILL.md body is the turn's text with the same argument
//! substitution (`$ARGUMENTS`, `$0`…), its frontmatter the same keys (`description`,
//! `argument-hint`, `allowed-tools`, `model`).
use super::commands::{self, CustomCommand};
use super::frontmatter;
use std::path::{Path, PathBuf};

/// The skills of a run in `cwd` as commands, skipping names in `taken`; one warning per
/// SKILL.md whose frontmatter is not YAML (the skill loads anyway).
pub fn as_commands(
    cwd: &Path,
    home: &Path,
    taken: &dyn Fn(&str) -> bool,
) -> (Vec<CustomCommand>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for entry in crate::tools::skills::index(cwd, home) {
        let name = format!("/{}", entry.name);
        if !super::files::valid_part(&entry.name) || taken(&name) {
            continue;
        }
        let Some(skill) = crate::tools::skills::load(cwd, home, &entry.name) else {
            continue;
        };
        let path = skill.dir.join("SKILL.md");
        let p = frontmatter::parse(&skill.content);
        if let Some(w) = &p.warning {
            warnings.push(format!("{}: {w}", path.display()));
        }
        let user = !skill.dir.starts_with(cwd);
        let mut c = commands::from_parsed(&p, name, &path, user);
        // "… (project)" → "… (project skill)".
        c.description = format!("{} skill)", c.description.trim_end_matches(')'));
        out.push(c);
    }
    (out, warnings)
}

/// `$HOME`, where the Skill tool and the skill index look for the user's skills.
pub fn home() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/nonexistent"))
}
