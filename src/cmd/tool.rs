//! `bash-agent tool NAME JSON` (hidden): run one tool directly, for benchmarks and debugging.
use crate::error::Result;
use crate::session::Session;
use crate::tools::{run, Limits, LocalHost};
use crate::util::cancel::Cancel;
use serde_json::Value;

/// Hidden `tool` subcommand: run one tool in the current directory (LocalHost, a throw-away
/// session folder under the temp dir) and print its display text. Exit 0 on success, 1 on
/// a tool error; a bad JSON input is an error (exit 1 through the caller).
pub fn cmd_tool(o: &crate::cli::Opts, name: &str, input: &str) -> Result {
    use std::io::Write;
    let cfg = crate::config::resolve(o, false)?;
    let input: Value =
        serde_json::from_str(input).map_err(|e| anyhow::anyhow!("invalid tool input JSON: {e}"))?;
    let cwd = crate::session::paths::physical_cwd()?;
    let tmp = std::env::temp_dir().join(format!(
        "bash-agent-tool-{}-{:08x}",
        std::process::id(),
        crate::util::random_u64() & 0xffff_ffff
    ));
    let session = Session::new(&tmp, "tool");
    std::fs::create_dir_all(&session.dir)?;
    let _ = crate::util::fsx::touch(&session.plan_draft());
    let ctx = LocalHost {
        session,
        cwd,
        limits: Limits {
            tool_timeout: cfg.tool_timeout,
            max_result_bytes: cfg.max_result_bytes,
            bash_mode: cfg.bash_mode,
        },
        depth: 0,
        cancel: Cancel::new(),
    };
    crate::sandbox::configure(cfg.sandbox.clone(), Some(&ctx.session.dir));
    let out = run(&ctx, "toolu_cli", name, &input);
    // A page WebFetch saved whole (over the result cap) is named in the output: it stays,
    // the rest of the throw-away folder goes.
    let saved = ctx.session.dir.join("webfetch");
    if saved.is_dir() {
        if let Ok(entries) = std::fs::read_dir(&ctx.session.dir) {
            for e in entries.flatten().filter(|e| e.path() != saved) {
                let p = e.path();
                let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
            }
        }
    } else {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.display.as_bytes())?;
    if !out.display.is_empty() && !out.display.ends_with('\n') {
        stdout.write_all(b"\n")?;
    }
    stdout.flush()?;
    if out.ok {
        Ok(())
    } else {
        Err(crate::error::Error::Reported(crate::error::Kind::Runtime))
    }
}
