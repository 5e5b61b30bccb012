//! The search index (`<agent_home>/index.db`, SQLite + FTS5), kept in step with the
//! sessions' events.jsonl files by byte offset: only bytes past the recorded offset are
//! read; a file whose inode changed, that shrank, or whose bytes before the offset changed
//! is re-indexed from 0. The JSONL files stay the source of truth: the index can be deleted
//! at any time, and an index with another `user_version` is dropped and rebuilt.
use super::sync::{forget_in, row, stamp, sync_in};
use rusqlite::{params, Connection, TransactionBehavior};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Bump when the tables or the extracted text change. 3: a message refers to its file by
/// the file's row id (the path, project and session are stored once, in `files`).
pub const SCHEMA_VERSION: i64 = 3;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
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
  file_id INTEGER NOT NULL,
  line_no INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  type TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS files_project ON files(project);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
  text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2');

CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_au AFTER UPDATE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
";

/// The messages of a file (re-indexing, forgetting); dropped during a first build.
const FILE_INDEX: &str = "CREATE INDEX IF NOT EXISTS messages_file ON messages(file_id);";

/// Keeps the full-text index in step with inserted rows (dropped during a first build).
const INSERT_TRIGGER: &str = "
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
";

const DROP: &str = "
DROP TRIGGER IF EXISTS messages_ai; DROP TRIGGER IF EXISTS messages_ad;
DROP TRIGGER IF EXISTS messages_au; DROP TABLE IF EXISTS messages_fts;
DROP TABLE IF EXISTS messages; DROP TABLE IF EXISTS files;
";

pub(crate) fn err(e: impl std::fmt::Display) -> String {
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
        // A sync is one transaction: a larger page cache and in-memory temp tables keep a
        // first build of many sessions from spilling to disk.
        conn.execute_batch(
            "PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-32000",
        )?;
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
            tx.execute_batch(FILE_INDEX)?;
            tx.execute_batch(INSERT_TRIGGER)?;
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
        // A first build (nothing recorded yet) is only a cache of the JSONL files: no fsync
        // (a crash leaves an index that is rebuilt), and the full-text index is built once
        // over all rows rather than row by row through the insert trigger.
        let empty: bool = self
            .conn
            .query_row("SELECT NOT EXISTS (SELECT 1 FROM files)", [], |r| r.get(0))
            .map_err(err)?;
        let bulk = empty && plan.todo.len() > 1;
        if empty {
            self.conn
                .execute_batch("PRAGMA synchronous=OFF")
                .map_err(err)?;
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        if bulk {
            // The file index too is built once at the end (a sort) rather than row by row.
            tx.execute_batch("DROP TRIGGER messages_ai; DROP INDEX messages_file")
                .map_err(err)?;
        }
        for t in &plan.todo {
            sync_in(&tx, &t.file, &t.key, &t.project, &t.session, &mut st)?;
        }
        for path in &plan.gone {
            forget_in(&tx, path)?;
        }
        if bulk {
            tx.execute_batch(&format!(
                "INSERT INTO messages_fts(messages_fts) VALUES('rebuild'); {INSERT_TRIGGER} {FILE_INDEX}"
            ))
            .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        if empty {
            self.conn
                .execute_batch("PRAGMA synchronous=NORMAL")
                .map_err(err)?;
        }
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
                "SELECT f.project, f.session, m.type, m.line_no, m.offset,
                        snippet(messages_fts, 0, ?4, ?5, '…', 16)
                 FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
                   JOIN files f ON f.id = m.file_id
                 WHERE messages_fts MATCH ?1 AND (?2 IS NULL OR f.project = ?2)
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

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
