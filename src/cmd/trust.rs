//! The trust decision of a run (docs/sandbox.md, "Trust") and `bash-agent trust [DIR]`.
//!
//! A folder whose project files would change nothing that matters needs no decision. For
//! one that would, the stored answer decides; without one, the interactive mode on a
//! terminal asks once (trust / this run only / no), and every other run (one-shot, piped,
//! `--listen`, scripts) takes the safe choice and says on stderr exactly what it ignored.
use crate::error::{Error, Result};
use crate::mcp::config::{read_servers, Scope};
use crate::settings::trust;
use crate::util::shown;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// What the project files of `cwd` would change if the folder were trusted, as
/// `what (file)` texts; empty when nothing.
fn untrusted_effects(cwd: &Path) -> Result<Vec<String>> {
    let was = trust::is_trusted(cwd);
    trust::set_decision(cwd, false);
    let loaded = crate::settings::load(cwd);
    trust::set_decision(cwd, was);
    let mut out = loaded?.ignored;
    let mcp = Scope::Project.path(cwd);
    if trust::check_link(&mcp, &crate::settings::project_root(cwd)).is_ok() {
        let names: Vec<String> = read_servers(&mcp)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        if !names.is_empty() {
            out.push(format!(
                "MCP server{} {} ({})",
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                mcp.display()
            ));
        }
    }
    Ok(out)
}

/// How a run may settle the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Interactive mode on a terminal: ask when nothing is stored.
    Yes,
    /// Any other run: never wait on an answer; say what was ignored.
    No,
    /// A sub-agent or a restart: its parent decided and spoke already.
    Silent,
}

/// Settle the trust of this run's folder before anything reads a project file.
pub fn decide_for_run(ask: Ask) -> Result {
    if trust::flag() {
        return Ok(());
    }
    let cwd = crate::session::paths::physical_cwd().map_err(Error::runtime)?;
    // The common case, a folder without project files, costs three failed stats.
    let mut project = crate::settings::files(&cwd)
        .into_iter()
        .skip(1)
        .chain(crate::settings::claude::files(&cwd).into_iter().skip(1))
        .map(|(_, p)| p)
        .chain([Scope::Project.path(&cwd)]);
    if !project.any(|p| p.symlink_metadata().is_ok()) {
        return Ok(());
    }
    let root = trust::root_of(&cwd);
    let found = trust::lookup(&root);
    let effects = untrusted_effects(&cwd)?;
    if effects.is_empty() {
        return Ok(());
    }
    if ask != Ask::Silent {
        for p in &found.relative {
            eprintln!(
                "bash-agent: warning: trusted_folders names {}, which is not an absolute path; ignored",
                shown::path(p)
            );
        }
        for p in &found.stale {
            eprintln!(
                "bash-agent: warning: trusted_folders names {}, which no longer exists (a folder created there later would inherit it); remove it with: bash-agent trust --forget {}",
                shown::path(p),
                shown::path(p)
            );
        }
    }
    let trusted = match found.decision {
        Some(t) => t,
        None if ask == Ask::Yes
            && std::io::stdin().is_terminal()
            && std::io::stdout().is_terminal() =>
        {
            question(&root, &effects)
        }
        None => false,
    };
    trust::set_decision(&cwd, trusted);
    if !trusted && ask != Ask::Silent {
        eprintln!("{}", note(&root, &effects, found.decision == Some(false)));
    }
    Ok(())
}

/// The one stderr note of a run that ignored project settings.
fn note(root: &Path, effects: &[String], declined: bool) -> String {
    let prefix = format!("{}/", root.display());
    let list: Vec<String> = effects
        .iter()
        .map(|e| shown::shown(&e.replace(&prefix, "")).into_owned())
        .collect();
    format!(
        "bash-agent: {} is not a trusted folder{}; ignored from its project files: {}. Trust it with: bash-agent trust {} (or --trust for one run)",
        shown::path(root),
        if declined { " (you chose not to trust it)" } else { "" },
        list.join("; "),
        shown::path(root)
    )
}

/// Ask on the terminal; store the answer when it is for good.
fn question(root: &Path, effects: &[String]) -> bool {
    let prefix = format!("{}/", root.display());
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\nThe project files in {} want to change what bash-agent may do:",
        shown::path(root)
    );
    for e in effects {
        let _ = writeln!(err, "  - {}", shown::shown(&e.replace(&prefix, "")));
    }
    let _ = writeln!(
        err,
        "Files of a repository you did not write could send your keys elsewhere or run programs.\nDo you trust this folder?  [y] yes, remember   [o] only this run   [n] no, remember   (Enter: not now; anything else is kept as your first message)"
    );
    let _ = write!(err, "> ");
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    let store = |t: bool| match trust::store(root, Some(t)) {
        Ok(_) => {}
        Err(e) => eprintln!("bash-agent: warning: the answer was not stored: {e}"),
    };
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "t" | "trust" => {
            store(true);
            true
        }
        "o" | "once" => true,
        "n" | "no" => {
            store(false);
            false
        }
        "" => false,
        _ => {
            // A prompt typed by someone who did not see the question: "not now", and the
            // text is sent as the first message (never lost, never an answer).
            let typed = line.trim_end_matches(['\r', '\n']);
            let _ = writeln!(
                std::io::stderr(),
                "(not an answer: the folder is not trusted for now; your text is sent as your first message)"
            );
            crate::ui::handoff::keep(format!("{typed}\r").as_bytes());
            false
        }
    }
}

/// `bash-agent trust [DIR] [--untrust | --forget | --list]`.
pub fn cmd_trust(dir: Option<&Path>, untrust: bool, forget: bool, list: bool) -> Result {
    if list {
        for (p, t) in trust::entries() {
            let gone = if p.exists() {
                ""
            } else {
                "\t(no longer exists)"
            };
            println!(
                "{}\t{}{gone}",
                if t { "trusted" } else { "untrusted" },
                shown::path(&p)
            );
        }
        return Ok(());
    }
    let dir: PathBuf = match dir {
        Some(d) if d.is_absolute() => d.to_path_buf(),
        Some(d) => std::env::current_dir().map_err(Error::runtime)?.join(d),
        None => {
            let cwd = crate::session::paths::physical_cwd().map_err(Error::runtime)?;
            crate::settings::project_root(&cwd)
        }
    };
    if !forget && !dir.is_dir() {
        return Err(Error::usage(format!(
            "{}: no such folder",
            shown::path(&dir)
        )));
    }
    let decision = match (untrust, forget) {
        (_, true) => None,
        (true, _) => Some(false),
        _ => Some(true),
    };
    if decision == Some(true) {
        if let Some(why) = trust::too_wide(&dir) {
            return Err(Error::usage(format!(
                "{}: not trusted: {why}, so trusting it would trust every folder below it (every repository cloned there later). Trust the project's own folder instead",
                shown::path(&dir)
            )));
        }
    }
    let stored = trust::store(&dir, decision).map_err(Error::usage)?;
    let what = match decision {
        Some(true) => "trusted: its project settings, MCP servers and hooks apply",
        Some(false) => "not trusted: its project settings that widen are ignored",
        None => "forgotten: runs there decide again",
    };
    println!("{} {what}", shown::path(&stored));
    Ok(())
}
