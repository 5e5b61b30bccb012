//! The search index (`<agent_home>/index.db`, SQLite + FTS5), kept in step with the
//! sessions' events.jsonl files by byte offset: only bytes past the recorded offset are
//! read; a file whose inode changed, that shrank, or whose bytes before the offset changed
//! is re-indexed from 0. The JSONL files stay the source of truth: the index can be deleted
//! at any time, and an index with another `user_version` is dropped and rebuilt.
use super::writer::{Run, Writer};
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Bump when the tables or the extracted text change.
pub const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS files(
  path TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  session TEXT NOT NULL,
  inode INTEGER NOT NULL,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  line_no INTEGER NOT NULL,
  tail_hash INTEGER NOT NULL,
  run_id INTEGER,
  run_type TEXT
);
CREATE TABLE IF NOT EXISTS messages(
  id INTEGER PRIMARY KEY,
  file TEXT NOT NULL,
  project TEXT NOT NULL,
  session TEXT NOT NULL,
  line_no INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  type TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_file ON messages(file);
CREATE INDEX IF NOT EXISTS files_project ON files(project);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
  text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_au AFTER UPDATE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
";

const DROP: &str = "
DROP TRIGGER IF EXISTS messages_ai; DROP TRIGGER IF EXISTS messages_ad;
DROP TRIGGER IF EXISTS messages_au; DROP TABLE IF EXISTS messages_fts;
DROP TABLE IF EXISTS messages; DROP TABLE IF EXISTS files;
";

/// How many bytes before the offset are hashed to notice a rewritten file.
const TAIL: u64 = 256;

fn err(e: impl std::fmt::Display) -> String {
    format!("search index: {e}")
}

/// An open index.
pub struct Index {
    conn: Connection,
}

/// What one sync did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SyncStats {
    pub files_read: usize,
    pub bytes_read: u64,
    pub messages: usize,
    pub reindexed: usize,
    pub bad_lines: usize,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub project: String,
    pub session: String,
    pub kind: String,
    pub line_no: i64,
    pub offset: i64,
    pub snippet: String,
}

fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase) | Some(rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

impl Index {
    /// Open (or create) the index at `path`. A file that is not a database, or a damaged
    /// one, is deleted and rebuilt; another schema version is dropped and rebuilt.
    pub fn open(path: &Path) -> Result<Index, String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        match Self::open_once(path) {
            Ok(i) => Ok(i),
            Err(e) if is_corrupt(&e) => {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    let mut p = path.as_os_str().to_owned();
                    p.push(suffix);
                    let _ = std::fs::remove_file(PathBuf::from(p));
                }
                Self::open_once(path).map_err(err)
            }
            Err(e) => Err(err(e)),
        }
    }

    fn open_once(path: &Path) -> rusqlite::Result<Index> {
        let conn = Connection::open(path)?;
        // The index holds session text: owner-only, like the session folders.
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        let _: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        conn.execute_batch("PRAGMA synchronous=NORMAL")?;
        let mut idx = Index { conn };
        idx.ensure_schema()?;
        Ok(idx)
    }

    fn ensure_schema(&mut self) -> rusqlite::Result<()> {
        let v: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if v == SCHEMA_VERSION {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let v: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if v != SCHEMA_VERSION {
            tx.execute_batch(DROP)?;
            tx.execute_batch(SCHEMA)?;
            tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
        }
        tx.commit()
    }

    /// Bring every session of one project folder up to date, and forget sessions that are
    /// gone. Unchanged files are told apart by a stat alone, outside any write transaction;
    /// all changes are written in one transaction.
    pub fn sync_project(&mut self, project_dir: &Path) -> Result<SyncStats, String> {
        let mut plan = Plan::default();
        self.plan_project(project_dir, &mut plan)?;
        self.apply(plan)
    }

    /// Sync every project under `root` and forget projects that are gone.
    pub fn sync_all(&mut self, root: &Path) -> Result<SyncStats, String> {
        let mut plan = Plan::default();
        let dirs = crate::session::store::sub_dirs(root);
        let names: HashSet<String> = dirs.iter().map(|d| name_of(d)).collect();
        for d in &dirs {
            self.plan_project(d, &mut plan)?;
        }
        let mut q = self
            .conn
            .prepare_cached("SELECT path, project FROM files")
            .map_err(err)?;
        let rows = q
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(err)?;
        plan.gone.extend(
            rows.filter_map(Result::ok)
                .filter(|(_, p)| !names.contains(p))
                .map(|(f, _)| f),
        );
        drop(q);
        self.apply(plan)
    }

    /// Stat the sessions of one project against the recorded (inode, size, mtime): the
    /// files that changed go to `plan.todo`, the recorded ones that are gone to `plan.gone`.
    fn plan_project(&self, project_dir: &Path, plan: &mut Plan) -> Result<(), String> {
        let project = name_of(project_dir);
        // Every recorded file under this folder: a range over the primary key.
        let lo = format!("{}/", project_dir.to_string_lossy());
        let hi = format!("{}0", project_dir.to_string_lossy());
        let mut known: HashMap<String, (i64, i64, i64)> = HashMap::new();
        {
            let mut q = self
                .conn
                .prepare_cached(
                    "SELECT path, inode, size, mtime FROM files WHERE path >= ?1 AND path < ?2",
                )
                .map_err(err)?;
            let rows = q
                .query_map([&lo, &hi], |r| {
                    Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
                })
                .map_err(err)?;
            for row in rows {
                let (k, v) = row.map_err(err)?;
                known.insert(k, v);
            }
        }
        for dir in crate::session::store::sub_dirs(project_dir) {
            let file = dir.join("events.jsonl");
            let Ok(meta) = std::fs::metadata(&file) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let key = file.to_string_lossy().into_owned();
            let unchanged = known.remove(&key) == Some(stamp(&meta));
            if !unchanged {
                plan.todo.push(Todo {
                    file,
                    key,
                    project: project.clone(),
                    session: name_of(&dir),
                });
            }
        }
        plan.gone.extend(known.into_keys());
        Ok(())
    }

    /// Write a plan in one transaction (none when nothing changed).
    fn apply(&mut self, plan: Plan) -> Result<SyncStats, String> {
        let mut st = SyncStats::default();
        if plan.todo.is_empty() && plan.gone.is_empty() {
            return Ok(st);
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        for t in &plan.todo {
            sync_in(&tx, &t.file, &t.key, &t.project, &t.session, &mut st)?;
        }
        for path in &plan.gone {
            forget_in(&tx, path)?;
        }
        tx.commit().map_err(err)?;
        Ok(st)
    }

    /// Index the new bytes of one events.jsonl.
    pub fn sync_file(
        &mut self,
        file: &Path,
        project: &str,
        session: &str,
        st: &mut SyncStats,
    ) -> Result<(), String> {
        let key = file.to_string_lossy().into_owned();
        let Ok(meta) = std::fs::metadata(file) else {
            return Ok(());
        };
        // Cheap check outside any write transaction: nothing new.
        if let Some(r) = row(&self.conn, &key).map_err(err)? {
            if (r.inode, r.size, r.mtime) == stamp(&meta) {
                return Ok(());
            }
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        sync_in(&tx, file, &key, project, session, st)?;
        tx.commit().map_err(err)
    }

    /// Full-text search; `project` restricts to one project key.
    pub fn search(
        &self,
        fts_query: &str,
        project: Option<&str>,
        limit: usize,
        marks: (&str, &str),
    ) -> Result<Vec<Hit>, String> {
        let mut q = self
            .conn
            .prepare(
                "SELECT m.project, m.session, m.type, m.line_no, m.offset,
                        snippet(messages_fts, 0, ?4, ?5, '…', 16)
                 FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
                 WHERE messages_fts MATCH ?1 AND (?2 IS NULL OR m.project = ?2)
                 ORDER BY rank, m.id DESC LIMIT ?3",
            )
            .map_err(err)?;
        let rows = q
            .query_map(
                params![fts_query, project, limit as i64, marks.0, marks.1],
                |r| {
                    Ok(Hit {
                        project: r.get(0)?,
                        session: r.get(1)?,
                        kind: r.get(2)?,
                        line_no: r.get(3)?,
                        offset: r.get(4)?,
                        snippet: r.get(5)?,
                    })
                },
            )
            .map_err(err)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(err)
    }
}

/// What a sync has to do: files to read, recorded files to forget.
#[derive(Default)]
struct Plan {
    todo: Vec<Todo>,
    gone: Vec<String>,
}

struct Todo {
    file: PathBuf,
    key: String,
    project: String,
    session: String,
}

/// What tells an unchanged file: inode, size and mtime (nanoseconds).
fn stamp(meta: &std::fs::Metadata) -> (i64, i64, i64) {
    (
        meta.ino() as i64,
        meta.len() as i64,
        meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
    )
}

fn forget_in(tx: &Transaction, path: &str) -> Result<(), String> {
    tx.prepare_cached("DELETE FROM messages WHERE file = ?1")
        .and_then(|mut q| q.execute([path]))
        .map_err(err)?;
    tx.prepare_cached("DELETE FROM files WHERE path = ?1")
        .and_then(|mut q| q.execute([path]))
        .map_err(err)?;
    Ok(())
}

fn row(conn: &Connection, path: &str) -> rusqlite::Result<Option<FileRow>> {
    conn.prepare_cached(
        "SELECT inode, size, mtime, offset, line_no, tail_hash, run_id, run_type
         FROM files WHERE path = ?1",
    )?
    .query_row([path], |r| {
        Ok(FileRow {
            inode: r.get(0)?,
            size: r.get(1)?,
            mtime: r.get(2)?,
            offset: r.get(3)?,
            line_no: r.get(4)?,
            tail_hash: r.get(5)?,
            run_id: r.get(6)?,
            run_type: r.get(7)?,
        })
    })
    .optional()
}

/// Index the bytes of one events.jsonl past its recorded offset, inside `tx`.
fn sync_in(
    tx: &Transaction,
    file: &Path,
    key: &str,
    project: &str,
    session: &str,
    st: &mut SyncStats,
) -> Result<(), String> {
    let mut f = match crate::util::fsx::open_read(file) {
        Ok(f) => f,
        // Removed between the stat and now: the next sync forgets it.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(err(e)),
    };
    let meta = f.metadata().map_err(err)?;
    let (inode, _, mtime) = stamp(&meta);
    let mut row = row(tx, key).map_err(err)?.unwrap_or_default();
    let fresh = row.inode != inode || !tail_matches(&mut f, row.offset as u64, row.tail_hash);
    if fresh && row.offset > 0 {
        st.reindexed += 1;
    }
    if fresh {
        tx.prepare_cached("DELETE FROM messages WHERE file = ?1")
            .and_then(|mut q| q.execute([key]))
            .map_err(err)?;
        row = FileRow {
            inode,
            ..FileRow::default()
        };
    }
    f.seek(SeekFrom::Start(row.offset as u64)).map_err(err)?;
    let mut buf = Vec::with_capacity(meta.len().saturating_sub(row.offset as u64) as usize);
    f.read_to_end(&mut buf).map_err(err)?;
    // The size recorded is the one read: bytes appended after this read change it.
    let size = row.offset + buf.len() as i64;
    let complete = buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    st.files_read += 1;
    st.bytes_read += complete as u64;
    let mut w = Writer {
        tx,
        key,
        project,
        session,
        run: None,
    };
    if let (Some(id), Some(t)) = (row.run_id, row.run_type.clone()) {
        let text: Option<String> = tx
            .prepare_cached("SELECT text FROM messages WHERE id = ?1")
            .and_then(|mut q| q.query_row([id], |r| r.get(0)).optional())
            .map_err(err)?;
        if let Some(text) = text {
            w.run = Some(Run {
                id: Some(id),
                kind: t,
                text,
                line_no: 0,
                offset: 0,
            });
        }
    }
    let mut pos = row.offset;
    let mut line_no = row.line_no;
    for raw in buf[..complete].split_inclusive(|&b| b == b'\n') {
        line_no += 1;
        let at = pos;
        pos += raw.len() as i64;
        let text = String::from_utf8_lossy(raw);
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(t) {
            Ok(v) if v.get("type").and_then(Value::as_str).is_some() => {
                st.messages += w.line(&v, line_no, at).map_err(err)?;
            }
            _ => st.bad_lines += 1,
        }
    }
    let (run_id, run_type) = w.flush().map_err(err)?;
    let tail = tail_hash(&mut f, pos as u64).map_err(err)?;
    tx.prepare_cached(
        "INSERT INTO files(path, project, session, inode, size, mtime, offset, line_no, tail_hash, run_id, run_type)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT(path) DO UPDATE SET project = ?2, session = ?3, inode = ?4, size = ?5,
           mtime = ?6, offset = ?7, line_no = ?8, tail_hash = ?9, run_id = ?10, run_type = ?11",
    )
    .and_then(|mut q| {
        q.execute(params![
            key, project, session, inode, size, mtime, pos, line_no, tail, run_id, run_type
        ])
    })
    .map_err(err)?;
    Ok(())
}

#[derive(Debug, Default, Clone)]
struct FileRow {
    inode: i64,
    size: i64,
    mtime: i64,
    offset: i64,
    line_no: i64,
    tail_hash: i64,
    run_id: Option<i64>,
    run_type: Option<String>,
}

fn tail_hash(f: &mut std::fs::File, end: u64) -> std::io::Result<i64> {
    let start = end.saturating_sub(TAIL);
    f.seek(SeekFrom::Start(start))?;
    let mut buf = vec![0u8; (end - start) as usize];
    f.read_exact(&mut buf)?;
    Ok(crate::util::hash::fnv64(&buf) as i64)
}

fn tail_matches(f: &mut std::fs::File, end: u64, expected: i64) -> bool {
    if end == 0 {
        return true;
    }
    match f.metadata() {
        Ok(m) if m.len() >= end => {}
        _ => return false,
    }
    tail_hash(f, end).is_ok_and(|h| h == expected)
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
