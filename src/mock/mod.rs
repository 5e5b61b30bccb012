//! The scripted model server (hidden `mock-server` subcommand), for tests and the offline
//! demo. It speaks the three providers' real SSE formats (chosen by the request path),
//! answers from a JSON script and records every request. See `script.rs` for the format.
pub mod script;
pub mod server;
pub mod wire;

pub use server::Server;

use std::io::Write;

/// Run the server until killed. Prints `http://127.0.0.1:<port>` on stdout once listening.
pub fn cmd(script: &str, port: u16, record: Option<&str>) -> anyhow::Result<i32> {
    let text = std::fs::read_to_string(script)
        .map_err(|e| anyhow::anyhow!("cannot read mock script {script}: {e}"))?;
    let server = Server::start(&text, record.map(std::path::Path::new), port)?;
    let mut out = std::io::stdout();
    writeln!(out, "{}", server.url)?;
    out.flush()?;
    loop {
        std::thread::park();
    }
}
