//! The event → message extraction of the search index: which events are searchable, with
//! what text, and the joining of streamed text/thinking deltas into one message (a run that
//! may continue in the next incremental sync).
use rusqlite::params;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

/// The fields of an event the index reads, borrowed from the line (no tree of values). A
/// line this cannot take (a field that is not a string, a duplicate key) is read as a
/// [`Value`] instead, so the text indexed is the same either way.
#[derive(Deserialize)]
pub(crate) struct Ev<'a> {
    #[serde(rename = "type", borrow)]
    pub(crate) ty: Cow<'a, str>,
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    description: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    prompt: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Raw<'a>,
}

/// A value kept as its text; `null` too (an `Option` would read it as absent).
#[derive(Default)]
struct Raw<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(|r| Raw(Some(r)))
    }
}

/// One event: read typed, or as a whole value.
pub(crate) enum Fields<'a> {
    Typed(&'a Ev<'a>),
    Value(&'a Value),
}

impl Fields<'_> {
    fn ty(&self) -> &str {
        match self {
            Fields::Typed(e) => &e.ty,
            Fields::Value(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// A string field, `""` when absent (or not a string).
    fn s(&self, k: &str) -> &str {
        match self {
            Fields::Typed(e) => {
                let f = match k {
                    "content" => &e.content,
                    "name" => &e.name,
                    "description" => &e.description,
                    "prompt" => &e.prompt,
                    "text" => &e.text,
                    "output" => &e.output,
                    "message" => &e.message,
                    _ => &None,
                };
                f.as_deref().unwrap_or("")
            }
            Fields::Value(v) => v.get(k).and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// `input` as compact JSON (as `Value::to_string` writes it), `""` when absent.
    fn input(&self) -> String {
        match self {
            Fields::Typed(e) => e
                .input
                .0
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                .map(|v| v.to_string())
                .unwrap_or_default(),
            Fields::Value(v) => v.get("input").map(Value::to_string).unwrap_or_default(),
        }
    }
}

/// An open run of text (or thinking) deltas, written as one message.
pub(crate) struct Run {
    pub(crate) id: Option<i64>,
    pub(crate) kind: String,
    pub(crate) text: String,
    pub(crate) line_no: i64,
    pub(crate) offset: i64,
}

/// Writes the messages of one file's new lines inside the sync transaction.
pub(crate) struct Writer<'a> {
    pub(crate) tx: &'a rusqlite::Transaction<'a>,
    /// The file's row id in `files`.
    pub(crate) file_id: i64,
    pub(crate) run: Option<Run>,
    /// The insert statement, prepared at the first row.
    pub(crate) insert: Option<rusqlite::CachedStatement<'a>>,
}

impl Writer<'_> {
    fn insert(
        &mut self,
        line_no: i64,
        offset: i64,
        kind: &str,
        text: &str,
    ) -> rusqlite::Result<i64> {
        // One statement for all the file's rows (taking it from the cache and handing it
        // back for every row cost as much as a tenth of a first build).
        let q = match &mut self.insert {
            Some(q) => q,
            slot @ None => slot.insert(self.tx.prepare_cached(
                "INSERT INTO messages(file_id, line_no, offset, type, text)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?),
        };
        q.execute(params![self.file_id, line_no, offset, kind, text])?;
        Ok(self.tx.last_insert_rowid())
    }

    /// Write the open run; returns its id and type (it may continue in the next sync).
    pub(crate) fn flush(&mut self) -> rusqlite::Result<(Option<i64>, Option<String>)> {
        let Some(run) = self.run.as_mut() else {
            return Ok((None, None));
        };
        match run.id {
            Some(id) => {
                self.tx
                    .prepare_cached("UPDATE messages SET text = ?1 WHERE id = ?2 AND text <> ?1")?
                    .execute(params![run.text, id])?;
            }
            None => {
                let (l, o, k, t) = (run.line_no, run.offset, run.kind.clone(), run.text.clone());
                let id = self.insert(l, o, &k, &t)?;
                if let Some(r) = self.run.as_mut() {
                    r.id = Some(id);
                }
            }
        }
        Ok(self
            .run
            .as_ref()
            .map_or((None, None), |r| (r.id, Some(r.kind.clone()))))
    }

    /// An event with nothing to index: it ends an open run of deltas, as in [`Writer::line`].
    pub(crate) fn skip(&mut self) -> rusqlite::Result<()> {
        self.flush()?;
        self.run = None;
        Ok(())
    }

    /// Handle one event; returns the number of new messages.
    pub(crate) fn line(&mut self, v: Fields, line_no: i64, offset: i64) -> rusqlite::Result<usize> {
        let ty = v.ty();
        let s = |k: &str| v.s(k);
        if ty == "text" || ty == "thinking" {
            let piece = strip_ansi(s("content"));
            if let Some(r) = self.run.as_mut().filter(|r| r.kind == ty) {
                r.text.push_str(&piece);
                return Ok(0);
            }
            self.flush()?;
            self.run = Some(Run {
                id: None,
                kind: ty.to_string(),
                text: piece,
                line_no,
                offset,
            });
            return Ok(1);
        }
        self.flush()?;
        self.run = None;
        let text = match ty {
            "user_input" | "user_notify" => s("content").to_string(),
            "tool_result" => format!("{}: {}", s("name"), s("content")),
            "tool_call" => format!("{} {}", s("name"), v.input()),
            "sub_agent_start" => format!("{}\n{}", s("description"), s("prompt")),
            "sub_agent_result" => s("text").to_string(),
            "async_task_result" => s("output").to_string(),
            "error" => s("message").to_string(),
            _ => return Ok(0),
        };
        let text = strip_ansi(&text);
        if text.trim().is_empty() {
            return Ok(0);
        }
        self.insert(line_no, offset, ty, &text)?;
        Ok(1)
    }
}

/// Whether [`Writer::line`] indexes events of this type.
pub(crate) fn is_searchable(ty: &str) -> bool {
    matches!(
        ty,
        "text"
            | "thinking"
            | "user_input"
            | "user_notify"
            | "tool_result"
            | "tool_call"
            | "sub_agent_start"
            | "sub_agent_result"
            | "async_task_result"
            | "error"
    )
}

/// Remove ANSI escape sequences (the Edit tool's coloured diff).
pub fn strip_ansi(s: &str) -> String {
    if !s.contains('\x1b') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if it.peek() == Some(&'[') {
            it.next();
            for d in it.by_ref() {
                if ('@'..='~').contains(&d) {
                    break;
                }
            }
        }
    }
    out
}
