//! The permission policy `BASH_AGENT_BASH_MODE` (docs/tools-and-policy.md): a heuristic
//! classifier giving the octal bits a command needs, the check against the mode, and the
//! native file guard of the file tools. Deviations from the reference are listed in
//! docs/tools-and-policy.md (section "Permission policy").
mod classify;
mod scope;
pub mod words;

pub use classify::{classify, classify_for_gate, classify_in};
pub use scope::{is_sensitive, physical, Places};
use std::path::PathBuf;

/// Scope shifts: system, external, network, workspace.
pub const SYSTEM: u32 = 9;
pub const EXTERNAL: u32 = 6;
pub const NETWORK: u32 = 3;
pub const WORKSPACE: u32 = 0;
pub(super) const R: u32 = 4;
pub(super) const W: u32 = 2;
pub(super) const X: u32 = 1;

/// `required & !allowed == 0`, else the reference's error text.
pub fn check(required: u32, mode: u32) -> Result<(), String> {
    if required & !mode & 0o7777 == 0 {
        Ok(())
    } else {
        Err(format!(
            "command blocked by bash safety policy (required={:04o} allowed={:04o}; mode=system/external/network/workspace bits=4:read,2:write,1:execute)",
            required & 0o7777,
            mode & 0o7777
        ))
    }
}

/// What a native file tool is about to do with its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// The native file guard: the bits a file tool needs for `target`. Existing paths
/// are resolved through symlinks first, so a link cannot smuggle a system file in.
pub fn file_required(target: &str, access: Access, places: &Places) -> u32 {
    let t = if target.is_empty() { "." } else { target };
    let resolved = resolve_existing(t, places);
    let low = resolved.to_lowercase();
    let bits = match access {
        Access::Read => R,
        Access::Write => W,
    };
    let lexical_scope = places.scope(&t.to_lowercase());
    let real_scope = places.scope(&low);
    // Take the stricter of the literal and the resolved path.
    let sc = match (lexical_scope, real_scope) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    match sc {
        Some(sc) => bits << sc,
        None => R << WORKSPACE,
    }
}

/// The places of this run for a workspace `cwd`: the session store, HOME, and the folders
/// the user added with `--add-dir` (workspace for the policy as they are for the sandbox).
pub fn places_of_run(cwd: &std::path::Path) -> Places {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let sandbox = crate::sandbox::settings();
    let mut added = sandbox.add_dir_names.clone();
    added.extend(sandbox.add_dirs.iter().cloned());
    Places::new(cwd, &crate::session::paths::projects_root(), &home).with_added(&added)
}

/// Check a file tool's target against `mode`.
pub fn check_file(target: &str, access: Access, places: &Places, mode: u32) -> Result<(), String> {
    check(file_required(target, access, places), mode)
}

fn resolve_existing(t: &str, places: &Places) -> String {
    physical_target(t, places).to_string_lossy().into_owned()
}

/// A file tool's target as the kernel would reach it (`~` expanded, relative to the
/// workspace, every existing symlink followed).
pub fn physical_target(t: &str, places: &Places) -> PathBuf {
    let home = places.home_path.clone();
    let p = if t == "~" {
        home
    } else if let Some(rest) = t.strip_prefix("~/") {
        home.join(rest)
    } else if t.starts_with('/') {
        PathBuf::from(t)
    } else {
        places.cwd_path.join(t)
    };
    scope::physical(&p)
}
