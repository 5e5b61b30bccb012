//! A compact summary of a repository for `bash-agent init`: what a newcomer would look at
//! first (the top-level files, the README's head, the build files, the git branch and
//! remote, the commands that build and test it). Read from the files alone: no process is
//! started, so the summary is the same wherever it is taken and never runs repository code.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The summary's size cap (the request stays small whatever the repository holds).
pub const SUMMARY_MAX: usize = 24 * 1024;

/// Build files whose head goes into the summary, in this order.
const BUILD_FILES: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "Makefile",
    "makefile",
    "justfile",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "CMakeLists.txt",
    "build.gradle",
    "build.gradle.kts",
    "pom.xml",
    "Gemfile",
    "composer.json",
    "deno.json",
    "Taskfile.yml",
];

/// Instruction files already there: their head helps the model keep what they say.
const INSTRUCTION_FILES: &[&str] = &["CLAUDE.md", "AGENTS.md", ".cursorrules"];

/// The summary of the repository at `root`.
pub fn summary(root: &Path) -> String {
    let mut s = String::new();
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let _ = writeln!(s, "Repository: {name}");
    if let Some((branch, remote)) = git_info(root) {
        if let Some(b) = branch {
            let _ = writeln!(s, "Git branch: {b}");
        }
        if let Some(r) = remote {
            let _ = writeln!(s, "Git remote (origin): {r}");
        }
    }
    let _ = writeln!(s, "\n## Top-level files\n{}", top_level(root));
    if let Some((file, head)) = [
        "README.md",
        "README",
        "README.rst",
        "README.txt",
        "readme.md",
    ]
    .iter()
    .find_map(|f| head_of(&root.join(f), 40, 4096).map(|h| (*f, h)))
    {
        let _ = writeln!(s, "## {file} (head)\n{head}");
    }
    for f in BUILD_FILES {
        if let Some(h) = head_of(&root.join(f), 60, 4096) {
            let _ = writeln!(s, "## {f} (head)\n{h}");
        }
    }
    for f in INSTRUCTION_FILES {
        if let Some(h) = head_of(&root.join(f), 60, 3072) {
            let _ = writeln!(s, "## existing {f} (head)\n{h}");
        }
    }
    let cmds = commands(root);
    if !cmds.is_empty() {
        let _ = writeln!(s, "## Build and test commands found");
        for c in cmds {
            let _ = writeln!(s, "- {c}");
        }
    }
    if s.len() > SUMMARY_MAX {
        let mut cut = SUMMARY_MAX;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("\n[summary truncated]\n");
    }
    s
}

/// The sorted top-level entries (folders with a trailing `/`), at most 100.
fn top_level(root: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            if n == ".git" {
                return None;
            }
            let dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            Some(if dir { format!("{n}/") } else { n })
        })
        .collect();
    names.sort();
    let more = names.len().saturating_sub(100);
    names.truncate(100);
    let mut out = names.join("\n");
    if more > 0 {
        let _ = write!(out, "\n... and {more} more");
    }
    out
}

/// The first `lines` lines of a text file (at most `bytes`), `None` when missing or empty.
fn head_of(path: &Path, lines: usize, bytes: usize) -> Option<String> {
    if !path.is_file() {
        return None;
    }
    let text = crate::util::fsx::read_lossy(path);
    let mut out: String = text.lines().take(lines).collect::<Vec<_>>().join("\n");
    if out.len() > bytes {
        let mut cut = bytes;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    (!out.trim().is_empty()).then(|| format!("```\n{out}\n```\n"))
}

/// The git folder of `root` (`.git`, or where a worktree's `.git` file points) and the
/// folder holding its config (a worktree's common dir).
fn git_dirs(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let dot = root.join(".git");
    let dir = if dot.is_dir() {
        dot
    } else {
        let text = std::fs::read_to_string(&dot).ok()?;
        let p = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
        if p.is_absolute() {
            p
        } else {
            root.join(p)
        }
    };
    let common = std::fs::read_to_string(dir.join("commondir"))
        .ok()
        .map(|c| {
            let p = PathBuf::from(c.trim());
            if p.is_absolute() {
                p
            } else {
                dir.join(p)
            }
        })
        .unwrap_or_else(|| dir.clone());
    Some((dir, common))
}

/// (branch, origin URL) from the git files.
fn git_info(root: &Path) -> Option<(Option<String>, Option<String>)> {
    let (dir, common) = git_dirs(root)?;
    let branch = std::fs::read_to_string(dir.join("HEAD")).ok().map(|h| {
        let h = h.trim();
        h.strip_prefix("ref: refs/heads/")
            .map(str::to_string)
            .unwrap_or_else(|| format!("(detached at {})", &h[..h.len().min(12)]))
    });
    let config = std::fs::read_to_string(common.join("config")).unwrap_or_default();
    let mut in_origin = false;
    let mut remote = None;
    for line in config.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_origin = l == "[remote \"origin\"]";
        } else if in_origin {
            if let Some(v) = l.strip_prefix("url").map(str::trim_start) {
                if let Some(v) = v.strip_prefix('=') {
                    remote = Some(strip_credentials(v.trim()));
                }
            }
        }
    }
    Some((branch, remote))
}

