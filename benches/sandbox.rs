//! The sandbox's cost per command (not a test): building the Landlock ruleset and the
//! scrubbed environment in the parent, and a whole spawn + wait of `/bin/true` with and
//! without confinement (the difference is what a Bash call pays, child side included).
//! Run: `cargo bench --bench sandbox`.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use bash_agent::sandbox::{self, Mode, Settings};
use std::process::{Command, Stdio};
use std::time::Instant;

fn spawn_true(n: usize, cwd: &std::path::Path) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        let mut c = Command::new("/bin/true");
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let _guard = sandbox::confine(&mut c, cwd).expect("confine");
        c.status().expect("spawn");
    }
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}

fn main() {
    let dir = std::env::temp_dir().join(format!("bash-agent-bench-sandbox-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let cwd = std::env::current_dir().expect("cwd");
    let n = 2000;
    let rounds = 5;
    let mut prep = Vec::new();
    let mut off = Vec::new();
    let mut on = Vec::new();
    for _ in 0..rounds {
        sandbox::configure(Settings::default(), Some(&dir));
        let t = Instant::now();
        for _ in 0..n {
            let mut c = Command::new("/bin/true");
            let g = sandbox::confine(&mut c, &cwd).expect("confine");
            assert!(g.enforced() || sandbox::kernel_abi() == 0);
        }
        prep.push(t.elapsed().as_secs_f64() * 1e6 / n as f64);
        on.push(spawn_true(300, &cwd));
        sandbox::configure(
            Settings {
                mode: Mode::Off,
                ..Settings::default()
            },
            Some(&dir),
        );
        off.push(spawn_true(300, &cwd));
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let (p, a, b) = (med(&mut prep), med(&mut off), med(&mut on));
    println!("landlock abi: {}", sandbox::kernel_abi());
    println!("prepare (ruleset + environment, parent side): {p:.1} us/call");
    println!("spawn+wait /bin/true: off {a:.1} us, workspace-write {b:.1} us");
    println!("sandbox cost per command: {:.1} us", b - a);
    let _ = std::fs::remove_dir_all(&dir);
}
