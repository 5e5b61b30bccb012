//! Grep (docs/tools-and-policy.md): `rg -n --color never --heading [-C n] [--glob g] -- pattern
//! path` in-process with grep-regex/grep-searcher; parallel search, files sorted.
use super::common::{arg, int, pattern_and_root};
use super::glob::{overrides, shown, walker};
use super::{ToolHost, ToolOutput};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkState;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Collects rg's `-n` lines for one file.
#[derive(Default)]
struct Lines {
    out: String,
    matched: bool,
    binary_at: Option<u64>,
}

fn push_line(out: &mut String, n: u64, sep: char, line: &[u8]) {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    out.push_str(&n.to_string());
    out.push(sep);
    out.push_str(&String::from_utf8_lossy(body));
    out.push('\n');
}

impl Sink for Lines {
    type Error = std::io::Error;
    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.matched = true;
        let first = m.line_number().unwrap_or(0);
        for (n, line) in (first..).zip(m.lines()) {
            push_line(&mut self.out, n, ':', line);
        }
        Ok(true)
    }
    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        push_line(&mut self.out, c.line_number().unwrap_or(0), '-', c.bytes());
        Ok(true)
    }
    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.out.push_str("--\n");
        Ok(true)
    }
    fn binary_data(&mut self, _: &Searcher, offset: u64) -> Result<bool, Self::Error> {
        self.binary_at = Some(offset);
        Ok(true)
    }
}

fn searcher(context: usize, explicit: bool) -> Searcher {
    let bin = if explicit {
        BinaryDetection::convert(b'\x00')
    } else {
        BinaryDetection::quit(b'\x00')
    };
    SearcherBuilder::new()
        .line_number(true)
        .before_context(context)
        .after_context(context)
        .binary_detection(bin)
        .build()
}

/// Search one file; None when nothing is to be printed.
fn search_file(s: &mut Searcher, m: &RegexMatcher, path: &Path, explicit: bool) -> Option<String> {
    let mut sink = Lines::default();
    if s.search_path(m, path, &mut sink).is_err() {
        return None;
    }
    match sink.binary_at {
        Some(off) if explicit && sink.matched => Some(format!(
            "binary file matches (found \"\\0\" byte around offset {off})\n"
        )),
        Some(_) => None,
        None if sink.matched => Some(sink.out),
        None => None,
    }
}

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let (pattern, given, root) = match pattern_and_root(ctx, input) {
        Ok(v) => v,
        Err(e) => return e,
    };
    if !root.exists() {
        return ToolOutput::error(&format!("path not found: {given}"), max);
    }
    let context = match int(input, "context") {
        Ok(Some(c)) if c > 0 => c as usize,
        _ => 0,
    };
    let matcher = match RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(&pattern)
    {
        Ok(m) => m,
        Err(e) => return ToolOutput::error(&format!("invalid regex: {e}"), max),
    };
    if root.is_file() {
        let out =
            search_file(&mut searcher(context, true), &matcher, &root, true).unwrap_or_default();
        return ToolOutput::text(true, &out, max);
    }
    let glob = arg(input, "glob");
    let globs: Vec<&str> = if glob.is_empty() {
        vec![]
    } else {
        vec![glob.as_str()]
    };
    let ov = match overrides(ctx.cwd(), &globs) {
        Ok(o) => o,
        Err(e) => return ToolOutput::error(&e, max),
    };
    let (tx, rx) = std::sync::mpsc::channel::<(PathBuf, String)>();
    walker(&root, ov).build_parallel().run(|| {
        let tx = tx.clone();
        let matcher = matcher.clone();
        let mut s = searcher(context, false);
        Box::new(move |res| {
            if let Ok(ent) = res {
                if ent.file_type().is_some_and(|t| t.is_file()) {
                    if let Some(text) = search_file(&mut s, &matcher, ent.path(), false) {
                        let _ = tx.send((ent.into_path(), text));
                    }
                }
            }
            WalkState::Continue
        })
    });
    drop(tx);
    let mut hits: Vec<(PathBuf, String)> = rx
        .into_iter()
        .map(|(p, t)| (shown(&given, &root, &p), t))
        .collect();
    hits.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (i, (p, text)) in hits.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&p.to_string_lossy());
        out.push('\n');
        out.push_str(text);
    }
    ToolOutput::text(true, &out, max)
}
