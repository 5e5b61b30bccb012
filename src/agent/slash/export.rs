//! `/export [md|html|json] [FILE]`: this session's transcript (the same as `bash-agent
//! export`) written to FILE, by default `<session>.<ext>` in the working directory; the
//! format comes from the word `md`/`html`/`json`, else FILE's extension, else markdown.
use crate::agent::context::AgentCtx;
use crate::export::{self, Format};
use std::path::PathBuf;

/// Run `/export` with the rest of the line; returns what to show.
pub fn run(ctx: &AgentCtx, arg: &str) -> String {
    let mut format = None;
    let mut file: Option<PathBuf> = None;
    for word in arg.split_whitespace() {
        match Format::parse(word) {
            Some(f) if format.is_none() => format = Some(f),
            _ if file.is_none() => file = Some(PathBuf::from(word)),
            _ => return "Usage: /export [md|html|json] [FILE]\n".into(),
        }
    }
    let f = format
        .or_else(|| file.as_deref().and_then(Format::from_path))
        .unwrap_or(Format::Markdown);
    let file = file.unwrap_or_else(|| PathBuf::from(format!("{}.{}", ctx.session.id, f.ext())));
    let path = if file.is_absolute() {
        file
    } else {
        ctx.cwd.join(file)
    };
    let t = export::load(&ctx.session);
    match export::write_to(&path, &export::render(&t, f)) {
        Ok(p) => format!(
            "Exported {} turns ({}) to {}\n",
            t.turns.iter().filter(|x| x.n > 0).count(),
            f.ext(),
            p.display()
        ),
        Err(export::WriteError::IsDir(p)) => {
            format!("Error: {} is a directory; give a file name\n", p.display())
        }
        Err(export::WriteError::Io(p, e)) => format!("Error: cannot write {}: {e}\n", p.display()),
    }
}