/// `https://user:token@host/x` → `https://host/x`: a URL's credentials stay out of requests.
fn strip_credentials(url: &str) -> String {
    match (url.find("://"), url.find('@')) {
        (Some(s), Some(at)) if at > s => format!("{}{}", &url[..s + 3], &url[at + 1..]),
        _ => url.to_string(),
    }
}

/// The build, test and lint commands the files announce.
fn commands(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if root.join("Cargo.toml").is_file() {
        out.extend(["cargo build", "cargo test", "cargo clippy --all-targets"].map(String::from));
    }
    if let Ok(text) = std::fs::read_to_string(root.join("package.json")) {
        let runner = if root.join("pnpm-lock.yaml").exists() {
            "pnpm"
        } else if root.join("yarn.lock").exists() {
            "yarn"
        } else {
            "npm run"
        };
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            for (name, _) in v["scripts"].as_object().into_iter().flatten() {
                if [
                    "test",
                    "build",
                    "lint",
                    "check",
                    "typecheck",
                    "format",
                    "dev",
                ]
                .iter()
                .any(|k| name.starts_with(k))
                {
                    out.push(format!("{runner} {name}"));
                }
            }
        }
    }
    for mk in ["Makefile", "makefile", "justfile"] {
        let tool = if mk == "justfile" { "just" } else { "make" };
        let text = std::fs::read_to_string(root.join(mk)).unwrap_or_default();
        for line in text.lines() {
            let Some((target, _)) = line.split_once(':') else {
                continue;
            };
            let t = target.trim();
            let plain = !t.is_empty()
                && !line.starts_with(char::is_whitespace)
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c));
            if plain && ["test", "check", "lint", "build", "fmt", "ci"].contains(&t) {
                out.push(format!("{tool} {t}"));
            }
        }
    }
    if root.join("go.mod").is_file() {
        out.extend(["go build ./...", "go test ./..."].map(String::from));
    }
    if root.join("pyproject.toml").is_file() || root.join("setup.py").is_file() {
        let text = crate::util::fsx::read_lossy(&root.join("pyproject.toml"));
        if text.contains("pytest") || root.join("tests").is_dir() {
            out.push("pytest".into());
        }
    }
    for script in ["scripts/test.sh", "test.sh", "run_tests.sh"] {
        if root.join(script).is_file() {
            out.push(format!("bash {script}"));
        }
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_files_build_and_git() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join(".git")).unwrap();
        std::fs::write(r.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(
            r.join(".git/config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://u:tok@example.com/x.git\n",
        )
        .unwrap();
        std::fs::write(r.join("README.md"), "# Thing\nDoes things.\n").unwrap();
        std::fs::write(r.join("Makefile"), "build:\n\tcc x.c\ntest: build\n\t./t\n").unwrap();
        std::fs::write(
            r.join("package.json"),
            r#"{"scripts":{"test":"jest","start":"node ."}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(r.join("src")).unwrap();
        let s = summary(r);
        for want in [
            "Git branch: main",
            "Git remote (origin): https://example.com/x.git",
            "src/\n",
            "## README.md (head)\n```\n# Thing",
            "## Makefile (head)",
            "- make build",
            "- make test",
            "- npm run test",
        ] {
            assert!(s.contains(want), "{want}: {s}");
        }
        assert!(!s.contains("tok@") && !s.contains("npm run start"), "{s}");
    }
}
