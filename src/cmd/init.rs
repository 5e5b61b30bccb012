//! `bash-agent init [--force]`: a starter AGENTS.md in the repository's root (the git root
//! above the working directory, else the working directory), written by the model from a
//! look at the repository (`agent::init`). Prints the file's path; with `--output-format
//! json` (or stream-json) one `result` object instead, which also carries the path.
use crate::agent::headless::{early_failure, result_object, write_stdout, ResultFields, Spent};
use crate::agent::init::write_agents_md;
use crate::cli::Opts;
use crate::config;
use crate::error::{Error, Kind, Result};
use crate::options::OutputFormat;
use crate::util::cancel::Cancel;
use std::time::Instant;

pub fn cmd_init(o: &Opts, force: bool) -> Result {
    let start = Instant::now();
    let format = config::output_format(o)?;
    let r = run(o, force, start, format);
    if let Err(e) = &r {
        if let Some(m) = e.message() {
            early_failure(format, m);
        }
    }
    r
}

fn run(o: &Opts, force: bool, start: Instant, format: OutputFormat) -> Result {
    let cfg = config::resolve(o, true)?;
    let cwd = crate::session::paths::physical_cwd()?;
    let root = crate::agent::init::root_for(&cwd);
    let cancel = Cancel::new();
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, cancel.flag());
    if format == OutputFormat::Human {
        eprintln!(
            "Looking at {} and asking {} for an AGENTS.md...",
            root.display(),
            cfg.provider.model
        );
    }
    let out = match write_agents_md(&cfg.provider, &root, force, &cancel) {
        Ok(out) => out,
        Err(_) if cancel.is_cancelled() => {
            eprintln!("Interrupted");
            return Err(Error::Reported(Kind::Interrupted));
        }
        Err(e) => return Err(Error::Runtime(e.to_string())),
    };
    let path = out.path.display().to_string();
    if matches!(format, OutputFormat::Human | OutputFormat::Text) {
        crate::util::say::out_line(&path);
        return Ok(());
    }
    let u = &out.usage;
    let price = crate::usage::prices::Overrides::load().price(&cfg.provider.model);
    let spent = Spent {
        input: u.input,
        output: u.output,
        cache_read: u.cache_read,
        cache_creation: u.cache_creation,
        api_ms: out.info.elapsed_ms,
        cost: price.map(|p| crate::usage::prices::cost(&p, u)),
    };
    let mut v = result_object(&ResultFields {
        subtype: "success",
        result: &out.text,
        session_id: "",
        num_turns: 1,
        duration_ms: start.elapsed().as_millis() as u64,
        spent: &spent,
        stop_reason: out.stop_reason.as_deref(),
    });
    v["path"] = path.into();
    write_stdout(&format!("{v}\n"));
    Ok(())
}
