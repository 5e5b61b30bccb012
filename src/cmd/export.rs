//! `bash-agent export [--session NAME] [--format md|html|json] [-o FILE]` (docs/export.md):
//! the chosen session's transcript on stdout, or written atomically to FILE.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::export::{self, Format};
use crate::session::Session;
use std::path::{Path, PathBuf};

/// The format from `--format`, else the output file's extension, else markdown.
pub fn pick_format(format: Option<&str>, output: Option<&Path>) -> Result<Format> {
    match format {
        Some(f) => Format::parse(f)
            .ok_or_else(|| Error::usage(format!("unknown export format {f:?} (md, html or json)"))),
        None => Ok(output
            .and_then(Format::from_path)
            .unwrap_or(Format::Markdown)),
    }
}

/// The session `export` reads: `--session NAME`, else the project's latest.
fn chosen(o: &Opts) -> Result<Session> {
    let project = crate::session::select::project_dir()?;
    let Some(id) = crate::session::select::named_or_latest(o, &project)? else {
        return Err(Error::usage("no session to export in this project"));
    };
    let s = Session::new(&project, &id);
    if !s.dir.is_dir() {
        return Err(Error::usage(format!(
            "session not found: {id} (see bash-agent --list-sessions)"
        )));
    }
    Ok(s)
}

/// Write `text` to `path` (relative to the cwd) by temp + rename.
fn write_file(path: &Path, text: &str) -> Result<PathBuf> {
    export::write_to(path, text).map_err(|e| match e {
        export::WriteError::IsDir(p) => Error::usage(format!("{} is a directory", p.display())),
        export::WriteError::Io(p, e) => {
            Error::runtime(format!("cannot write {}: {e}", p.display()))
        }
    })
}

pub fn cmd_export(o: &Opts, format: Option<&str>, output: Option<&Path>) -> Result {
    // `--json` (the global flag) asks for JSON like it does of the other subcommands.
    let f = pick_format(format.or(o.json.then_some("json")), output)?;
    let s = chosen(o)?;
    let t = export::load(&s);
    let text = export::render(&t, f);
    match output {
        Some(p) => {
            let full = write_file(p, &text)?;
            eprintln!(
                "Exported session {} ({} turns, {}) to {}",
                s.id,
                t.turns.iter().filter(|x| x.n > 0).count(),
                f.ext(),
                full.display()
            );
        }
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(())
}
