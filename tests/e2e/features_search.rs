//! Search: a word from a tool result in another project's session, incremental indexing by
//! byte offset, corrupt lines, a deleted / damaged / outdated index, concurrent searches.

use crate::support::*;
use bash_agent::search::index::{Index, SyncStats, SCHEMA_VERSION};
use bash_agent::session::events::ev;
use bash_agent::util::fsx::append_line;
use serde_json::Value;

fn hits(env: &Env, cwd: &std::path::Path, args: &[&str]) -> Vec<Value> {
    let o = env.run_in(cwd, args);
    expect_code(&o, 0);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    v.as_array().unwrap().clone()
}

fn tool_session(env: &Env, cwd: &std::path::Path, id: &str, word: &str) {
    let s = env.session_in(cwd, id);
    let e = s.events();
    append_line(&e, &ev::session_start(id)).unwrap();
    append_line(&e, &ev::user_input("look around")).unwrap();
    append_line(&e, &ev::tool_call("Bash", "toolu_1", r#"{"command":"ls"}"#)).unwrap();
    let out = format!("README.md\n{word}.cfg\nsrc");
    append_line(&e, &ev::tool_result("toolu_1", "Bash", &out)).unwrap();
    append_line(&e, &ev::stop("end_turn")).unwrap();
}

#[test]
fn finds_a_tool_result_in_another_project() {
    let env = Env::new();
    let other = env.other_cwd("elsewhere");
    tool_session(&env, &other, "far", "zanzibarite");
    tool_session(&env, &env.cwd, "near", "quokka");

    // Default scope: this project only.
    assert!(hits(&env, &env.cwd, &["search", "zanzibarite", "--json"]).is_empty());
    let h = hits(&env, &env.cwd, &["search", "quokka", "--json"]);
    assert_eq!(h.len(), 1);

    // --all-projects finds it, as a tool_result of the other project's session.
    let o = env.run(&["search", "zanzibarite", "--all-projects"]);
    expect_code(&o, 0);
    let key = bash_agent::session::paths::project_key(&other);
    let line = stdout(&o);
    assert!(
        line.starts_with(&format!("{key}/far  tool_result  ")) && line.contains("zanzibarite"),
        "{line}"
    );
    assert_eq!(line.lines().count(), 1);
    let h = hits(
        &env,
        &env.cwd,
        &["search", "zanzibarite", "--all-projects", "--json"],
    );
    assert_eq!(h[0]["session"], "far");
    assert_eq!(h[0]["line"], 4);

    // Survives a deleted index (rebuilt) …
    let db = env.home.join(".bash-agent/index.db");
    assert!(db.is_file());
    std::fs::remove_file(&db).unwrap();
    let _ = std::fs::remove_file(env.home.join(".bash-agent/index.db-wal"));
    assert_eq!(
        hits(
            &env,
            &env.cwd,
            &["search", "zanzibarite", "--all-projects", "--json"]
        )
        .len(),
        1
    );
    // … and a damaged one.
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(env.home.join(format!(".bash-agent/index.db{suffix}")));
    }
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    assert_eq!(
        hits(
            &env,
            &env.cwd,
            &["search", "zanzibarite", "--all-projects", "--json"]
        )
        .len(),
        1
    );

    // A removed session disappears from the results.
    std::fs::remove_dir_all(env.project_dir_for(&other).join("far")).unwrap();
    assert!(hits(
        &env,
        &env.cwd,
        &["search", "zanzibarite", "--all-projects", "--json"]
    )
    .is_empty());

    // Nothing searchable is a usage error.
    expect_code(&env.run(&["search", "--", "--"]), 2);
}

#[test]
fn incremental_runs_corrupt_lines_and_rewrites() {
    let env = Env::new();
    let s = env.session("inc");
    let e = s.events();
    let db = env.dir.path().join("index.db");
    let mut idx = Index::open(&db).unwrap();
    let project = env.project_dir();
    let search =
        |idx: &Index, q: &str| idx.search(&format!("\"{q}\""), None, 10, ("", "")).unwrap();

    append_line(&e, &ev::user_input("please count the marmots")).unwrap();
    append_line(&e, &ev::text("Counting the mar")).unwrap();
    // A torn line and garbage in the middle of the file.
    bash_agent::util::fsx::append_bytes(&e, b"{\"type\":\"text\",\"cont\nnot json at all\n")
        .unwrap();
    let st = idx.sync_project(&project).unwrap();
    assert_eq!(st.bad_lines, 2);
    assert_eq!(search(&idx, "marmots").len(), 1);

    // The text run continues in new bytes: "mar" + "mots" is one searchable message.
    append_line(&e, &ev::text("mots now")).unwrap();
    let size_before = std::fs::metadata(&e).unwrap().len();
    append_line(&e, &ev::stop("end_turn")).unwrap();
    let mut st = SyncStats::default();
    idx.sync_file(&e, "p", "inc", &mut st).unwrap();
    let st2 = idx.sync_project(&project).unwrap();
    assert_eq!(
        st.files_read + st2.files_read,
        1,
        "the second sync reads nothing"
    );
    let h = search(&idx, "marmots");
    assert_eq!(h.len(), 2, "{h:?}");
    let text_hit = h.iter().find(|h| h.kind == "text").unwrap();
    assert!(
        text_hit.snippet.contains("Counting the marmots now"),
        "{text_hit:?}"
    );

    // Only the appended bytes are read.
    append_line(&e, &ev::tool_result("t", "Read", "wombat burrow")).unwrap();
    let grown = std::fs::metadata(&e).unwrap().len();
    let st = idx.sync_project(&project).unwrap();
    assert!(st.bytes_read < grown - size_before, "{st:?}");
    assert_eq!(search(&idx, "wombat").len(), 1);

    // A rewritten (shorter) file is re-indexed from 0.
    std::fs::write(&e, format!("{}\n", ev::user_input("only capybaras"))).unwrap();
    let st = idx.sync_project(&project).unwrap();
    assert_eq!(st.reindexed, 1);
    assert!(search(&idx, "wombat").is_empty());
    assert!(search(&idx, "marmots").is_empty());
    assert_eq!(search(&idx, "capybaras").len(), 1);

    // Another schema version is dropped and rebuilt.
    drop(idx);
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 7))
        .unwrap();
    drop(c);
    let mut idx = Index::open(&db).unwrap();
    assert!(search(&idx, "capybaras").is_empty(), "old rows are gone");
    idx.sync_project(&project).unwrap();
    assert_eq!(search(&idx, "capybaras").len(), 1);
}

