//! `bash-agent search WORDS [--all-projects]`: search past sessions and messages.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::search::query::{one_line, search, LIMIT};

/// `bash-agent search`.
pub fn cmd_search(o: &Opts, words: &str, all_projects: bool) -> Result {
    use std::io::IsTerminal;
    let color =
        !o.json && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let marks = if color {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("", "")
    };
    let mut hits = match search(words, all_projects, marks) {
        Ok(h) => h,
        Err(e) if e.starts_with("nothing to search") => {
            return Err(Error::usage(&e));
        }
        Err(e) => {
            return Err(Error::runtime(&e));
        }
    };
    let more = hits.len() > LIMIT;
    hits.truncate(LIMIT);
    if o.json {
        let arr: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                serde_json::json!({
                    "project": h.project,
                    "session": h.session,
                    "type": h.kind,
                    "line": h.line_no,
                    "offset": h.offset,
                    "snippet": one_line(&h.snippet),
                })
            })
            .collect();
        println!("{}", serde_json::Value::from(arr));
    } else {
        if hits.is_empty() {
            eprintln!("No matches.");
        }
        let mut out = String::new();
        for h in &hits {
            out.push_str(&format!(
                "{}/{}  {}  {}\n",
                h.project,
                h.session,
                h.kind,
                one_line(&h.snippet)
            ));
        }
        print!("{out}");
    }
    if more {
        eprintln!("note: only the best {LIMIT} hits are shown; add words to narrow the search");
    }
    Ok(())
}
