//! TODO
use crate::cli::Opts;
pub fn cmd_search(o: &Opts, words: &str, all_projects: bool) -> anyhow::Result<i32> {
    let _ = (o, words, all_projects);
    anyhow::bail!("search not implemented")
}