#[test]
fn concurrent_searches_do_not_corrupt_the_index() {
    let env = Env::new();
    for i in 0..6 {
        tool_session(&env, &env.cwd, &format!("s{i}"), "pangolin");
    }
    let kids: Vec<_> = (0..4)
        .map(|_| {
            env.cmd_in(&env.cwd, &["search", "pangolin", "--json"])
                .output_spawn()
        })
        .collect();
    for k in kids {
        let o = k.wait_with_output().unwrap();
        expect_code(&o, 0);
        let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 6, "{v}");
    }
    assert_eq!(
        hits(&env, &env.cwd, &["search", "pangolin", "--json"]).len(),
        6
    );
}

trait SpawnOut {
    fn output_spawn(self) -> std::process::Child;
}
impl SpawnOut for std::process::Command {
    fn output_spawn(mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}

#[test]
fn fixture_text_deltas_are_joined() {
    let env = Env::new();
    copy_fixture("-tmp-rich-proj/rich", &env.project_dir().join("rich"));
    let h = hits(&env, &env.cwd, &["search", "reading notes", "--json"]);
    assert!(
        h.iter()
            .any(|h| h["type"] == "text" && h["snippet"] == "Reading the notes."),
        "{h:?}"
    );
    // ANSI colour codes of the Edit diff are not indexed.
    let h = hits(&env, &env.cwd, &["search", "BETA gamma", "--json"]);
    assert!(h
        .iter()
        .all(|h| !h["snippet"].as_str().unwrap().contains('\u{1b}')));
    assert!(h.iter().any(|h| h["type"] == "tool_result"));
}
